"""Idempotency records: the sealed outcome of each command sent with a key."""

from __future__ import annotations

import hashlib
from datetime import datetime

from service.adapters.postgres.session import Session, Statement
from service.application.write.ports import SealedRecord


def advisory_lock_id(scope: str, key_sha256: str) -> int:
    """The transaction-scoped advisory lock that holds a key: 64 bits of its hash."""
    return int.from_bytes(
        hashlib.sha256(f"{scope}|{key_sha256}".encode()).digest()[:8], "big", signed=True
    )


class SqlIdempotencyStore:
    def __init__(self, session: Session) -> None:
        self._session = session

    def lock(self, scope: str, key_sha256: str) -> None:
        # Taken in the same round trip as the read that follows it.
        lock_id = advisory_lock_id(scope, key_sha256)
        self._session.hold(Statement("SELECT pg_advisory_xact_lock(%s)", (lock_id,)))

    def get(self, scope: str, key_sha256: str) -> SealedRecord | None:
        rows = self._session.fetch(
            "SELECT fingerprint, body, status FROM idempotency_keys "
            "WHERE scope = %s AND key_sha256 = %s",
            [scope, key_sha256],
        )
        if not rows:
            return None
        fingerprint, body, status = rows[0]
        return SealedRecord(fingerprint, bytes(body), status)

    def add(self, scope: str, key_sha256: str, record: SealedRecord, created_at: datetime) -> None:
        """Queued; at commit, :class:`DuplicateKeyError` if the key is taken."""
        self._session.write(
            Statement(
                "INSERT INTO idempotency_keys "
                "(scope, key_sha256, fingerprint, status, body, created_at) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (
                    scope,
                    key_sha256,
                    record.fingerprint,
                    record.legacy_status,
                    record.sealed,
                    created_at,
                ),
            )
        )

    def expire(self, before: datetime, limit: int) -> int:
        rows = self._session.fetch(
            "DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY("
            "SELECT ctid FROM idempotency_keys WHERE created_at < %s LIMIT %s)) RETURNING 1",
            [before, limit],
        )
        return len(rows)
