"""The transactional outbox: messages written with the events that cause them, taken by
workers that skip the ones another worker holds."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, insert, select, update

from service.adapters.postgres.tables import outbox
from service.application.ports import ClaimedMessage, OutboxMessage


class SqlOutbox:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def add(self, messages: Sequence[OutboxMessage], created_at: datetime) -> None:
        if not messages:
            return
        self._conn.execute(
            insert(outbox),
            [
                {
                    "kind": m.kind,
                    "game_id": m.game_id,
                    "payload": m.payload,
                    "created_at": created_at,
                    "available_at": m.available_at,
                }
                for m in messages
            ],
        )

    def claim(self, kind: str, now: datetime, limit: int) -> list[ClaimedMessage]:
        query = (
            select(outbox)
            .where(
                outbox.c.kind == kind,
                outbox.c.done_at.is_(None),
                outbox.c.available_at <= now,
            )
            .order_by(outbox.c.available_at, outbox.c.id)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        return [
            ClaimedMessage(
                r.id, OutboxMessage(r.kind, r.payload, r.available_at, r.game_id), r.attempts
            )
            for r in self._conn.execute(query)
        ]

    def done(self, message_id: int, at: datetime) -> None:
        self._conn.execute(
            update(outbox)
            .where(outbox.c.id == message_id)
            .values(done_at=at, attempts=outbox.c.attempts + 1, last_error=None)
        )

    def retry(self, message_id: int, at: datetime, error: str) -> None:
        self._conn.execute(
            update(outbox)
            .where(outbox.c.id == message_id)
            .values(available_at=at, attempts=outbox.c.attempts + 1, last_error=error[:1000])
        )
