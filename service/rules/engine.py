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
from dataclasses import replace

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
from service.rules.errors import Violation
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
from service.rules.guards import _expect, _refuse
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
    _UNDER_WAY,
    ERASED_NAME,
    _create,
    _decline,
    _erase,
    _join,
    _leave,
    _on_created,
    _on_erased,
    _on_joined,
    _on_left,
    _rematch,
    _reserved_for,
    _resign,
    _reveal,
    _reveals,
    _timeout,
    _unreserved,
)
from service.rules.state import INITIAL, GameState, Phase
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
            if state.phase is not Phase.WAITING:
                raise _refuse(Violation.WRONG_PHASE, "only a game waiting for players expires")
            return (GameExpired(),)
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
            _expect(
                state.phase is Phase.WAITING and _reserved_for(state, event.seat) is not None,
                "a seat reserved in a waiting game is declined",
            )
            return replace(state, reserved=_unreserved(state.reserved, event.seat))
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
            _expect(expected_action(state, event.seat) is not None, "a timed-out seat was due")
            return state
        case SeatResigned():
            _expect(state.phase in _UNDER_WAY, "a seat resigns from a game under way")
            return state
        case GameExpired():
            _expect(state.phase is Phase.WAITING, "only a waiting game expires")
            return replace(state, phase=Phase.EXPIRED)
        case Rematched():
            _expect(
                state.phase is Phase.FINISHED and state.rematch is None,
                "a finished game is played again once",
            )
            return replace(state, rematch=event.game_id)
        case SeedRevealed():
            _expect(
                state.phase is Phase.FINISHED
                and state.fairness is not None
                and state.server_seed is None
                and _reveals(event.server_seed, state.fairness.commitment),
                "a finished fair game's seed, revealed once, matching its commitment",
            )
            return replace(state, server_seed=event.server_seed)
    raise TypeError(f"not an event: {event!r}")  # pragma: no cover


def fold(events: Iterable[Event], state: GameState = INITIAL) -> GameState:
    """Apply events in order (replay)."""
    for e in events:
        state = evolve(state, e)
    return state
