"""Seeks (migration 0012): quick play's rows, and the locks that keep pairing right
whatever the number of workers.

The lock strategy: an advisory lock per pool, not FOR UPDATE SKIP LOCKED on seek rows.
A pairing takes ``pg_advisory_xact_lock`` on its pool's key (``lock_pool``), then reads
the pool's open seeks FOR UPDATE (``waiting``), decides, and commits the game, the joins
and the seeks' new status in one statement; both locks end with its transaction. Why:

- Deciding needs the whole pool. A rated seek takes only players in its widening range,
  so which seeks make a set depends on every open seek of the pool; SKIP LOCKED would
  hand each worker a part of the pool (two workers each holding half of a full set pair
  nobody, and each decides on a view the other is changing). Holding the pool lets one
  pairing at a time see all of it, as committed by the last.
- A worker that comes second waits for the first's commit (milliseconds), then reads
  what is left: no work is done twice or thrown away, where racing row claims would have
  the loser decide again. Pools are independent: workers pair different pools at once.
- The seek rows are still locked (FOR UPDATE, oldest first: one order, no deadlock), for
  what does not take the pool: a cancel holds its seek's row (``hold``), so a cancel and
  a pairing of the same seek are one after the other, and the later finds the seek no
  longer open (READ COMMITTED reads a locked row again once it is let go).
- A worker killed mid-pairing holds nothing: its connection ends, PostgreSQL rolls its
  transaction back and lets both locks go; its seeks are open as they were (or, if the
  commit had reached the server, matched into a started game: one statement and COMMIT).

One open seek per player is the unique index ``seeks_one_open``; a seek is announced
(``seek``) on the worker's channel with its commit, so a full set is paired at once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from service.adapters.postgres.session import Session, Statement
from service.adapters.postgres.wakeups import CHANNEL
from service.application.jobs.source import SEEK_NOTE
from service.application.seeks.ports import Pool, Seek, SeekStatus, Waiting
from service.rules import OnTimeout, Scoring, TurnClock, Variant

_COLUMNS = (
    "s.id, s.player_id, s.players, s.scoring, s.variant, s.rated, s.clock, s.rating_low, "
    "s.rating_high, s.bots_after, s.status, s.created_at, s.expires_at, s.ended_at, "
    "s.game_id, s.seat, s.min_reputation"
)
# An open seek a pairing may take: not past its time, of a player not suspended.
_TAKEN = (
    "s.status = 'open' AND s.expires_at > %s AND NOT EXISTS (SELECT FROM players AS p "
    "WHERE p.id = s.player_id AND p.suspended_at IS NOT NULL)"
)


def pool_lock_id(pool: Pool) -> int:
    """The transaction-scoped advisory lock of a pool: 64 bits of its key's hash (apart
    from the idempotency keys' locks by the prefix)."""
    digest = hashlib.sha256(f"seek-pool|{pool.key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _clock(value: Any) -> TurnClock | None:
    if value is None:
        return None
    return TurnClock(value["turn_seconds"], OnTimeout(value["on_timeout"]))


def _pool(r: Sequence[Any]) -> Pool:
    return Pool(r[0], Scoring(r[1]), Variant(r[2]), r[3], _clock(r[4]))


def _seek(r: Sequence[Any]) -> Seek:
    return Seek(
        r[0],
        r[1],
        _pool(r[2:7]),
        None if r[7] is None else (r[7], r[8]),
        r[9],
        SeekStatus(r[10]),
        r[11],
        r[12],
        r[13],
        r[14],
        r[15],
        r[16],
    )


class SqlSeeks:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, seek: Seek) -> None:
        pool, low_high = seek.pool, seek.rating_range or (None, None)
        clock = pool.clock
        bots_at = (
            None
            if seek.bots_after is None
            else seek.created_at + timedelta(seconds=seek.bots_after)
        )
        self._session.write(
            Statement(
                "INSERT INTO seeks (id, player_id, pool, players, scoring, variant, rated, "
                "clock, rating_low, rating_high, bots_after, bots_at, status, created_at, "
                "expires_at, min_reputation) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                "%s, %s, 'open', %s, %s, %s)",
                (
                    seek.id,
                    seek.player_id,
                    pool.key,
                    pool.players,
                    pool.scoring.value,
                    pool.variant.value,
                    pool.rated,
                    None
                    if clock is None
                    else Jsonb(
                        {"turn_seconds": clock.turn_seconds, "on_timeout": clock.on_timeout.value}
                    ),
                    low_high[0],
                    low_high[1],
                    seek.bots_after,
                    bots_at,
                    seek.created_at,
                    seek.expires_at,
                    seek.min_reputation,
                ),
            )
        )
        self._session.notify(CHANNEL, SEEK_NOTE)

    def get(self, seek_id: UUID) -> Seek | None:
        rows = self._session.fetch(
            f"SELECT {_COLUMNS} FROM seeks AS s WHERE s.id = %s", [seek_id], one_row=True
        )
        return _seek(rows[0]) if rows else None

    def open_of(self, player_id: UUID) -> Seek | None:
        rows = self._session.fetch(
            f"SELECT {_COLUMNS} FROM seeks AS s WHERE s.player_id = %s AND s.status = 'open'",
            [player_id],
            one_row=True,
        )
        return _seek(rows[0]) if rows else None

    def hold(self, seek_id: UUID) -> Seek | None:
        self._session.begin()
        rows = self._session.fetch(
            f"SELECT {_COLUMNS} FROM seeks AS s WHERE s.id = %s FOR UPDATE",
            [seek_id],
            one_row=True,
        )
        return _seek(rows[0]) if rows else None

    def cancel(self, seek_id: UUID, at: datetime) -> None:
        self._session.write(
            Statement(
                "UPDATE seeks SET status = 'cancelled', ended_at = %s "
                "WHERE id = %s AND status = 'open'",
                (at, seek_id),
            )
        )

    def lock_pool(self, pool: Pool) -> None:
        # Taken in the same round trip as the read that follows it (``waiting``).
        self._session.hold(Statement("SELECT pg_advisory_xact_lock(%s)", (pool_lock_id(pool),)))

    def waiting(self, pool: Pool, now: datetime, limit: int) -> list[Waiting]:
        self._session.begin()
        rows = self._session.fetch(
            f"SELECT {_COLUMNS}, (SELECT p.name FROM players AS p WHERE p.id = s.player_id) "
            f"FROM seeks AS s WHERE s.pool = %s AND {_TAKEN} "
            "ORDER BY s.created_at, s.id LIMIT %s FOR UPDATE OF s",
            [pool.key, now, limit],
        )
        return [Waiting(_seek(r), r[17]) for r in rows]

    def match(self, seek_id: UUID, game_id: UUID, seat: int, at: datetime) -> None:
        self._session.write(
            Statement(
                "UPDATE seeks SET status = 'matched', game_id = %s, seat = %s, ended_at = %s "
                "WHERE id = %s AND status = 'open'",
                (game_id, seat, at, seek_id),
            ),
            game_id,
        )

    def pools(self, now: datetime, limit: int) -> list[Pool]:
        rows = self._session.fetch(
            "SELECT s.players, s.scoring, s.variant, s.rated, s.clock FROM seeks AS s "
            f"WHERE {_TAKEN} GROUP BY s.pool, s.players, s.scoring, s.variant, s.rated, s.clock "
            "HAVING count(*) >= min(s.players) OR bool_or(s.bots_at <= %s) "
            "ORDER BY min(s.created_at) LIMIT %s",
            [now, now, limit],
        )
        return [_pool(r) for r in rows]

    def expire(self, now: datetime, limit: int, player_id: UUID | None = None) -> int:
        mine = "" if player_id is None else " AND player_id = %s"
        rows = self._session.fetch(
            "UPDATE seeks SET status = 'expired', ended_at = expires_at WHERE id = ANY(ARRAY("
            f"SELECT id FROM seeks WHERE status = 'open' AND expires_at <= %s{mine} "
            "ORDER BY expires_at LIMIT %s FOR UPDATE SKIP LOCKED)) AND status = 'open' "
            "RETURNING 1",
            [now, *([] if player_id is None else [player_id]), limit],
        )
        return len(rows)

    def next_due(self, now: datetime) -> datetime | None:
        rows = self._session.fetch(
            "SELECT least((SELECT min(expires_at) FROM seeks WHERE status = 'open'), "
            "(SELECT min(bots_at) FROM seeks WHERE status = 'open' AND bots_at > %s))",
            [now],
            one_row=True,
        )
        due: datetime | None = rows[0][0]
        return due

    def matched(self, player_id: UUID, since: datetime) -> list[Seek]:
        rows = self._session.fetch(
            f"SELECT {_COLUMNS} FROM seeks AS s WHERE s.player_id = %s "
            "AND s.status = 'matched' AND s.ended_at >= %s ORDER BY s.ended_at, s.id",
            [player_id, since],
        )
        return [_seek(r) for r in rows]
