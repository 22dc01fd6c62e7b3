"""The event store: each game's stream, in ``seq`` order, and every game's events in the
global order that feeds across games follow."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from service.adapters.postgres.session import Session, Statement
from service.application.ports import Actor, ActorKind, Position, StoredEvent

_COLUMNS = (
    "game_id, seq, type, schema_version, data, recorded_at, actor_kind, actor_seat, "
    "request_id, idempotency_key, prev_hash, hash, chain_key, actor_id, client_request_id, "
    "client_address"
)
# What reads take: every column written, and the attestation of a resealed event.
SELECTED = _COLUMNS + ", resealed"
# One statement for a command's events, with a row of scalar parameters each (adapting
# scalars costs far less than adapting lists to arrays); one text per number of rows.
_ROW = "(" + ", ".join(["%s"] * 16) + ")"
_INSERT = f"INSERT INTO events ({_COLUMNS}) VALUES "
# Transaction ids are taken when a transaction first writes, not when it commits: a
# reader that took every committed row would skip one of an older transaction that
# commits later. Below the oldest transaction still running every transaction has ended,
# so nothing can appear there any more (the transaction-id watermark).
_READ_ALL = (
    f"SELECT transaction_id, position, {SELECTED} FROM events "
    "WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint {after}"
    "ORDER BY transaction_id, position LIMIT %s"
)
# The game's version and its events after a seq up to that version, in one statement.
_PAGE = (
    f"SELECT g.version, e.* FROM games AS g LEFT JOIN LATERAL ("
    f"SELECT {SELECTED} FROM events WHERE game_id = g.id AND seq > %s AND seq <= g.version "
    "ORDER BY seq LIMIT %s) AS e ON true WHERE g.id = %s ORDER BY e.seq"
)
_ACTORS = {kind.value: kind for kind in ActorKind}


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def stored(r: Sequence[Any]) -> StoredEvent:
    """An event as a row of :data:`SELECTED` gives it."""
    return StoredEvent(
        game_id=r[0],
        seq=r[1],
        type=r[2],
        schema_version=r[3],
        data=r[4],
        recorded_at=r[5].astimezone(UTC),
        actor=Actor(_ACTORS[r[6]], r[7], r[13]),
        request_id=r[8],
        idempotency_key=r[9],
        prev_hash=r[10],
        hash=r[11],
        chain_key=r[12],
        client_request_id=r[14],
        client_address=r[15],
        resealed=r[16] if len(r) > 16 else None,
    )


CHANNEL = "yokai"
"""Where commits are announced (service/adapters/postgres/listener.py listens)."""
NOTIFY_LIMIT = 7900  # PostgreSQL refuses payloads of 8000 bytes or more


def notification(rows: Sequence[StoredEvent]) -> str:
    """A command's announcement: ``g <game id> <version> <previous version>``, then its
    events as JSON rows when the payload stays under PostgreSQL's limit, so listeners
    need not read them back."""
    first, last = rows[0], rows[-1]
    head = f"g {first.game_id} {last.seq} {first.seq - 1}"
    body = json.dumps(
        [
            [
                e.seq,
                e.type,
                e.schema_version,
                e.data,
                (e.recorded_at - _EPOCH) // _MICROSECOND,
                e.actor.kind.value,
                e.actor.seat,
                e.request_id,
                e.idempotency_key,
                e.prev_hash,
                e.hash,
                e.chain_key,
                e.actor.id,
                e.client_request_id,
                e.client_address,
            ]
            for e in rows
        ],
        separators=(",", ":"),
    )
    if len(head) + 1 + len(body.encode()) < NOTIFY_LIMIT:
        return f"{head} {body}"
    return head


def from_notification(game_id: UUID, r: Sequence[Any]) -> StoredEvent:
    """An event as the commit notification's JSON row gives it (migration 0005): the
    columns in order, ``recorded_at`` in microseconds since the epoch. A row of a process
    from before migration 0009 stops at ``hash``: the columns after it are null."""
    rest = [*r[5:], *[None] * (_ROW_LENGTH - len(r))]
    return stored([game_id, *r[:4], _EPOCH + timedelta(microseconds=r[4]), *rest])


_ROW_LENGTH = 15  # a notification's row: every column but the game id


class SqlEventStore:
    def __init__(self, session: Session) -> None:
        self._session = session
        self.appended = 0  # events queued by this unit of work (counted at commit)

    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        sql = f"SELECT {SELECTED} FROM events WHERE game_id = %s AND seq > %s"
        params: list[Any] = [game_id, after]
        if upto is not None:
            sql += " AND seq <= %s"
            params.append(upto)
        sql += " ORDER BY seq"
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        return [stored(r) for r in self._session.fetch(sql, params, order="seq")]

    def page(self, game_id: UUID, after: int, limit: int) -> tuple[int, list[StoredEvent]] | None:
        rows = self._session.fetch(_PAGE, [after, limit, game_id], order="seq")
        if not rows:
            return None
        version = rows[0][0]
        return version, [stored(r[1:]) for r in rows if r[1] is not None]

    def append(self, rows: Sequence[StoredEvent]) -> None:
        """Queued; at commit, :class:`AppendConflictError` if a ``(game_id, seq)`` is
        taken."""
        self.appended += len(rows)
        params: list[Any] = []
        for e in rows:
            params += (
                e.game_id,
                e.seq,
                e.type,
                e.schema_version,
                Jsonb(e.data),
                e.recorded_at,
                e.actor.kind.value,
                e.actor.seat,
                e.request_id,
                e.idempotency_key,
                e.prev_hash,
                e.hash,
                e.chain_key,
                e.actor.id,
                e.client_request_id,
                e.client_address,
            )
        sql = _INSERT + ", ".join([_ROW] * len(rows))
        self._session.write(Statement(sql, params), rows[0].game_id)
        self._session.notify(CHANNEL, notification(rows))

    def commits(self, game_id: UUID, after: int) -> list[list[StoredEvent]]:
        rows = self._session.fetch(
            f"SELECT transaction_id, {SELECTED} FROM events WHERE game_id = %s AND seq > %s "
            "ORDER BY seq",
            [game_id, after],
            order="seq",
        )
        groups: list[list[StoredEvent]] = []
        last = None
        for r in rows:
            if r[0] != last or not groups:
                groups.append([])
                last = r[0]
            groups[-1].append(stored(r[1:]))
        return groups

    def read_all(self, after: Position | None, limit: int) -> list[tuple[Position, StoredEvent]]:
        if after is None:
            sql, params = _READ_ALL.format(after=""), [limit]
        else:
            sql = _READ_ALL.format(after="AND (transaction_id, position) > (%s, %s) ")
            params = [after.transaction, after.position, limit]
        return [(Position(r[0], r[1]), stored(r[2:])) for r in self._session.fetch(sql, params)]
