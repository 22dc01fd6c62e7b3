"""Reputation and bans, as pure functions: the marks a game's events leave on the players
who hold its seats, a score folded from them, and a ban from a player's recent
abandonments (docs/api.md "Playing fair").

A mark is one fact of one seat, found by replaying the game's events: the game ended
while a person held the seat and had not abandoned it (``finished``), the person left a
game under way, resigned or forfeited by a clock (abandoned: ``left``, ``resigned``,
``forfeited``), or a clock played their turn (``timeout``). Marks are applied in the
order they happen, the score clamped to [0, 100] at each step.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from service.rules import GameState, Phase, evolve
from service.rules.config import OnTimeout
from service.rules.events import Event, GameEnded, SeatLeft, SeatResigned, TurnTimedOut

START, HIGHEST, LOWEST = 75, 100, 0
BAN_STEP = timedelta(minutes=10)
"""The first ban's length; each further abandonment within BAN_WINDOW doubles it."""
BAN_WINDOW = timedelta(hours=24)
BAN_LONGEST = timedelta(hours=48)
_DOUBLINGS = 9  # 10 min x 2^9 is past 48 hours already


class How(StrEnum):
    """What a mark records of a seat's player."""

    FINISHED = "finished"
    LEFT = "left"
    RESIGNED = "resigned"
    FORFEITED = "forfeited"
    TIMEOUT = "timeout"

    @property
    def abandoned(self) -> bool:
        return self in _ABANDONED

    @property
    def change(self) -> int:
        """What it does to the score."""
        if self is How.FINISHED:
            return 1
        return -1 if self is How.TIMEOUT else -10


_ABANDONED = frozenset({How.LEFT, How.RESIGNED, How.FORFEITED})

MARKING = frozenset({"SeatLeft", "SeatResigned", "TurnTimedOut", "GameEnded"})
"""The types of the events that may leave a mark (others leave none: a play is not
replayed here)."""


@dataclass(frozen=True, slots=True)
class Mark:
    """One fact about a seat's player, left by the game's event ``seq``."""

    seat: int
    seq: int
    how: How


def marks(state: GameState, events: Iterable[tuple[int, Event]]) -> list[Mark]:
    """The marks ``events`` (each with its seq, in order) leave, ``state`` being the game
    before them. A seat a bot plays leaves none (its player left already, or it never
    had one); whether a person holds it is the caller's to know (the seat's player)."""
    found: list[Mark] = []
    quit_: set[int] = set()
    for seq, event in events:
        match event:
            case SeatLeft(seat) if state.phase is not Phase.WAITING:
                found.append(Mark(seat, seq, How.LEFT))
            case SeatResigned(seat):
                quit_.add(seat)
                found.append(Mark(seat, seq, How.RESIGNED))
            case TurnTimedOut(seat, outcome) if state.bots[seat] is None:
                if outcome is OnTimeout.FORFEIT:
                    quit_.add(seat)
                    found.append(Mark(seat, seq, How.FORFEITED))
                else:
                    found.append(Mark(seat, seq, How.TIMEOUT))
            case GameEnded():
                found += [
                    Mark(seat, seq, How.FINISHED)
                    for seat, bot in enumerate(state.bots)
                    if bot is None and seat not in quit_
                ]
        state = evolve(state, event)
    return found


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's reputation: the score and what it was made of."""

    score: int = START
    finished: int = 0
    abandoned: int = 0
    timeouts: int = 0

    def after(self, how: How) -> Standing:
        score = min(HIGHEST, max(LOWEST, self.score + how.change))
        return Standing(
            score,
            self.finished + (how is How.FINISHED),
            self.abandoned + how.abandoned,
            self.timeouts + (how is How.TIMEOUT),
        )


def standing(hows: Iterable[How], start: Standing = Standing()) -> Standing:
    """The reputation after the marks ``hows``, in the order they happened."""
    for how in hows:
        start = start.after(how)
    return start


@dataclass(frozen=True, slots=True)
class Abandonment:
    """A rated or quick-play game a player abandoned: when and how."""

    at: datetime
    how: How


@dataclass(frozen=True, slots=True)
class Ban:
    """A running ban: until when, and the abandonment that brought it (``count``: the
    rated or quick-play abandonments in the 24 hours up to it, itself included)."""

    until: datetime
    cause: Abandonment
    count: int


def ban_length(count: int) -> timedelta:
    """The ban the ``count``-th abandonment within BAN_WINDOW brings."""
    doublings: int = 2 ** min(count - 1, _DOUBLINGS)
    return min(BAN_LONGEST, BAN_STEP * doublings)


def ban(recent: Sequence[Abandonment], lifted: datetime | None, now: datetime) -> Ban | None:
    """The ban running at ``now``, if any: ``recent`` are the player's rated or
    quick-play abandonments, oldest first, at least those of the last BAN_WINDOW +
    BAN_LONGEST; ``lifted``, when an operator last lifted a ban (it lifts those of
    abandonments until then, and counts nothing out)."""
    running: Ban | None = None
    for i, cause in enumerate(recent):
        count = sum(1 for a in recent[: i + 1] if a.at > cause.at - BAN_WINDOW)
        until = cause.at + ban_length(count)
        if until <= now or (lifted is not None and cause.at <= lifted):
            continue
        if running is None or until >= running.until:
            running = Ban(until, cause, count)
    return running


LIFTED = "ban_lifted"
"""The players' audit action of an operator lifting a ban (its time is the lift's)."""

BAN_LOOKBACK = BAN_WINDOW + BAN_LONGEST
"""How far back a player's abandonments may still count for a ban running now."""
