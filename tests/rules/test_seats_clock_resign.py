"""Bot seats, leaving, resigning and turn timeouts in the rules engine (docs/api.md Part 2:
Turn clocks, Bots). These are not rules of the card game (docs/rules.md has no ids for them):
they are what the service adds around it, decided and replayed like every other event."""

from __future__ import annotations

import random

import pytest

from service.bots.selfplay import play_game
from service.rules import (
    INITIAL,
    PUBLIC,
    STANDARD_DECK,
    BotLevel,
    CreateGame,
    Expire,
    GameState,
    InvalidEventError,
    JoinSeat,
    Leave,
    OnTimeout,
    Phase,
    Rematch,
    Resign,
    RoundEndReason,
    RuleViolationError,
    Scoring,
    SeatViewer,
    TimeOut,
    TurnClock,
    Variant,
    Violation,
    decide,
    evolve,
    expected_action,
    fold,
    observe,
    replay_checked,
    snapshot_of,
    state_from_snapshot,
)
from service.rules.events import (
    GameEnded,
    Rematched,
    RoundEnded,
    SeatLeft,
    SeatResigned,
    TurnTimedOut,
)
from tests.rules.scenario import Table, dealt_table

HANDS_4P = [
    "green-1 green-2 green-3 green-4 green-5 green-6 green-7 purple-2 purple-3 purple-4 "
    "purple-5 purple-6",
    "purple-7 purple-8 pink-3 pink-4 pink-5 pink-6 pink-7 pink-8 pink-9 yellow-4 yellow-5 yellow-6",
    "yellow-7 yellow-8 yellow-9 yellow-10 black-5 black-6 black-7 black-8 black-9 black-10 "
    "black-11 red-6",
    "red-7 red-8 red-9 red-10 red-11 red-12 blue-7 blue-8 blue-9 blue-10 blue-11 blue-12",
]
PASSES = {
    0: "green-5 green-6 purple-2",
    1: "pink-3 pink-4 yellow-4",
    2: "yellow-7 black-5 red-6",
    3: "red-7 blue-7 blue-8",
}


def refused(state: GameState, command: object) -> Violation:
    with pytest.raises(RuleViolationError) as info:
        decide(state, command)  # type: ignore[arg-type]
    return info.value.code


def passing() -> Table:
    return dealt_table(HANDS_4P, "blue-13")


def playing() -> Table:
    table = passing()
    for seat, ids in PASSES.items():
        table.pass_cards(seat, ids)
    assert table.state.phase is Phase.PLAYING
    return table


def test_a_game_created_with_a_clock_shows_it_in_every_view() -> None:
    clock = TurnClock(90, OnTimeout.AUTOPLAY)
    state = fold(decide(INITIAL, CreateGame(3, Scoring.BASIC, clock=clock)))
    assert state.config is not None and state.config.clock == clock
    view = observe(state, PUBLIC)
    assert view.clock is not None
    assert (view.clock.turn_seconds, view.clock.on_timeout) == (90, "autoplay")


@pytest.mark.parametrize("seconds", [0, -5, 14 * 24 * 3600 + 1])
def test_a_turn_clock_out_of_range_is_refused(seconds: int) -> None:
    command = CreateGame(4, Scoring.BASIC, clock=TurnClock(seconds, OnTimeout.FORFEIT))
    assert refused(INITIAL, command) is Violation.INVALID_OPTIONS


def test_a_bot_that_joins_is_shown_on_its_seat() -> None:
    table = Table()
    table.do(CreateGame(4, Scoring.BASIC))
    table.do(JoinSeat(1, "Bot", BotLevel.RANDOM))
    seats = observe(table.state, PUBLIC).seats
    assert [s.bot for s in seats] == [None, "random", None, None]
    assert seats[1].joined


def test_a_player_who_leaves_hands_the_seat_to_a_bot_and_the_game_goes_on() -> None:
    table = playing()
    turn = table.state.turn()
    assert turn is not None
    assert table.do(Leave(turn)) == (SeatLeft(turn, BotLevel.BASIC),)
    assert table.state.bots[turn] is BotLevel.BASIC
    assert table.state.phase is Phase.PLAYING
    assert expected_action(table.state, turn) is not None  # the bot must play now
    assert observe(table.state, PUBLIC).seats[turn].bot == "basic"


def test_a_bot_seat_cannot_leave_and_a_finished_game_cannot_be_left() -> None:
    table = playing()
    table.do(Leave(2))
    assert refused(table.state, Leave(2)) is Violation.BOT_SEAT
    table.do(Resign(0))
    assert refused(table.state, Leave(1)) is Violation.GAME_OVER
    assert refused(table.state, Resign(1)) is Violation.GAME_OVER


def test_resigning_ends_the_game_and_the_resigning_team_loses() -> None:
    table = playing()
    events = table.do(Resign(1))
    assert isinstance(events[0], SeatResigned)
    ended = events[1]
    assert isinstance(ended, RoundEnded) and ended.reason is RoundEndReason.RESIGN
    assert ended.winners == (0,) and ended.points == (0, 0)
    assert events[2] == GameEnded((0,))
    assert table.state.phase is Phase.FINISHED
    view = observe(table.state, PUBLIC)
    assert view.winner == (0,) and view.rounds[-1].reason == "resign"
    assert view.scores == (0, 0)


def test_in_three_player_games_the_others_win_when_a_seat_resigns_while_passing() -> None:
    deck = [c.id for c in STANDARD_DECK if c.id != "blue-13"]
    table = dealt_table([deck[0:16], deck[16:32], deck[32:48]], "blue-13")
    assert table.state.phase is Phase.PASSING
    table.do(Resign(2))
    assert table.state.winners == (0, 1)
    assert table.state.results[-1].reason is RoundEndReason.RESIGN


