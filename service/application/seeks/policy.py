"""Who is paired with whom, and when bots step in: pure functions of a pool's open seeks,
the players' ordinals and the time (the pairing command decides with them in its own
transaction, the pool held).

- A full set: as many seeks as the game has players, oldest first. In a rated pool each
  seek with a ``rating_range`` takes only players whose ordinal lies in its range,
  widened by ``WIDEN_BY`` on each side for every ``WIDEN_EVERY`` it has waited, and is
  taken only by seeks whose ranges hold its player's ordinal: the set is built from the
  oldest seek that can lead one, adding the oldest seeks that suit every seek chosen so
  far.
- Bots: failing a full set, the seeks whose ``bots_after`` has passed (oldest first, as
  many as the game has players) make an unrated game with basic bots in the other seats.
- Reputation: a seek with ``min_reputation`` is seated only with people whose score is
  at least that, and they only with it (:func:`welcome`, a condition of every set
  chosen, with bots or not); ``scores`` are the players' (given only when a seek asks).
- Ratings plug in through :class:`service.application.ratings.ports.Ratings` (the pool's
  ladder); a player without a rating has ``DEFAULT_ORDINAL`` (the default rating's).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from service.application.reputation.model import START
from service.application.seeks.ports import Seek

DEFAULT_ORDINAL = 0.0
WIDEN_EVERY = timedelta(seconds=10)
WIDEN_BY = 1.0


@dataclass(frozen=True, slots=True)
class Plan:
    """The seeks to seat, oldest first; ``bots``: basic bots take the other seats (an
    unrated game)."""

    seeks: tuple[Seek, ...]
    bots: bool


def window(seek: Seek, now: datetime) -> tuple[float, float] | None:
    """The ordinals a seek takes now (None: any), its range widened as it waited."""
    if not seek.pool.rated or seek.rating_range is None:
        return None
    steps = max(0, (now - seek.created_at) // WIDEN_EVERY)
    low, high = seek.rating_range
    return low - steps * WIDEN_BY, high + steps * WIDEN_BY


def accepts(seek: Seek, ordinal: float, now: datetime) -> bool:
    """Whether ``seek`` takes a player of this ordinal now."""
    found = window(seek, now)
    return found is None or found[0] <= ordinal <= found[1]


def welcome(a: Seek, b: Seek, scores: Mapping[UUID, int]) -> bool:
    """Whether each of two seeks' players has the reputation the other asks for."""
    return all(
        s.min_reputation is None or scores.get(o.player_id, START) >= s.min_reputation
        for s, o in ((a, b), (b, a))
    )


def _suits(
    a: Seek, b: Seek, ordinals: Mapping[UUID, float], now: datetime, scores: Mapping[UUID, int]
) -> bool:
    """Whether each of two seeks takes the other's player."""
    return (
        accepts(a, _ordinal(b, ordinals), now)
        and accepts(b, _ordinal(a, ordinals), now)
        and welcome(a, b, scores)
    )


def _ordinal(seek: Seek, ordinals: Mapping[UUID, float]) -> float:
    return ordinals.get(seek.player_id, DEFAULT_ORDINAL)


def full_set(
    seeks: Sequence[Seek],
    ordinals: Mapping[UUID, float],
    now: datetime,
    scores: Mapping[UUID, int] | None = None,
) -> tuple[Seek, ...] | None:
    """A full set of ``seeks`` (oldest first, one pool), or None."""
    scores = scores or {}
    if not seeks:
        return None
    players = seeks[0].pool.players
    if len(seeks) < players:
        return None
    if not seeks[0].pool.rated and all(s.min_reputation is None for s in seeks):
        return tuple(seeks[:players])
    for lead in seeks:
        chosen = [lead]
        for other in seeks:
            if len(chosen) == players:
                break
            if other is not lead and all(_suits(other, c, ordinals, now, scores) for c in chosen):
                chosen.append(other)
        if len(chosen) == players:
            return tuple(sorted(chosen, key=lambda s: (s.created_at, s.id)))
    return None


def bots_due(seek: Seek, now: datetime) -> bool:
    return seek.bots_after is not None and seek.created_at + _seconds(seek.bots_after) <= now


def plan(
    seeks: Sequence[Seek],
    ordinals: Mapping[UUID, float],
    now: datetime,
    scores: Mapping[UUID, int] | None = None,
) -> Plan | None:
    """The next game to make of a pool's open seeks (oldest first), or None."""
    chosen = full_set(seeks, ordinals, now, scores)
    if chosen is not None:
        return Plan(chosen, bots=False)
    due: list[Seek] = []
    for s in seeks:
        if bots_due(s, now) and all(welcome(s, c, scores or {}) for c in due):
            due.append(s)
    if due:
        return Plan(tuple(due[: due[0].pool.players]), bots=True)
    return None


def next_chance(seeks: Sequence[Seek], now: datetime) -> datetime | None:
    """When time alone may let seeks that make no game now make one: a seek's bots fall
    due, or a rated seek's range widens."""
    times = [
        s.created_at + _seconds(s.bots_after)
        for s in seeks
        if s.bots_after is not None and not bots_due(s, now)
    ]
    for s in seeks:
        if window(s, now) is not None:
            steps = max(0, (now - s.created_at) // WIDEN_EVERY)
            times.append(s.created_at + (steps + 1) * WIDEN_EVERY)
    return min(times, default=None)


def _seconds(n: int) -> timedelta:
    return timedelta(seconds=n)
