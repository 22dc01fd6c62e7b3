"""What quick play needs from the store: the seeks, one row each (the players' ratings
are service/application/ratings/ports.py's)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol
from uuid import UUID

from service.application.errors import ConflictError
from service.rules import Scoring, TurnClock, Variant


class SeekStatus(StrEnum):
    OPEN = "open"  # waiting to be paired
    MATCHED = "matched"  # seated in a game (``game_id``, ``seat``)
    CANCELLED = "cancelled"  # by its player
    EXPIRED = "expired"  # open for longer than YOKAI_SEEK_HOURS


@dataclass(frozen=True, slots=True)
class Pool:
    """What seeks must all ask for to be paired together: the game's players, scoring,
    variant, whether it is rated, and its turn clock."""

    players: int
    scoring: Scoring
    variant: Variant
    rated: bool
    clock: TurnClock | None = None

    @property
    def key(self) -> str:
        """The pool as one text: seeks of one pool have the same key (the store groups
        and locks by it)."""
        clock = "-" if self.clock is None else f"{self.clock.turn_seconds}/{self.clock.on_timeout}"
        rated = "rated" if self.rated else "unrated"
        return f"{self.players}|{self.scoring}|{self.variant}|{rated}|{clock}"


@dataclass(frozen=True, slots=True)
class Seek:
    """A player's wish for a game of ``pool``. ``rating_range``: the ordinals a rated
    seek's other players must have (widened as it waits); ``bots_after``: seconds after
    which basic bots may fill the seats nobody took. ``ended_at``: when it stopped being
    open (matched, cancelled, or the time it expired). ``min_reputation``: every person
    the pairing seats with it has at least this reputation (None: any)."""

    id: UUID
    player_id: UUID
    pool: Pool
    rating_range: tuple[float, float] | None
    bots_after: int | None
    status: SeekStatus
    created_at: datetime
    expires_at: datetime
    ended_at: datetime | None = None
    game_id: UUID | None = None
    seat: int | None = None
    min_reputation: int | None = None

    def status_at(self, now: datetime) -> SeekStatus:
        """Its status as its player sees it: an open seek past its time has expired,
        whether or not the worker has marked it yet."""
        if self.status is SeekStatus.OPEN and self.expires_at <= now:
            return SeekStatus.EXPIRED
        return self.status


@dataclass(frozen=True, slots=True)
class Waiting:
    """An open seek as a pairing sees it: with the name its player's seat will show."""

    seek: Seek
    name: str


class AlreadySeekingError(ConflictError):
    """The player has an open seek already: one at a time."""

    code = "already_seeking"


class Seeks(Protocol):
    def add(self, seek: Seek) -> None:
        """(Queued.) A new open seek, announced to the workers with the commit (they pair
        at once). At commit, :class:`AlreadySeekingError` if its player has another
        open seek."""
        ...

    def get(self, seek_id: UUID) -> Seek | None: ...

    def open_of(self, player_id: UUID) -> Seek | None:
        """The player's open seek (one past its time too, until it is expired)."""
        ...

    def hold(self, seek_id: UUID) -> Seek | None:
        """The seek, its row locked until the unit of work ends: a pairing that would take
        it waits, and this waits for a pairing that holds it (then reads it as that
        pairing left it)."""
        ...

    def cancel(self, seek_id: UUID, at: datetime) -> None:
        """(Queued.) The seek, if still open, is cancelled."""
        ...

    def lock_pool(self, pool: Pool) -> None:
        """Hold the pool until the unit of work ends: one pairing of a pool at a time,
        whatever the number of workers (another waits for this one's commit)."""
        ...

    def waiting(self, pool: Pool, now: datetime, limit: int) -> list[Waiting]:
        """The pool's open seeks not past their time whose players are not suspended,
        oldest first (created_at, id), at most ``limit``; each row locked until the unit
        of work ends (a cancel of one waits, then finds it matched or open)."""
        ...

    def match(self, seek_id: UUID, game_id: UUID, seat: int, at: datetime) -> None:
        """(Queued.) The seek, held open by this unit of work, is matched into the game's
        seat."""
        ...

    def pools(self, now: datetime, limit: int) -> list[Pool]:
        """The pools that may be paired now, oldest seek first: those with open seeks
        (not past their time, of players not suspended) as many as a game's players, or
        with one whose bots are due (``bots_after`` has passed)."""
        ...

    def expire(self, now: datetime, limit: int, player_id: UUID | None = None) -> int:
        """Mark up to ``limit`` open seeks past their time (of one player, if given) as
        expired, skipping any a pairing holds; how many. Done at once (in the unit of
        work's transaction, if it has begun one)."""
        ...

    def next_due(self, now: datetime) -> datetime | None:
        """When time alone next changes what may be paired: the soonest expiry of an open
        seek, or the soonest time after ``now`` that an open seek's bots fall due."""
        ...

    def matched(self, player_id: UUID, since: datetime) -> list[Seek]:
        """The player's seeks matched at or after ``since``, oldest match first."""
        ...
