"""Operator tokens kept by `yokai operator create`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeOperators:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def find(self, token_sha256: str) -> str | None:
        self._uow.read()
        return self._uow.db.operators.get(token_sha256)
