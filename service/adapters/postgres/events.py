"""The event store: each game's stream, in ``seq`` order, and every game's events in the
global order that feeds across games follow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import BigInteger, Connection, Row, insert, literal_column, select, tuple_
from sqlalchemy.exc import IntegrityError

from service.adapters.postgres.errors import is_unique_violation
from service.adapters.postgres.tables import events
from service.application.ports import (
    Actor,
    ActorKind,
    AppendConflictError,
    Position,
    StoredEvent,
)

# The oldest transaction still running, as the events' transaction_id column holds it.
_WATERMARK = literal_column(
    "pg_snapshot_xmin(pg_current_snapshot())::text::bigint", type_=BigInteger
)


def _stored(r: Row[Any]) -> StoredEvent:
    return StoredEvent(
        game_id=r.game_id,
        seq=r.seq,
        type=r.type,
        schema_version=r.schema_version,
        data=r.data,
        recorded_at=r.recorded_at,
        actor=Actor(ActorKind(r.actor_kind), r.actor_seat),
        request_id=r.request_id,
        idempotency_key=r.idempotency_key,
        prev_hash=r.prev_hash,
        hash=r.hash,
    )


class SqlEventStore:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        query = select(events).where(events.c.game_id == game_id, events.c.seq > after)
        if upto is not None:
            query = query.where(events.c.seq <= upto)
        query = query.order_by(events.c.seq)
        if limit is not None:
            query = query.limit(limit)
        return [_stored(r) for r in self._conn.execute(query)]

    def append(self, rows: Sequence[StoredEvent]) -> None:
        try:
            self._conn.execute(
                insert(events),
                [
                    {
                        "game_id": e.game_id,
                        "seq": e.seq,
                        "type": e.type,
                        "schema_version": e.schema_version,
                        "data": e.data,
                        "recorded_at": e.recorded_at,
                        "actor_kind": e.actor.kind.value,
                        "actor_seat": e.actor.seat,
                        "request_id": e.request_id,
                        "idempotency_key": e.idempotency_key,
                        "prev_hash": e.prev_hash,
                        "hash": e.hash,
                    }
                    for e in rows
                ],
            )
        except IntegrityError as exc:
            if is_unique_violation(exc):
                raise AppendConflictError(rows[0].game_id) from exc
            raise

    def read_all(self, after: Position | None, limit: int) -> list[tuple[Position, StoredEvent]]:
        # Transaction ids are taken when a transaction first writes, not when it commits:
        # a reader that took every committed row would skip one of an older transaction
        # that commits later. Below the oldest transaction still running, every
        # transaction has ended, so nothing can appear there any more.
        query = select(events).where(events.c.transaction_id < _WATERMARK)
        if after is not None:
            query = query.where(
                tuple_(events.c.transaction_id, events.c.position)
                > tuple_(after.transaction, after.position)
            )
        query = query.order_by(events.c.transaction_id, events.c.position).limit(limit)
        return [
            (Position(r.transaction_id, r.position), _stored(r)) for r in self._conn.execute(query)
        ]
