"""Quick play's seeks."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.seeks.ports import (
    AlreadySeekingError,
    Pool,
    Seek,
    SeekStatus,
    Waiting,
)
from tests.application.fakes.tables import Commit, IntegrityViolation, Tables

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeSeeks:
    """Rows of the seeks table. A pool held, and the seek rows held (``hold``,
    ``waiting``), are locks of the unit of work until it ends (another that would wait
    raises WouldBlockError); expiry is done at once and skips held seeks."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, seek: Seek) -> None:
        def write(c: Commit) -> None:
            if seek.id in c.after.seeks:
                raise IntegrityViolation(f"seeks: duplicate id {seek.id}")
            if any(
                s.player_id == seek.player_id and s.status is SeekStatus.OPEN
                for s in c.after.seeks.values()
            ):
                raise AlreadySeekingError("this player has an open seek")
            c.after.seeks[seek.id] = seek
            c.player(seek.player_id, "seeks")
            c.seeks = True

        self._uow.queue(write)

    def get(self, seek_id: UUID) -> Seek | None:
        return self._uow.read().seeks.get(seek_id)

    def open_of(self, player_id: UUID) -> Seek | None:
        found = self._uow.read().seeks.values()
        return next(
            (s for s in found if s.player_id == player_id and s.status is SeekStatus.OPEN), None
        )

    def hold(self, seek_id: UUID) -> Seek | None:
        self._uow.check_writable()
        self._uow.lock(("seek", seek_id))
        return self._uow.read().seeks.get(seek_id)

    def cancel(self, seek_id: UUID, at: datetime) -> None:
        self._end(seek_id, SeekStatus.CANCELLED, at)

    def lock_pool(self, pool: Pool) -> None:
        self._uow.check_writable()
        self._uow.lock(("seek-pool", pool.key))

    def waiting(self, pool: Pool, now: datetime, limit: int) -> list[Waiting]:
        self._uow.check_writable()
        t = self._uow.read()
        found = sorted(
            (s for s in t.seeks.values() if s.pool.key == pool.key and _takes(t, s, now)),
            key=lambda s: (s.created_at, s.id),
        )[:limit]
        for s in found:
            self._uow.lock(("seek", s.id))
        return [Waiting(s, t.players[s.player_id].name) for s in found]

    def match(self, seek_id: UUID, game_id: UUID, seat: int, at: datetime) -> None:
        self._end(seek_id, SeekStatus.MATCHED, at, game_id, seat)

    def _end(
        self,
        seek_id: UUID,
        status: SeekStatus,
        at: datetime,
        game_id: UUID | None = None,
        seat: int | None = None,
    ) -> None:
        def write(c: Commit) -> None:  # UPDATE ... WHERE id = ... AND status = 'open'
            found = c.before.seeks.get(seek_id)
            if found is not None and found.status is SeekStatus.OPEN:
                c.after.seeks[seek_id] = replace(
                    found, status=status, ended_at=at, game_id=game_id, seat=seat
                )
            if game_id is not None:
                c.game(game_id, "seeks")

        self._uow.queue(write)

    def pools(self, now: datetime, limit: int) -> list[Pool]:
        t = self._uow.read()
        by_pool: dict[str, list[Seek]] = {}
        for s in sorted(t.seeks.values(), key=lambda s: (s.created_at, s.id)):
            if _takes(t, s, now):
                by_pool.setdefault(s.pool.key, []).append(s)
        ready = [
            found
            for found in by_pool.values()
            if len(found) >= found[0].pool.players
            or any(s.bots_after is not None and _bots_at(s) <= now for s in found)
        ]
        return [found[0].pool for found in ready[:limit]]

    def expire(self, now: datetime, limit: int, player_id: UUID | None = None) -> int:
        uow = self._uow

        def edit(t: Tables) -> int:
            due = sorted(
                (
                    s
                    for s in t.seeks.values()
                    if s.status is SeekStatus.OPEN
                    and s.expires_at <= now
                    and (player_id is None or s.player_id == player_id)
                    and not uow.db._held_by_other(("seek", s.id), uow)  # SKIP LOCKED
                ),
                key=lambda s: s.expires_at,
            )[:limit]
            for s in due:
                t.seeks[s.id] = replace(s, status=SeekStatus.EXPIRED, ended_at=s.expires_at)
            return len(due)

        return uow.at_once(edit)

    def next_due(self, now: datetime) -> datetime | None:
        found = [s for s in self._uow.read().seeks.values() if s.status is SeekStatus.OPEN]
        times = [s.expires_at for s in found]
        times += [_bots_at(s) for s in found if s.bots_after is not None and _bots_at(s) > now]
        return min(times, default=None)

    def matched(self, player_id: UUID, since: datetime) -> list[Seek]:
        found = [
            s
            for s in self._uow.read().seeks.values()
            if s.player_id == player_id
            and s.status is SeekStatus.MATCHED
            and s.ended_at is not None
            and s.ended_at >= since
        ]
        return sorted(found, key=lambda s: (s.ended_at or since, s.id))


def _takes(t: Tables, seek: Seek, now: datetime) -> bool:
    """An open seek a pairing may take: not past its time, of a player not suspended."""
    player = t.players.get(seek.player_id)
    suspended = player is not None and player.suspended_at is not None
    return seek.status is SeekStatus.OPEN and seek.expires_at > now and not suspended


def _bots_at(seek: Seek) -> datetime:
    assert seek.bots_after is not None
    return seek.created_at + timedelta(seconds=seek.bots_after)