def test_nobody_resigns_a_game_that_has_not_started() -> None:
    table = Table()
    table.do(CreateGame(4, Scoring.BASIC))
    table.do(JoinSeat(0, "Ann"))
    assert refused(table.state, Resign(0)) is Violation.NOT_STARTED
    assert refused(table.state, Resign(1)) is Violation.SEAT_EMPTY


def test_an_autoplay_timeout_records_the_late_seat_and_leaves_the_move_to_the_caller() -> None:
    table = playing()
    turn = table.state.turn()
    assert turn is not None
    before = table.state
    events = table.do(TimeOut((turn,), OnTimeout.AUTOPLAY))
    assert events == (TurnTimedOut(turn, OnTimeout.AUTOPLAY),)
    assert table.state == before


def test_a_forfeit_while_passing_makes_every_side_with_a_late_seat_lose() -> None:
    table = passing()
    table.pass_cards(0, PASSES[0])
    table.pass_cards(2, PASSES[2])
    events = table.do(TimeOut((3, 1), OnTimeout.FORFEIT))
    assert events[:2] == (
        TurnTimedOut(1, OnTimeout.FORFEIT),
        TurnTimedOut(3, OnTimeout.FORFEIT),
    )
    assert table.state.winners == (0,)
    assert table.state.results[-1].reason is RoundEndReason.FORFEIT


def test_a_forfeit_of_late_seats_on_both_teams_ends_the_game_without_a_winner() -> None:
    table = passing()
    table.do(TimeOut((0, 1, 2, 3), OnTimeout.FORFEIT))
    assert table.state.phase is Phase.FINISHED
    assert table.state.winners == ()


def test_only_a_seat_that_must_act_can_time_out() -> None:
    table = playing()
    turn = table.state.turn()
    assert turn is not None
    other = (turn + 1) % 4
    assert refused(table.state, TimeOut((other,), OnTimeout.AUTOPLAY)) is Violation.NOT_YOUR_TURN
    assert refused(table.state, TimeOut((), OnTimeout.AUTOPLAY)) is Violation.INVALID_OPTIONS


def test_replaying_the_events_of_bots_clocks_and_forfeits_gives_the_same_state() -> None:
    table = passing()
    table.do(Leave(3, BotLevel.RANDOM))
    table.pass_cards(0, PASSES[0])
    table.do(TimeOut((1, 2), OnTimeout.FORFEIT))
    replayed = fold(table.events)
    assert replayed == table.state
    assert state_from_snapshot(snapshot_of(replayed)) == replayed


def test_a_seat_view_of_a_bot_seat_is_still_only_that_seats_view() -> None:
    table = playing()
    table.do(Leave(1))
    view = observe(table.state, SeatViewer(1))
    assert view.seat == 1 and len(view.hand) == len(table.hand(1))
    assert view.seats[1].bot == "basic"


def test_self_play_games_keep_no_bot_on_any_seat_unless_one_joins() -> None:
    for step in play_game(3, Scoring.BASIC, Variant.STANDARD, rng=random.Random(3)):
        assert all(b is None for b in step.after.bots)


def test_a_game_left_waiting_expires_and_then_nobody_joins_or_acts() -> None:
    """Issue 15: the service ends games never filled (GameExpired). Only a waiting game
    expires; after that a join, a leave or a resignation is refused as game over."""
    table = Table()
    table.do(CreateGame(4, Scoring.BASIC))
    table.do(JoinSeat(0, "Ann"))
    table.do(Expire())
    assert table.state.phase is Phase.EXPIRED
    public = observe(table.state, PUBLIC)
    assert (public.status, public.expired, public.winner, public.rounds) == (
        "finished",
        True,
        None,
        (),
    )
    assert all(expected_action(table.state, seat) is None for seat in range(4))
    assert refused(table.state, JoinSeat(1, "Bob")) is Violation.GAME_OVER
    assert refused(table.state, Leave(0, BotLevel.RANDOM)) is Violation.GAME_OVER
    assert refused(table.state, Resign(0)) is Violation.GAME_OVER
    assert refused(table.state, Expire()) is Violation.WRONG_PHASE
    assert fold(table.events) == table.state
    assert state_from_snapshot(snapshot_of(table.state)) == table.state
    assert refused(passing().state, Expire()) is Violation.WRONG_PHASE


# --- rematch (issue 29: docs/api.md "Rematch") ------------------------------------------

NEXT_GAME = "00000000-0000-0000-0000-0000000000aa"


def test_a_finished_game_names_its_rematch_once() -> None:
    table = playing()
    assert refused(table.state, Rematch(NEXT_GAME)) is Violation.NOT_FINISHED
    table.do(Resign(0))
    assert observe(table.state, PUBLIC).rematch is None
    assert table.do(Rematch(NEXT_GAME)) == (Rematched(NEXT_GAME),)
    assert observe(table.state, PUBLIC).rematch == NEXT_GAME
    assert refused(table.state, Rematch("another")) is Violation.REMATCHED
    assert replay_checked(table.events) == table.state
    assert state_from_snapshot(snapshot_of(table.state)) == table.state


def test_a_game_that_never_finished_has_no_rematch() -> None:
    waiting = fold(decide(INITIAL, CreateGame(3, Scoring.BASIC)))
    assert refused(waiting, Rematch(NEXT_GAME)) is Violation.NOT_FINISHED
    expired = fold(decide(waiting, Expire()), waiting)
    assert refused(expired, Rematch(NEXT_GAME)) is Violation.NOT_FINISHED
    with pytest.raises(InvalidEventError):  # nor may a history say it had one
        evolve(expired, Rematched(NEXT_GAME))
