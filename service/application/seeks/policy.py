"""Who is paired with whom, and when bots step in: pure functions of a pool's open seeks,
the players' ordinals and the time (the pairing command decides with them in its own
transaction, the pool held).

- Who may sit with whom: :func:`compatible`, the one rule every table below is built
  with (two seeks of one pool; in a rated pool each seek with a ``rating_range`` takes
  only players whose ordinal lies in its range, widened by ``WIDEN_BY`` on each side for
  every ``WIDEN_EVERY`` it has waited). A table is gathered from a lead seek by adding
  the oldest seeks compatible with every seek chosen so far (:func:`gather`).
- A full set: as many seeks as the game has players, led by the oldest seek that can
  lead one (in an unrated pool, the oldest seeks).
- Bots: failing a full set, the oldest seek whose ``bots_after`` has passed leads a table
  of every compatible open seek of its pool that allows bots (oldest first, up to the
  game's players; its delay need not have passed), and basic bots take only the seats
  nobody fills: an unrated game. A seek without ``bots_after`` waits for a full set.
- Reputation: a seek with ``min_reputation`` is seated only with people whose score is
  at least that, and they only with it (:func:`welcome`, part of :func:`compatible`, so
  of every table, with bots or not); ``scores`` are the players' (given only when a
  seek asks).
- Blocks: two players of whom one blocked the other never sit at one table (``apart``,
  the pairs the store finds among the pool's players: part of :func:`compatible`).
- Ratings plug in through :class:`service.application.ratings.ports.Ratings` (the pool's
  ladder); a player without a rating has ``DEFAULT_ORDINAL`` (the default rating's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from service.application.reputation.model import START
from service.application.seeks.ports import Seek

Apart = frozenset[frozenset[UUID]]
"""Pairs of players of whom one blocked the other."""

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


def compatible(
    a: Seek,
    b: Seek,
    ordinals: Mapping[UUID, float],
    now: datetime,
    scores: Mapping[UUID, int] | None = None,
    apart: Apart = frozenset(),
) -> bool:
    """Whether two open seeks of one pool may sit at one table now: each takes the other's
    player (its rating range, its minimum reputation), and neither player blocked the
    other. Every table the pairing makes is built with this, and only this, rule."""
    return (
        frozenset((a.player_id, b.player_id)) not in apart
        and accepts(a, _ordinal(b, ordinals), now)
        and accepts(b, _ordinal(a, ordinals), now)
        and welcome(a, b, scores or {})
    )


def _ordinal(seek: Seek, ordinals: Mapping[UUID, float]) -> float:
    return ordinals.get(seek.player_id, DEFAULT_ORDINAL)


def gather(
    lead: Seek,
    seeks: Sequence[Seek],
    ordinals: Mapping[UUID, float],
    now: datetime,
    takes: Callable[[Seek], bool] = lambda _: True,
    scores: Mapping[UUID, int] | None = None,
    apart: Apart = frozenset(),
) -> tuple[Seek, ...]:
    """The table ``lead`` makes of ``seeks`` (oldest first, one pool): the lead, then each
    seek that ``takes`` admits and that is compatible with every seek chosen so far, up
    to the game's players; oldest first."""
    chosen = [lead]
    for other in seeks:
        if len(chosen) == lead.pool.players:
            break
        if other is lead or not takes(other):
            continue
        if all(compatible(other, c, ordinals, now, scores, apart) for c in chosen):
            chosen.append(other)
    return tuple(sorted(chosen, key=lambda s: (s.created_at, s.id)))


def full_set(
    seeks: Sequence[Seek],
    ordinals: Mapping[UUID, float],
    now: datetime,
    scores: Mapping[UUID, int] | None = None,
    apart: Apart = frozenset(),
) -> tuple[Seek, ...] | None:
    """A full set of ``seeks`` (oldest first, one pool), or None."""
    if not seeks or len(seeks) < seeks[0].pool.players:
        return None
    for lead in seeks:
        chosen = gather(lead, seeks, ordinals, now, scores=scores, apart=apart)
        if len(chosen) == lead.pool.players:
            return chosen
    return None


def allows_bots(seek: Seek) -> bool:
    return seek.bots_after is not None


def bots_due(seek: Seek, now: datetime) -> bool:
    return seek.bots_after is not None and seek.created_at + _seconds(seek.bots_after) <= now


def plan(
    seeks: Sequence[Seek],
    ordinals: Mapping[UUID, float],
    now: datetime,
    scores: Mapping[UUID, int] | None = None,
    apart: Apart = frozenset(),
) -> Plan | None:
    """The next game to make of a pool's open seeks (oldest first), or None."""
    chosen = full_set(seeks, ordinals, now, scores, apart)
    if chosen is not None:
        return Plan(chosen, bots=False)
    due = next((s for s in seeks if bots_due(s, now)), None)
    if due is None:
        return None
    return Plan(gather(due, seeks, ordinals, now, allows_bots, scores, apart), bots=True)


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
