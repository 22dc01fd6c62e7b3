"""The event store: each game's stream, in ``seq`` order, and every game's events in the
global order that feeds across games follow."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from operator import attrgetter, itemgetter
from typing import Any
from uuid import UUID

from service.adapters.postgres import tables
from service.adapters.postgres.session import Session, Statement, json_text
from service.application.ports import Actor, ActorKind, Position, StoredEvent

# The row's columns are the schema's (tables.py), in its order. An append writes all but
# the global order, which the database fills, and the attestation of a resealed event,
# which only the privacy migration writes; reads take that too. The insert, the selects,
# a commit notification's rows and the mapping to events all follow this order.
WRITTEN: tuple[str, ...] = tuple(
    c.name
    for c in tables.events.columns
    if c.name not in ("position", "transaction_id", "resealed")
)
READ = (*WRITTEN, "resealed")
SELECTED = ", ".join(READ)
# Each column holds the event's field of its name, but for the actor's three.
_ACTOR = {"actor_kind": "actor.kind.value", "actor_seat": "actor.seat", "actor_id": "actor.id"}
_VALUES = attrgetter(*(_ACTOR.get(c, c) for c in WRITTEN))
"""An event's values, in the order of :data:`WRITTEN`."""
_AT = {column: i for i, column in enumerate(READ)}
_DATA, _RECORDED_AT = _AT["data"], _AT["recorded_at"]
# One statement for a command's events, with a row of scalar parameters each (adapting
# scalars costs far less than adapting lists to arrays); one text per number of rows.
_ROW = "(" + ", ".join(["%s"] * len(WRITTEN)) + ")"
_INSERT = f"INSERT INTO events ({', '.join(WRITTEN)}) VALUES "
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

# A read row as an event: each field the column of its name, in the event's order, but
# the two made of their columns (by position, not by name: this runs for every row read).
_FIELDS = [f.name for f in fields(StoredEvent)]
assert _FIELDS[_FIELDS.index("recorded_at") + 1] == "actor"
_BEFORE = itemgetter(*(_AT[f] for f in _FIELDS[: _FIELDS.index("recorded_at")]))
_AFTER = itemgetter(*(_AT[f] for f in _FIELDS[_FIELDS.index("actor") + 1 :]))
_ACTOR_OF = itemgetter(*(_AT[c] for c in _ACTOR))


def stored(r: Sequence[Any]) -> StoredEvent:
    """An event as a row of :data:`SELECTED` gives it."""
    kind, seat, actor_id = _ACTOR_OF(r)
    made = (r[_RECORDED_AT].astimezone(UTC), Actor(_ACTORS[kind], seat, actor_id))
    return StoredEvent(*(_BEFORE(r) + made + _AFTER(r)))


CHANNEL = "yokai"
"""Where commits are announced (service/adapters/postgres/listener.py listens)."""
NOTIFY_LIMIT = 7900  # PostgreSQL refuses payloads of 8000 bytes or more


def announcement(rows: Sequence[StoredEvent]) -> str:
    """A command's announcement without its events: ``g <game id> <version> <previous
    version>``, the head of :func:`notification`'s and of the relay's (service/adapters/
    bus.py ``BusSeal``, which seals the events after it: Redis is outside the database's
    trust)."""
    first, last = rows[0], rows[-1]
    return f"g {first.game_id} {last.seq} {first.seq - 1}"


def notification(rows: Sequence[StoredEvent]) -> str:
    """A command's announcement (:func:`announcement`), then its events as JSON rows when
    the payload stays under PostgreSQL's limit, so listeners need not read them back."""
    head = announcement(rows)
    body = rows_json(rows)
    if len(head) + 1 + len(body.encode()) < NOTIFY_LIMIT:
        return f"{head} {body}"
    return head


def rows_json(rows: Sequence[StoredEvent]) -> str:
    """A command's events as the JSON rows its notification carries (read back by
    :func:`from_notification`); sealed, what the relay publishes (service/adapters/bus.py
    ``BusSeal``)."""
    return json.dumps([_notified(e) for e in rows], separators=(",", ":"))


def _notified(e: StoredEvent) -> list[Any]:
    row = list(_VALUES(e))
    row[_RECORDED_AT] = (e.recorded_at - _EPOCH) // _MICROSECOND
    return row[1:]  # the game's id is in the head


def from_notification(game_id: UUID, r: Sequence[Any]) -> StoredEvent:
    """An event as the commit notification's JSON row gives it (migration 0005): the
    written columns in order but the game's id, ``recorded_at`` in microseconds since
    the epoch. A row of a process from before migration 0009 stops at ``hash``: the
    columns after it are null."""
    row = [game_id, *r, *[None] * (len(READ) - 1 - len(r))]
    row[_RECORDED_AT] = _EPOCH + timedelta(microseconds=row[_RECORDED_AT])
    return stored(row)


def read_all_statement(after: Position | None, limit: int) -> tuple[str, list[Any]]:
    """The query (``%s`` placeholders) of every game's committed events after ``after``
    in the global order, up to the transaction-id watermark, ``limit`` of them; its rows
    are read by :func:`positioned`."""
    if after is None:
        return _READ_ALL.format(after=""), [limit]
    sql = _READ_ALL.format(after="AND (transaction_id, position) > (%s, %s) ")
    return sql, [after.transaction, after.position, limit]


def positioned(rows: Sequence[Sequence[Any]]) -> list[tuple[Position, StoredEvent]]:
    """The rows of :func:`read_all_statement`'s query as positioned events."""
    return [(Position(r[0], r[1]), stored(r[2:])) for r in rows]


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
            params += _VALUES(e)
            params[_DATA - len(WRITTEN)] = json_text(e.data)
        sql = _INSERT + ", ".join([_ROW] * len(rows))
        self._session.write(Statement(sql, params), rows[0].game_id)
        if not self._session.pool.relayed:  # else the relay announces them: relay.py
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
        sql, params = read_all_statement(after, limit)
        return positioned(self._session.fetch(sql, params))
