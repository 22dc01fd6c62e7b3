"""Erasing a player's seat in the rules engine (docs/privacy.md): not a rule of the card
game, but decided and replayed like every other event. The seat's name reads
ERASED_NAME afterwards; a seat of a game still waiting is free again; a person still
playing must leave first, so the record never changes a play."""

from __future__ import annotations

import pytest

from service.rules import (
    ERASED_NAME,
    PUBLIC,
    BotLevel,
    CreateGame,
    EraseSeat,
    GameState,
    JoinSeat,
    Leave,
    Phase,
    Resign,
    RuleViolationError,
    Scoring,
    Violation,
    decide,
    observe,
    replay_checked,
)
from service.rules.events import SeatErased
from tests.rules.scenario import Table
from tests.rules.test_seats_clock_resign import playing


def refused(state: GameState, command: object) -> Violation:
    with pytest.raises(RuleViolationError) as info:
        decide(state, command)  # type: ignore[arg-type]
    return info.value.code


def test_an_erased_seat_of_a_waiting_game_is_free_again_for_anyone() -> None:
    table = Table()
    table.do(CreateGame(4, Scoring.BASIC))
    table.do(JoinSeat(0, "Mio"))
    table.do(JoinSeat(1, "Aya", player="p-1"))
    assert table.do(EraseSeat(1)) == (SeatErased(1),)
    seats = observe(table.state, PUBLIC).seats
    assert [s.joined for s in seats] == [True, False, False, False]
    assert seats[1].name is None
    table.do(JoinSeat(1, "Newcomer"))
    assert observe(table.state, PUBLIC).seats[1].name == "Newcomer"
    assert table.state.phase is Phase.WAITING


def test_a_person_still_playing_leaves_before_the_seat_is_erased() -> None:
    table = playing()
    assert refused(table.state, EraseSeat(2)) is Violation.WRONG_PHASE
    table.do(Leave(2))
    table.do(EraseSeat(2))
    view = observe(table.state, PUBLIC)
    assert view.seats[2].name == ERASED_NAME
    assert view.seats[2].bot == BotLevel.BASIC.value
    assert table.state.phase is Phase.PLAYING  # the game goes on, the bot plays


def test_a_finished_game_keeps_the_seat_but_not_the_name_and_erases_it_once() -> None:
    table = playing()
    table.do(Resign(0))
    assert table.state.phase is Phase.FINISHED
    table.do(EraseSeat(3))
    assert observe(table.state, PUBLIC).seats[3].name == ERASED_NAME
    assert refused(table.state, EraseSeat(3)) is Violation.SEAT_EMPTY


def test_an_empty_seat_has_no_name_to_erase() -> None:
    table = Table()
    table.do(CreateGame(3, Scoring.BASIC))
    assert refused(table.state, EraseSeat(2)) is Violation.SEAT_EMPTY
    assert refused(table.state, EraseSeat(3)) is Violation.UNKNOWN_SEAT


def test_a_history_with_erasures_replays_to_the_same_state() -> None:
    table = playing()
    table.do(Leave(1))
    table.do(EraseSeat(1))
    table.do(Resign(0))
    table.do(EraseSeat(0))
    assert replay_checked(table.events) == table.state
