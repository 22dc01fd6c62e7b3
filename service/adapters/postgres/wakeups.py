"""When the worker must next look at each game: a row per game, written with the events
that make it due, claimed by workers with FOR UPDATE SKIP LOCKED.

A claim does not hold a lock while the worker acts: it moves the row's ``due_at`` to the
end of a lease and commits at once. The worker then runs an ordinary command, whose
transaction rewrites the row; if the worker stops first, the row falls due again when
the lease ends and another worker takes it. Acting twice is impossible either way: the
command acts only on what the game's state says is due, and the (game_id, seq) key lets
only one of two racing commands append.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from service.adapters.postgres.session import Session, Statement

CHANNEL = "yokai_jobs"
"""Where a newly due (or sooner due) wakeup is announced, with its time as the payload."""


class SqlWakeups:
    def __init__(self, session: Session) -> None:
        self._session = session

    def set(self, game_id: UUID, due_at: datetime | None, version: int) -> None:
        if due_at is None:
            self._session.write(
                Statement(
                    "DELETE FROM wakeups WHERE game_id = %s AND version <= %s", (game_id, version)
                )
            )
            return
        self._session.write(
            Statement(
                "INSERT INTO wakeups (game_id, due_at, version) VALUES (%s, %s, %s) "
                "ON CONFLICT (game_id) DO UPDATE SET due_at = excluded.due_at, "
                "version = excluded.version, claims = 0 "
                "WHERE wakeups.version <= excluded.version",
                (game_id, due_at, version),
            )
        )
        self._session.notify(CHANNEL, due_at.isoformat())

    def claim(self, now: datetime, lease_until: datetime, limit: int) -> list[UUID]:
        rows = self._session.fetch(
            "UPDATE wakeups AS w SET due_at = %s, claims = w.claims + 1 FROM ("
            "SELECT game_id FROM wakeups WHERE due_at <= %s ORDER BY due_at "
            "LIMIT %s FOR UPDATE SKIP LOCKED) AS d "
            "WHERE w.game_id = d.game_id RETURNING w.game_id",
            [lease_until, now, limit],
        )
        return [r[0] for r in rows]

    def release(self, game_ids: Sequence[UUID], lease_until: datetime, now: datetime) -> None:
        if game_ids:
            self._session.fetch(
                "UPDATE wakeups SET due_at = %s WHERE game_id = ANY(%s) AND due_at = %s "
                "RETURNING game_id",
                [now, list(game_ids), lease_until],
            )

    def next_due(self) -> datetime | None:
        rows = self._session.fetch("SELECT min(due_at) FROM wakeups", one_row=True)
        due: datetime | None = rows[0][0]
        return due
