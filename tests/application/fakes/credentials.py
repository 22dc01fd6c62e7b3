"""Seat credentials."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.ports import AppendConflictError
from tests.application.fakes.tables import Commit, CredentialRow, IntegrityViolation, Tables

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeCredentials:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        def write(c: Commit) -> None:
            if (game_id, seat) in c.after.credentials:  # a racing join took the seat first
                raise AppendConflictError(game_id)
            if any(row.token_sha256 == token_sha256 for row in c.after.credentials.values()):
                raise IntegrityViolation("seat_credentials: duplicate token_sha256")
            c.after.credentials[(game_id, seat)] = CredentialRow(token_sha256, created_at)
            c.game(game_id, "seat_credentials")

        self._uow.queue(write)

    def find(self, token_sha256: str) -> tuple[UUID, int] | None:
        for key, row in self._uow.read().credentials.items():
            if row.token_sha256 == token_sha256:
                return key
        return None

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        def holds(t: Tables) -> bool:
            row = t.credentials.get((game_id, seat))
            return row is not None and row.token_sha256 == token_sha256

        self._uow.require(holds)
