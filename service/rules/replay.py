"""Replaying a recorded history while proving that every event obeys the rules."""

from __future__ import annotations

from collections.abc import Sequence

from service.rules.commands import (
    Command,
    CreateGame,
    DealRound,
    DeclineSeat,
    EraseSeat,
    Expire,
    JoinSeat,
    Leave,
    PassCards,
    PlayCard,
    Rematch,
    Resign,
    RevealSeed,
    TimeOut,
)
from service.rules.engine import decide, evolve
from service.rules.errors import InvalidEventError, RuleViolationError
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    Event,
    GameCreated,
    GameExpired,
    Rematched,
    RoundDealt,
    SeatDeclined,
    SeatErased,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeedRevealed,
    TurnTimedOut,
)
from service.rules.state import INITIAL, GameState


class HistoryError(Exception):
    """The event at ``index`` (0-based) is not what the rules make of the history before it."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(f"event {index}: {reason}")
        self.index = index
        self.reason = reason


def _command_of(events: Sequence[Event], i: int) -> Command | None:
    """The command the event at ``i`` records, for events that start a command's output."""
    event = events[i]
    match event:
        case TurnTimedOut(_, outcome):
            # One command times out every late seat: its TurnTimedOut events come together.
            seats = []
            for later in events[i:]:
                if (
                    not isinstance(later, TurnTimedOut)
                    or later.outcome is not outcome
                    or later.seat in seats
                ):
                    break
                seats.append(later.seat)
            return TimeOut(tuple(seats), outcome)
        case SeatLeft(seat, bot):
            return Leave(seat, bot)
        case SeatResigned(seat):
            return Resign(seat)
        case SeatErased(seat):
            return EraseSeat(seat)
        case CardPlayed(seat, card):
            return PlayCard(seat, card)
        case CardsPassed(seat, cards) if cards is not None:
            return PassCards(seat, cards)
        case RoundDealt(_, hands, trump) if all(h is not None for h in hands):
            return DealRound(tuple(h for h in hands if h is not None), trump)
        case SeatJoined(seat, name, bot, client_seed, player):
            return JoinSeat(seat, name, bot, client_seed, player)
        case SeatDeclined(seat, player):
            return DeclineSeat(seat, player)
        case GameCreated(
            players, scoring, variant, seed, deals, clock, fairness, visibility, reserved, rated
        ):
            return CreateGame(
                players, scoring, variant, seed, deals, clock, fairness, visibility, reserved, rated
            )
        case SeedRevealed(server_seed):
            return RevealSeed(server_seed)
        case Rematched(game_id):
            return Rematch(game_id)
        case GameExpired():
            return Expire()
    return None


def replay_checked(events: Sequence[Event]) -> GameState:
    """Fold ``events``, re-deciding each command they record and requiring the recorded
    consequences (trick winners, round ends, scores …) to be exactly the rules' own.

    Raises :class:`HistoryError` naming the first event that does not fit.
    """
    state = INITIAL
    i = 0
    while i < len(events):
        command = _command_of(events, i)
        if command is None:
            raise HistoryError(i, f"{type(events[i]).__name__} does not start a command")
        try:
            expected = decide(state, command)
        except RuleViolationError as exc:
            raise HistoryError(i, f"the rules refuse it ({exc.code})") from exc
        for k, want in enumerate(expected):
            if i + k >= len(events):
                raise HistoryError(i + k, f"missing {type(want).__name__}")
            if events[i + k] != want:
                raise HistoryError(i + k, f"expected {type(want).__name__} {want}")
            try:
                state = evolve(state, want)
            except InvalidEventError as exc:  # pragma: no cover - decide made it
                raise HistoryError(i + k, str(exc)) from exc
        i += len(expected)
    return state
