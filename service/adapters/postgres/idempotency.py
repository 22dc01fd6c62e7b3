"""Idempotency records: the sealed outcome of each command sent with a key."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import Connection, func, insert, select
from sqlalchemy.exc import IntegrityError

from service.adapters.postgres.errors import is_unique_violation
from service.adapters.postgres.tables import idempotency_keys
from service.application.ports import DuplicateKeyError, SealedRecord


class SqlIdempotencyStore:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def lock(self, scope: str, key_sha256: str) -> None:
        # A transaction-scoped advisory lock on 64 bits of the key's hash.
        lock_id = int.from_bytes(
            hashlib.sha256(f"{scope}|{key_sha256}".encode()).digest()[:8], "big", signed=True
        )
        self._conn.execute(select(func.pg_advisory_xact_lock(lock_id)))

    def get(self, scope: str, key_sha256: str) -> SealedRecord | None:
        row = self._conn.execute(
            select(idempotency_keys).where(
                idempotency_keys.c.scope == scope, idempotency_keys.c.key_sha256 == key_sha256
            )
        ).first()
        if row is None:
            return None
        return SealedRecord(row.fingerprint, bytes(row.body), row.status)

    def add(self, scope: str, key_sha256: str, record: SealedRecord, created_at: datetime) -> None:
        try:
            self._conn.execute(
                insert(idempotency_keys).values(
                    scope=scope,
                    key_sha256=key_sha256,
                    fingerprint=record.fingerprint,
                    status=record.legacy_status,
                    body=record.sealed,
                    created_at=created_at,
                )
            )
        except IntegrityError as exc:
            if is_unique_violation(exc):
                raise DuplicateKeyError(key_sha256) from exc
            raise
