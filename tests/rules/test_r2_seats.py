"""R-2: seats, teams and direction."""

from __future__ import annotations

import pytest

from service.rules import (
    PUBLIC,
    Action,
    Phase,
    PlayCard,
    SeatViewer,
    Violation,
    card,
    expected_action,
    observe,
)
from service.rules.events import RoundEnded, RoundEndReason
from tests.rules.builders import (
    assert_refused,
    hand,
    play_tricks,
    prepare_round,
    round_end,
    scripted_table,
    second_round_table,
    trick_winners,
)
from tests.rules.scenario import new_table


@pytest.mark.parametrize(
    ("players", "leader", "trick", "order"),
    [
        (4, 2, "black-5 black-6 black-8 black-9", [2, 3, 0, 1]),
        (4, 3, "black-5 black-6 black-8 black-9", [3, 0, 1, 2]),
        (3, 1, "black-5 black-6 black-8", [1, 2, 0]),
        (3, 2, "black-5 black-6 black-8", [2, 0, 1]),
    ],
)
def test_R_2_1_play_goes_clockwise_from_the_leader(
    players: int, leader: int, trick: str, order: list[int]
) -> None:
    table = second_round_table(players, leader)
    prepare_round(table, "purple-2", [trick])
    for seat, cid in zip(order, trick.split(), strict=True):
        assert table.state.turn() == seat
        for other in range(players):
            expected = Action.PLAY if other == seat else None
            assert expected_action(table.state, other) is expected
        # Anyone else who tries to play now is refused.
        other = (seat + 1) % players
        assert_refused(table, PlayCard(other, card(hand(table, other)[0])), Violation.NOT_YOUR_TURN)
        play_tricks(table, [cid])


def test_R_2_1_the_player_on_the_left_is_the_next_seat() -> None:
    # Three players pass to the left: seat s gives to seat s+1 mod 3.
    table = new_table(3)
    prepare_round(table, "purple-2", ["black-5 black-6 black-8"])
    for seat in range(3):
        view = observe(table.state, SeatViewer(seat))
        assert view.pass_ is not None
        assert view.pass_.to == ((seat + 1) % 3,) * 3


def test_R_2_2_four_players_form_two_teams_of_partners_sitting_across() -> None:
    table = new_table(4)
    view = observe(table.state, PUBLIC)
    assert [s.team for s in view.seats] == [0, 1, 0, 1]
    assert view.scores == (0, 0)


def test_R_2_2_tricks_count_per_team() -> None:
    # Seat 0 takes 4 tricks and its partner seat 2 takes 3: their team has 7.
    tricks = [
        "blue-13 blue-8 blue-9 blue-10",  # 0 wins
        "red-6 red-8 red-12 red-9",  # 2 wins
        "black-11 black-5 black-6 black-8",  # 2 leads and wins
        "yellow-4 yellow-5 yellow-10 yellow-6",  # 0 wins
        "pink-9 pink-3 pink-4 pink-5",  # 0 wins
        "green-6 green-2 green-3 green-4",  # 0 wins
        "black-9 black-10 purple-8 yellow-7",  # 2 trumps and wins
    ]
    table, events = scripted_table(4, "purple-2", tricks)
    assert trick_winners(events) == [0, 2, 2, 0, 0, 0, 2]
    ended = round_end(events)
    assert ended.reason is RoundEndReason.SEVEN_TRICKS
    assert ended.winners == (1,)
    assert ended.points == (0, 1)
    assert table.state.scores == (0, 1)
    view = observe(table.state, PUBLIC)
    assert [s.tricks_won for s in view.seats] == [4, 0, 3, 0]


def test_R_2_2_bosses_count_per_team() -> None:
    tricks = [
        "green-7 green-2 green-3 green-4",  # 0 takes green-7
        "pink-7 pink-3 pink-9 pink-4",  # 2 takes pink-7
        "black-11 black-5 black-7 black-6",  # 2 takes black-7
        "red-6 red-7 red-12 red-8",  # 0 takes red-7: team 0 has four
    ]
    table, events = scripted_table(4, "purple-2", tricks)
    assert trick_winners(events) == [0, 2, 2, 0]
    ended = round_end(events)
    assert ended.reason is RoundEndReason.BOSSES
    assert ended.winners == (0,)
    assert table.state.scores == (1, 0)
    view = observe(table.state, PUBLIC)
    assert len(view.seats[0].bosses) == 2
    assert len(view.seats[2].bosses) == 2


def test_R_2_3_three_players_play_alone() -> None:
    table = new_table(3)
    view = observe(table.state, PUBLIC)
    assert [s.team for s in view.seats] == [None, None, None]
    assert view.scores == (0, 0, 0)
    # Seats 0 and 2 take two bosses each: four between them, but nobody has three.
    tricks = [
        "green-7 green-2 green-3",  # 0 takes green-7
        "pink-7 pink-3 pink-9",  # 2 takes pink-7
        "black-11 black-7 black-5",  # 2 takes black-7
        "red-6 red-12 red-7",  # 0 takes red-7
    ]
    table, events = scripted_table(3, "purple-2", tricks)
    assert trick_winners(events) == [0, 2, 2, 0]
    assert not any(isinstance(e, RoundEnded) for e in events)
    assert table.state.phase is Phase.PLAYING
    view = observe(table.state, PUBLIC)
    assert [len(s.bosses) for s in view.seats] == [2, 0, 2]
