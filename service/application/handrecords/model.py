"""A hand record as data: its seats, rounds and moves, read by every form (text, JSON)
and built or parsed by the others (docs/record-format.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

FORMAT = "yokai-record-1"


HIDDEN = "?"


@dataclass(frozen=True, slots=True)
class Move:
    """One command of a round, in play order. ``kind``: pass, play, leave, resign or
    timeout; ``cards``: a pass's three (None where hidden) or a play's one; ``option``:
    a leave's bot level or a timeout's outcome. ``line``: where a parsed record had it."""

    kind: str
    seats: tuple[int, ...]
    cards: tuple[str | None, ...] = ()
    option: str | None = None
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class Result:
    reason: str
    winners: tuple[int, ...]
    points: tuple[int, ...]
    bosses: tuple[str, ...]
    line: int = field(default=0, compare=False)


@dataclass(frozen=True, slots=True)
class RoundRecord:
    number: int
    hands: tuple[tuple[str, ...] | None, ...]  # by seat, as dealt; None: hidden
    trump: str | None
    moves: tuple[Move, ...] = ()
    tricks: tuple[int, ...] = ()  # the winner of each trick taken, in order
    result: Result | None = None
    line: int = field(default=0, compare=False)
    hand_lines: tuple[int, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True)
class Seat:
    name: str | None
    bot: str | None = None  # the bot that took the seat when joined or before the first deal
    client_seed: str | None = None


@dataclass(frozen=True, slots=True)
class HandRecord:
    players: int
    scoring: str
    variant: str
    clock: tuple[int, str] | None
    seats: tuple[Seat, ...]
    fairness: str  # yokai-shuffle-v1, operator or unverified
    commitment: str | None
    server_seed: str | None
    status: str
    winners: tuple[int, ...] | None
    scores: tuple[int, ...]
    rounds: tuple[RoundRecord, ...]
    lines: dict[str, int] = field(default_factory=dict, compare=False)  # tag -> line


class RecordError(ValueError):
    """Text that is not a record (or not a complete one), naming the line."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason
