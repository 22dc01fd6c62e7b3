"""The rules: ``decide`` (command -> events), ``evolve`` (state + event -> state), and the
legal actions of a seat. Pure and deterministic: no I/O, no clock, no randomness.

This module is the rules' surface and their dispatch: ``decide`` hands each command,
and ``evolve`` each event, to the module of its phase, where a command's decide function
and the evolve functions of its events sit side by side: seating.py (the game and its
seats: create, join, decline, leave, erase, resign, time out, expire, rematch, reveal),
passing.py (deal, pass, exchange), playing.py (a card, a trick) and scoring.py (a
round's and the game's end: R-5, R-6, R-7.6 to R-7.8). guards.py holds the checks they
share, turns.py who may act now and with which cards (what cards are, how a view is
made and how a game is replayed are modules of their own)."""

from __future__ import annotations

from collections.abc import Iterable

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
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    Event,
    GameCreated,
    GameEnded,
    GameExpired,
    PassesExchanged,
    Rematched,
    RoundDealt,
    RoundEnded,
    SeatDeclined,
    SeatErased,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeedRevealed,
    SuitSealed,
    TrickTaken,
    TurnTimedOut,
)
from service.rules.passing import (
    PASS_SIZE,
    _deal,
    _on_dealt,
    _on_exchanged,
    _on_passed,
    _pass,
    deal_due,
    deal_problem,
    preset_deal,
)
from service.rules.playing import _on_played, _on_trick, _play, trick_winner
from service.rules.scoring import _on_game_ended, _on_round_ended, _on_sealed
from service.rules.seating import (
    ERASED_NAME,
    _create,
    _decline,
    _erase,
    _expire,
    _join,
    _leave,
    _on_created,
    _on_declined,
    _on_erased,
    _on_expired,
    _on_joined,
    _on_left,
    _on_rematched,
    _on_resigned,
    _on_revealed,
    _on_timed_out,
    _rematch,
    _resign,
    _reveal,
    _timeout,
)
from service.rules.state import INITIAL, GameState
from service.rules.turns import Action, expected_action, legal_cards

__all__ = [
    "ERASED_NAME",
    "PASS_SIZE",
    "Action",
    "deal_due",
    "deal_problem",
    "decide",
    "evolve",
    "expected_action",
    "fold",
    "legal_cards",
    "preset_deal",
    "trick_winner",
]


def decide(state: GameState, command: Command) -> tuple[Event, ...]:
    """The events that ``command`` causes in ``state``, or :class:`RuleViolationError`."""
    match command:
        case PlayCard():
            return _play(state, command)
        case PassCards():
            return _pass(state, command)
        case JoinSeat():
            return _join(state, command)
        case DealRound():
            return _deal(state, command)
        case CreateGame():
            return _create(state, command)
        case TimeOut():
            return _timeout(state, command)
        case Leave():
            return _leave(state, command)
        case EraseSeat():
            return _erase(state, command)
        case Resign():
            return _resign(state, command)
        case RevealSeed():
            return _reveal(state, command)
        case DeclineSeat():
            return _decline(state, command)
        case Rematch():
            return _rematch(state, command)
        case Expire():
            return _expire(state, command)
    raise TypeError(f"not a command: {command!r}")  # pragma: no cover


def evolve(state: GameState, event: Event) -> GameState:
    """The state after ``event``. Raises :class:`InvalidEventError` if it cannot follow."""
    match event:
        case CardPlayed():
            return _on_played(state, event)
        case TrickTaken():
            return _on_trick(state, event)
        case CardsPassed():
            return _on_passed(state, event)
        case PassesExchanged():
            return _on_exchanged(state, event)
        case RoundDealt():
            return _on_dealt(state, event)
        case SeatJoined():
            return _on_joined(state, event)
        case SeatDeclined():
            return _on_declined(state, event)
        case SuitSealed():
            return _on_sealed(state, event)
        case RoundEnded():
            return _on_round_ended(state, event)
        case GameEnded():
            return _on_game_ended(state, event)
        case GameCreated():
            return _on_created(state, event)
        case SeatLeft():
            return _on_left(state, event)
        case SeatErased():
            return _on_erased(state, event)
        case TurnTimedOut():
            return _on_timed_out(state, event)
        case SeatResigned():
            return _on_resigned(state, event)
        case GameExpired():
            return _on_expired(state, event)
        case Rematched():
            return _on_rematched(state, event)
        case SeedRevealed():
            return _on_revealed(state, event)
    raise TypeError(f"not an event: {event!r}")  # pragma: no cover


def fold(events: Iterable[Event], state: GameState = INITIAL) -> GameState:
    """Apply events in order (replay)."""
    for e in events:
        state = evolve(state, e)
    return state
