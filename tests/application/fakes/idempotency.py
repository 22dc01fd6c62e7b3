"""Idempotency records."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from service.application.write.ports import DuplicateKeyError, SealedRecord
from tests.application.fakes.tables import Commit, IdempotencyRow, Tables

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeIdempotencyStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def lock(self, scope: str, key_sha256: str) -> None:
        self._uow.lock(("advisory", scope, key_sha256))

    def get(self, scope: str, key_sha256: str) -> SealedRecord | None:
        row = self._uow.read().idempotency.get((scope, key_sha256))
        return None if row is None else row.record

    def add(self, scope: str, key_sha256: str, record: SealedRecord, created_at: datetime) -> None:
        def write(c: Commit) -> None:
            if (scope, key_sha256) in c.after.idempotency:
                raise DuplicateKeyError(key_sha256)
            c.after.idempotency[(scope, key_sha256)] = IdempotencyRow(record, created_at)

        self._uow.queue(write)

    def expire(self, before: datetime, limit: int) -> int:
        def edit(t: Tables) -> int:
            old = [k for k, row in t.idempotency.items() if row.created_at < before][:limit]
            for key in old:
                del t.idempotency[key]
            return len(old)

        return self._uow.at_once(edit)
