"""The transactional outbox: messages written with the events that cause them, taken by
workers that skip the ones another worker holds."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from psycopg.types.json import Jsonb

from service.adapters.postgres.session import Session, Statement
from service.application.webhooks.ports import ClaimedMessage, OutboxMessage


class SqlOutbox:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, messages: Sequence[OutboxMessage], created_at: datetime) -> None:
        if not messages:
            return
        self._session.write(
            Statement(
                "INSERT INTO outbox (kind, game_id, payload, created_at, available_at) "
                "SELECT kind, game_id, payload, %s, available_at FROM unnest("
                "%s::text[], %s::uuid[], %s::jsonb[], %s::timestamptz[]) "
                "AS m(kind, game_id, payload, available_at)",
                (
                    created_at,
                    [m.kind for m in messages],
                    [m.game_id for m in messages],
                    [Jsonb(m.payload) for m in messages],
                    [m.available_at for m in messages],
                ),
            )
        )

    def claim(self, kind: str, now: datetime, limit: int) -> list[ClaimedMessage]:
        # Locked rows stay locked until this unit of work ends: it must be a transaction.
        self._session.begin()
        rows = self._session.fetch(
            "SELECT id, kind, payload, available_at, game_id, attempts FROM outbox "
            "WHERE kind = %s AND done_at IS NULL AND available_at <= %s "
            "ORDER BY available_at, id LIMIT %s FOR UPDATE SKIP LOCKED",
            [kind, now, limit],
        )
        return [ClaimedMessage(r[0], OutboxMessage(r[1], r[2], r[3], r[4]), r[5]) for r in rows]

    def done(self, message_id: int, at: datetime) -> None:
        self._session.write(
            Statement(
                "UPDATE outbox SET done_at = %s, attempts = attempts + 1, last_error = NULL "
                "WHERE id = %s",
                (at, message_id),
            )
        )

    def retry(self, message_id: int, at: datetime, error: str) -> None:
        self._session.write(
            Statement(
                "UPDATE outbox SET available_at = %s, attempts = attempts + 1, "
                "last_error = %s WHERE id = %s",
                (at, error[:1000], message_id),
            )
        )
