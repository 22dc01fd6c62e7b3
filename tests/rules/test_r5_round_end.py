"""R-5: the end of a round, checked after every trick in the order R-5.1, R-5.2, R-5.3."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from service.rules import PUBLIC, Phase, PlayCard, Scoring, Violation, deal_due, observe
from service.rules.events import RoundEnded, RoundEndReason, TrickTaken
from tests.rules.builders import (
    assert_refused,
    boss_ids,
    boss_trick_round,
    hand,
    play_tricks,
    prepare_round,
    round_end,
    scripted_table,
    trick_winners,
)
from tests.rules.scenario import Table, new_table


def _ended_after_trick(events: Sequence[object], trick: int) -> bool:
    """The RoundEnded event follows the ``trick``-th TrickTaken directly."""
    for i, e in enumerate(events):
        if isinstance(e, RoundEnded):
            before = events[i - 1]
            return isinstance(before, TrickTaken) and before.number == trick
    return False


def _assert_round_over(table: Table) -> None:
    """No more cards can be played once the round has ended."""
    r = table.state.round
    assert r is not None
    seat = next(s for s in range(len(r.hands)) if r.hands[s])
    assert table.state.phase is Phase.DEALING
    assert_refused(table, PlayCard(seat, r.hands[seat][0]), Violation.WRONG_PHASE)


# --- R-5.1 ----------------------------------------------------------------------------

FOUR_BOSSES_4P = [
    "green-7 green-2 green-3 green-4",  # 0 takes green-7
    "pink-9 pink-7 pink-3 pink-4",  # 0 takes pink-7 (played by seat 1)
    "yellow-10 yellow-4 yellow-7 yellow-5",  # 0 takes yellow-7 (played by seat 2)
    "black-11 black-5 black-6 black-7",  # 0 takes black-7 (played by seat 3)
]


def test_R_5_1_four_players_a_team_with_four_bosses_wins_the_round() -> None:
    table = new_table(4)
    prepare_round(table, "purple-2", FOUR_BOSSES_4P)
    events = play_tricks(table, FOUR_BOSSES_4P[:3])
    # Three bosses are not enough.
    assert not any(isinstance(e, RoundEnded) for e in events)
    assert table.state.phase is Phase.PLAYING
    events = play_tricks(table, FOUR_BOSSES_4P[3:])
    ended = round_end(events)
    assert _ended_after_trick(events, 4)
    assert ended.reason is RoundEndReason.BOSSES
    assert ended.winners == (0,)
    assert boss_ids(ended.bosses_scored) == {"green-7", "pink-7", "yellow-7", "black-7"}
    _assert_round_over(table)


def test_R_5_1_four_players_the_other_team_can_win_by_bosses() -> None:
    # Seat 1 trumps a trick of four bosses: its team takes them all at once.
    table = new_table(4)
    ended = boss_trick_round(table, "red-6", "green-7 red-7 blue-7 black-7")
    assert ended.reason is RoundEndReason.BOSSES
    assert ended.winners == (1,)
    assert ended.points == (0, 1)
    bosses = observe(table.state, PUBLIC).seats[1].bosses
    assert sorted(bosses) == ["black-7", "blue-7", "green-7", "red-7"]


def test_R_5_1_three_players_a_player_with_three_bosses_wins_the_round() -> None:
    tricks = [
        "green-7 green-2 green-3",  # 0 takes green-7
        "pink-9 pink-7 pink-3",  # 0 takes pink-7
        "yellow-4 yellow-10 yellow-7",  # 1 takes yellow-7
        "black-5 black-6 black-7",  # 1 leads, 0 takes black-7: three
    ]
    table = new_table(3)
    prepare_round(table, "purple-2", tricks)
    events = play_tricks(table, tricks[:3])
    assert trick_winners(events) == [0, 0, 1]
    assert not any(isinstance(e, RoundEnded) for e in events)
    events = play_tricks(table, tricks[3:])
    assert trick_winners(events) == [0]
    ended = round_end(events)
    assert ended.reason is RoundEndReason.BOSSES
    assert ended.winners == (0,)
    assert ended.points == (1, 0, 0)
    _assert_round_over(table)


# --- R-5.2 ----------------------------------------------------------------------------

# Seat 0 takes seven tricks; the other team took black-7; four bosses stay in hands.
SEVEN_TRICKS_4P = [
    "black-5 black-7 black-6 black-8",  # 3 takes black-7
    "yellow-4 yellow-10 yellow-5 yellow-6",  # 3 leads, 0 wins
    "yellow-9 yellow-7 yellow-8 blue-8",  # 0 takes yellow-7
    "green-6 green-2 green-3 green-4",
    "green-7 blue-9 green-5 blue-10",  # 0 takes green-7
    "black-11 black-9 black-10 blue-11",
    "green-1 blue-12 purple-3 blue-13",
    "purple-8 purple-4 purple-5 purple-6",  # 0's seventh trick
]
IN_HANDS_4P = {1: "red-7", 2: "blue-7", 3: "pink-7 purple-7"}


@pytest.mark.parametrize(
    ("scoring", "points"),
    # Advanced: black 1 + red 2 + blue 2 + pink 1 + purple (trump) 0.
    [(Scoring.BASIC, (0, 1)), (Scoring.ADVANCED, (0, 6))],
)
def test_R_5_2_four_players_a_team_with_seven_tricks_loses_and_the_winners_add_hand_bosses(
    scoring: Scoring, points: tuple[int, int]
) -> None:
    table, events = scripted_table(
        4, "purple-2", SEVEN_TRICKS_4P, scoring=scoring, holding=IN_HANDS_4P
    )
    assert trick_winners(events) == [3, 0, 0, 0, 0, 0, 0, 0]
    ended = round_end(events)
    assert _ended_after_trick(events, 8)
    assert ended.reason is RoundEndReason.SEVEN_TRICKS
    assert ended.winners == (1,)
    # The bosses they captured, plus every boss still in any hand (both teams').
    assert boss_ids(ended.bosses_scored) == {"black-7", "red-7", "blue-7", "pink-7", "purple-7"}
    assert ended.points == points
    assert table.state.scores == points
    for seat, bosses in IN_HANDS_4P.items():
        assert set(bosses.split()) <= set(hand(table, seat))
    _assert_round_over(table)


# Seat 1 takes seven tricks (after seat 0 took two bosses); nobody has three bosses.
SEVEN_TRICKS_3P = [
    "green-7 green-2 pink-7",  # 0 takes green-7 and pink-7
    "red-6 red-12 red-8",  # 1 wins
    "blue-13 blue-8 blue-9",
    "blue-12 blue-10 blue-11",
    "black-11 black-5 black-6",
    "black-10 black-7 black-9",  # 1 takes black-7
    "yellow-10 yellow-4 yellow-5",
    "yellow-9 yellow-6 yellow-8",  # 1's seventh trick
]


@pytest.mark.parametrize(
    ("scoring", "points"), [(Scoring.BASIC, (1, 0, 1)), (Scoring.ADVANCED, (3, 0, 3))]
)
def test_R_5_2_three_players_a_player_with_seven_tricks_loses_the_other_two_win(
    scoring: Scoring, points: tuple[int, int, int]
) -> None:
    table, events = scripted_table(3, "purple-2", SEVEN_TRICKS_3P, scoring=scoring)
    assert trick_winners(events) == [0, 1, 1, 1, 1, 1, 1, 1]
    ended = round_end(events)
    assert _ended_after_trick(events, 8)
    assert ended.reason is RoundEndReason.SEVEN_TRICKS
    assert ended.winners == (0, 2)
    assert ended.bosses_scored == ()
    assert ended.points == points
    _assert_round_over(table)


# --- R-5.3 ----------------------------------------------------------------------------

# The trump card is a boss, so six are in play: 3 + 3 bosses and 6 + 6 tricks.
ALL_TRICKS_4P = [
    "green-2 green-7 green-3 green-4",
    "yellow-4 yellow-7 yellow-5 yellow-6",
    "black-5 black-6 black-7 black-8",
    "red-6 red-7 red-8 red-9",
    "blue-7 blue-8 blue-9 blue-10",
    "purple-2 purple-7 purple-3 purple-4",
    "pink-3 pink-4 pink-5 pink-6",
    "green-5 green-1 green-6 yellow-8",
    "yellow-9 yellow-10 black-9 black-10",
    "black-11 red-10 red-11 blue-11",
    "blue-12 purple-5 purple-6 blue-13",
    "red-12 purple-8 pink-9 pink-8",  # seat 2 trumps the last trick
]


@pytest.mark.parametrize(
    ("scoring", "points"),
    # Advanced: yellow 1 + red 2 + purple 0 (pink, the trump suit, is out of play).
    [(Scoring.BASIC, (1, 0)), (Scoring.ADVANCED, (3, 0))],
)
def test_R_5_3_four_players_when_hands_are_empty_the_last_trick_wins(
    scoring: Scoring, points: tuple[int, int]
) -> None:
    table, events = scripted_table(4, "pink-7", ALL_TRICKS_4P, scoring=scoring)
    winners = trick_winners(events)
    assert winners == [1, 2, 1, 0, 3, 0, 3, 0, 1, 1, 0, 2]
    assert [winners.count(s) for s in range(4)] == [4, 4, 2, 2]  # six tricks per team
    view = observe(table.state, PUBLIC)
    assert [len(s.bosses) for s in view.seats] == [2, 2, 1, 1]  # three bosses per team
    ended = round_end(events)
    assert _ended_after_trick(events, 12)
    assert ended.reason is RoundEndReason.LAST_TRICK
    assert ended.winners == (0,)
    assert boss_ids(ended.bosses_scored) == {"yellow-7", "red-7", "purple-7"}
    assert ended.points == points
    assert [s.hand_size for s in view.seats] == [0, 0, 0, 0]
    assert deal_due(table.state) == 2


ALL_TRICKS_3P = [
    "green-2 green-7 green-3",
    "purple-2 purple-3 purple-7",
    "pink-7 pink-3 pink-4",
    "yellow-4 yellow-7 yellow-5",
    "red-6 red-8 red-7",
    "blue-9 blue-7 blue-8",
    "green-4 green-1 green-5",
    "purple-4 purple-5 purple-8",
    "yellow-6 yellow-10 yellow-8",
    "purple-6 yellow-9 pink-8",
    "black-5 black-6 black-8",
    "black-9 black-10 black-11",
    "blue-13 blue-10 red-11",
    "red-9 red-10 red-12",
    "pink-5 pink-6 pink-9",
    "blue-11 green-6 blue-12",  # seat 1 takes the last trick
]


@pytest.mark.parametrize(
    ("scoring", "points"),
    # Advanced: green 0 + yellow 2 (black, the trump suit, is out of play).
    [(Scoring.BASIC, (0, 1, 0)), (Scoring.ADVANCED, (0, 2, 0))],
)
def test_R_5_3_three_players_when_hands_are_empty_the_last_trick_wins(
    scoring: Scoring, points: tuple[int, int, int]
) -> None:
    table, events = scripted_table(3, "black-7", ALL_TRICKS_3P, scoring=scoring)
    winners = trick_winners(events)
    assert [winners.count(s) for s in range(3)] == [6, 5, 5]
    assert winners[-1] == 1
    view = observe(table.state, PUBLIC)
    assert [len(s.bosses) for s in view.seats] == [2, 2, 2]
    ended = round_end(events)
    assert _ended_after_trick(events, 16)
    assert ended.reason is RoundEndReason.LAST_TRICK
    assert ended.winners == (1,)
    assert boss_ids(ended.bosses_scored) == {"green-7", "yellow-7"}
    assert ended.points == points


# --- R-5.4 ----------------------------------------------------------------------------

SEVENTH_AND_FOURTH_4P = [
    "green-7 green-2 green-3 green-4",  # boss 1
    "yellow-10 yellow-7 yellow-4 yellow-5",  # boss 2
    "black-11 black-5 black-7 black-6",  # boss 3
    "blue-13 blue-8 blue-9 blue-10",
    "red-12 red-6 red-8 red-9",
    "pink-9 pink-3 pink-4 pink-5",  # six tricks
    "red-11 red-7 red-10 black-8",  # seventh trick and fourth boss
]


@pytest.mark.parametrize(
    ("scoring", "points"),
    # Advanced: green 0 + yellow 1 + black 1 + red 2 (trump purple).
    [(Scoring.BASIC, (1, 0)), (Scoring.ADVANCED, (4, 0))],
)
def test_R_5_4_seventh_trick_and_fourth_boss_same_trick_bosses_win(
    scoring: Scoring, points: tuple[int, int]
) -> None:
    table = new_table(4, scoring)
    prepare_round(table, "purple-2", SEVENTH_AND_FOURTH_4P)
    events = play_tricks(table, SEVENTH_AND_FOURTH_4P[:6])
    assert trick_winners(events) == [0] * 6
    assert not any(isinstance(e, RoundEnded) for e in events)
    events = play_tricks(table, SEVENTH_AND_FOURTH_4P[6:])
    assert trick_winners(events) == [0]
    assert [s.tricks_won for s in observe(table.state, PUBLIC).seats] == [7, 0, 0, 0]
    ended = round_end(events)
    assert ended.reason is RoundEndReason.BOSSES
    assert ended.winners == (0,)
    assert boss_ids(ended.bosses_scored) == {"green-7", "yellow-7", "black-7", "red-7"}
    assert ended.points == points


SEVENTH_AND_THIRD_3P = [
    "green-7 green-2 green-3",  # boss 1
    "yellow-10 yellow-7 yellow-4",  # boss 2
    "black-11 black-5 black-6",
    "blue-13 blue-8 blue-9",
    "red-12 red-6 red-8",
    "pink-9 pink-3 pink-4",  # six tricks
    "blue-12 blue-7 blue-10",  # seventh trick and third boss
]


@pytest.mark.parametrize(
    ("scoring", "points"),
    # Advanced: green 0 + yellow 2 + blue 3 (trump purple).
    [(Scoring.BASIC, (1, 0, 0)), (Scoring.ADVANCED, (5, 0, 0))],
)
def test_R_5_4_three_players_seventh_trick_and_third_boss_same_trick_bosses_win(
    scoring: Scoring, points: tuple[int, int, int]
) -> None:
    _, events = scripted_table(3, "purple-2", SEVENTH_AND_THIRD_3P, scoring=scoring)
    assert trick_winners(events) == [0] * 7
    ended = round_end(events)
    assert _ended_after_trick(events, 7)
    assert ended.reason is RoundEndReason.BOSSES
    assert ended.winners == (0,)
    assert boss_ids(ended.bosses_scored) == {"green-7", "yellow-7", "blue-7"}
    assert ended.points == points
