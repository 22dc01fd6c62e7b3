"""The event store: each game's stream, in ``seq`` order, and every game's events in the
global order that feeds across games follow."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from service.adapters.postgres.session import Session, Statement
from service.application.ports import Actor, ActorKind, Position, StoredEvent

_COLUMNS = (
    "game_id, seq, type, schema_version, data, recorded_at, actor_kind, actor_seat, "
    "request_id, idempotency_key, prev_hash, hash"
)
# One statement for any number of events: a command's events arrive as columns.
_INSERT = (
    f"INSERT INTO events ({_COLUMNS}) SELECT * FROM unnest("
    "%s::uuid[], %s::int[], %s::text[], %s::smallint[], %s::jsonb[], %s::timestamptz[], "
    "%s::text[], %s::smallint[], %s::text[], %s::text[], %s::text[], %s::text[])"
)
# Transaction ids are taken when a transaction first writes, not when it commits: a
# reader that took every committed row would skip one of an older transaction that
# commits later. Below the oldest transaction still running every transaction has ended,
# so nothing can appear there any more (the transaction-id watermark).
_READ_ALL = (
    f"SELECT transaction_id, position, {_COLUMNS} FROM events "
    "WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint {after}"
    "ORDER BY transaction_id, position LIMIT %s"
)
_ACTORS = {kind.value: kind for kind in ActorKind}


def _stored(r: Sequence[Any]) -> StoredEvent:
    return StoredEvent(
        game_id=r[0],
        seq=r[1],
        type=r[2],
        schema_version=r[3],
        data=r[4],
        recorded_at=r[5],
        actor=Actor(_ACTORS[r[6]], r[7]),
        request_id=r[8],
        idempotency_key=r[9],
        prev_hash=r[10],
        hash=r[11],
    )


class SqlEventStore:
    def __init__(self, session: Session) -> None:
        self._session = session

    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        sql = f"SELECT {_COLUMNS} FROM events WHERE game_id = %s AND seq > %s"
        params: list[Any] = [game_id, after]
        if upto is not None:
            sql += " AND seq <= %s"
            params.append(upto)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        return [_stored(r) for r in self._session.fetch(sql, params)]

    def append(self, rows: Sequence[StoredEvent]) -> None:
        """Queued; at commit, :class:`AppendConflictError` if a ``(game_id, seq)`` is
        taken."""
        columns = (
            [e.game_id for e in rows],
            [e.seq for e in rows],
            [e.type for e in rows],
            [e.schema_version for e in rows],
            [Jsonb(e.data) for e in rows],
            [e.recorded_at for e in rows],
            [e.actor.kind.value for e in rows],
            [e.actor.seat for e in rows],
            [e.request_id for e in rows],
            [e.idempotency_key for e in rows],
            [e.prev_hash for e in rows],
            [e.hash for e in rows],
        )
        self._session.write(Statement(_INSERT, columns), rows[0].game_id)

    def read_all(self, after: Position | None, limit: int) -> list[tuple[Position, StoredEvent]]:
        if after is None:
            sql, params = _READ_ALL.format(after=""), [limit]
        else:
            sql = _READ_ALL.format(after="AND (transaction_id, position) > (%s, %s) ")
            params = [after.transaction, after.position, limit]
        return [(Position(r[0], r[1]), _stored(r[2:])) for r in self._session.fetch(sql, params)]
