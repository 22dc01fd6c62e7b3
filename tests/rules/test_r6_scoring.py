"""R-6: scoring and the end of the game."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from service.rules import (
    PUBLIC,
    CreateGame,
    DealRound,
    Phase,
    PlayCard,
    Scoring,
    Violation,
    card,
    deal_due,
    observe,
)
from service.rules.events import GameEnded, RoundDealt, RoundEnded, RoundEndReason
from tests.rules.builders import (
    assert_refused,
    boss_trick_round,
    game_end,
    hands_with,
    prepare_round,
    round_end,
    scripted_round,
)
from tests.rules.scenario import Table, cards, new_table

# Seat 1 takes seven tricks in a round led by seat 2.
SEAT_1_TAKES_SEVEN = [
    "red-6 red-8 red-12",  # 2 leads, 1 wins
    "blue-13 blue-8 blue-9",
    "blue-12 blue-10 blue-11",
    "black-11 black-5 black-6",
    "black-10 black-8 black-9",
    "yellow-10 yellow-4 yellow-5",
    "yellow-9 yellow-6 yellow-8",
]


def _assert_game_over(table: Table) -> None:
    assert table.state.phase is Phase.FINISHED
    assert deal_due(table.state) is None
    deal = DealRound(
        tuple(cards(" ".join(h)) for h in hands_with(len(table.state.names), "red-9", {})),
        card("red-9"),
    )
    assert_refused(table, deal, Violation.WRONG_PHASE)
    r = table.state.round
    assert r is not None
    seat = next(s for s in range(len(r.hands)) if r.hands[s])
    assert_refused(table, PlayCard(seat, r.hands[seat][0]), Violation.WRONG_PHASE)


def _not_over(table: Table, events: Sequence[object]) -> None:
    assert not any(isinstance(e, GameEnded) for e in events)
    assert table.state.phase is Phase.DEALING
    assert table.state.winners is None


# --- R-6.1 ----------------------------------------------------------------------------


@pytest.mark.parametrize("scoring", [Scoring.BASIC, Scoring.ADVANCED])
def test_R_6_1_the_scoring_mode_is_chosen_when_the_game_is_created(scoring: Scoring) -> None:
    table = new_table(4, scoring)
    assert observe(table.state, PUBLIC).scoring == scoring.value
    assert table.state.config is not None
    assert table.state.config.scoring is scoring
    # It cannot be changed by creating the game again.
    assert_refused(table, CreateGame(4, Scoring.BASIC), Violation.WRONG_PHASE)


@pytest.mark.parametrize("scoring", [Scoring.BASIC, Scoring.ADVANCED])
def test_R_6_1_only_round_winners_score(scoring: Scoring) -> None:
    # Seat 1 trumps four bosses: team 1 wins; team 0 played bosses but scores nothing.
    table = new_table(4, scoring)
    ended = boss_trick_round(table, "red-6", "green-7 red-7 blue-7 black-7")
    assert ended.winners == (1,)
    assert ended.points[0] == 0
    assert ended.points[1] > 0
    assert table.state.scores == ended.points
    three = new_table(3, scoring)
    ended = boss_trick_round(three, "blue-8", "green-7 red-7 blue-7")
    assert ended.winners == (2,)
    assert ended.points[:2] == (0, 0)
    assert ended.points[2] > 0


# --- R-6.2 ----------------------------------------------------------------------------


def test_R_6_2_basic_scoring_four_players_one_point_a_round_game_over_at_two() -> None:
    table = new_table(4, Scoring.BASIC)
    # Round 1: seat 0 leads four bosses of other suits: team 0.
    ended = boss_trick_round(table, "blue-8", "green-7 purple-7 pink-7 yellow-7")
    assert (ended.winners, ended.points) == ((0,), (1, 0))
    _not_over(table, table.events)
    # Round 2: seat 0 leads again; seat 1 trumps: team 1.
    ended = boss_trick_round(table, "red-6", "green-7 red-7 blue-7 black-7")
    assert (ended.winners, ended.points) == ((1,), (0, 1))
    assert table.state.scores == (1, 1)
    _not_over(table, table.events)
    # Round 3: seat 1 leads and keeps the trick: team 1 has 2 points and wins.
    events = scripted_round(table, "blue-8", ["green-7 purple-7 pink-7 yellow-7"])
    assert round_end(events).winners == (1,)
    assert table.state.scores == (1, 2)
    assert game_end(events) == GameEnded((1,))
    assert events[-1] == GameEnded((1,))
    assert table.state.winners == (1,)
    assert observe(table.state, PUBLIC).winner == (1,)
    _assert_game_over(table)


def test_R_6_2_basic_scoring_three_players_game_over_at_two() -> None:
    table = new_table(3, Scoring.BASIC)
    ended = boss_trick_round(table, "blue-8", "green-7 purple-7 pink-7")
    assert (ended.winners, ended.points) == ((0,), (1, 0, 0))
    _not_over(table, table.events)
    events = scripted_round(table, "blue-8", ["red-7 black-7 yellow-7"])
    assert round_end(events).points == (1, 0, 0)
    assert table.state.scores == (2, 0, 0)
    assert game_end(events) == GameEnded((0,))
    _assert_game_over(table)


def test_R_6_2_basic_scoring_ignores_the_bosses_values() -> None:
    table = new_table(4, Scoring.BASIC)
    ended = boss_trick_round(table, "green-2", "red-7 blue-7 black-7 yellow-7")
    assert ended.points == (1, 0)


# --- R-6.3 ----------------------------------------------------------------------------


def test_R_6_3_advanced_four_players_score_stars_and_the_game_ends_at_seven_or_more() -> None:
    table = new_table(4, Scoring.ADVANCED)
    # Round 1: red 2 + blue 2 + black 1 + yellow 1 = 6 stars: not yet the end.
    ended = boss_trick_round(table, "green-2", "red-7 blue-7 black-7 yellow-7")
    assert ended.points == (6, 0)
    _not_over(table, table.events)
    assert deal_due(table.state) == 2
    # Round 2: pink 1 + green 0 + purple 0 + yellow 1 = 2 more: 8 >= 7 ends the game.
    events = scripted_round(table, "blue-8", ["pink-7 green-7 purple-7 yellow-7"])
    assert round_end(events).points == (2, 0)
    assert table.state.scores == (8, 0)
    assert game_end(events) == GameEnded((0,))
    _assert_game_over(table)


def test_R_6_3_advanced_the_game_ends_at_exactly_seven() -> None:
    table = new_table(4, Scoring.ADVANCED)
    boss_trick_round(table, "green-2", "red-7 blue-7 black-7 yellow-7")
    assert table.state.scores == (6, 0)
    # Yellow is trump: yellow-7 scores 0; pink 1: exactly 7.
    events = scripted_round(table, "yellow-4", ["yellow-7 green-7 purple-7 pink-7"])
    assert round_end(events).points == (1, 0)
    assert table.state.scores == (7, 0)
    assert game_end(events) == GameEnded((0,))


def test_R_6_3_advanced_two_points_do_not_end_the_game() -> None:
    table = new_table(4, Scoring.ADVANCED)
    boss_trick_round(table, "blue-8", "green-7 purple-7 pink-7 yellow-7")
    scripted_round(table, "blue-8", ["green-7 purple-7 pink-7 yellow-7"])
    assert table.state.scores == (4, 0)
    _not_over(table, table.events)


@pytest.mark.parametrize(
    ("trump", "bosses", "points"),
    [
        # The trump suit's boss scores 0: red-7 carries 2 stars otherwise.
        ("red-6", "red-7 blue-7 black-7 yellow-7", (4, 0)),
        ("blue-8", "blue-7 red-7 black-7 yellow-7", (4, 0)),
        ("pink-3", "pink-7 red-7 black-7 yellow-7", (4, 0)),
        ("green-2", "green-7 red-7 black-7 yellow-7", (4, 0)),
    ],
)
def test_R_6_3_the_trump_suits_boss_scores_zero(
    trump: str, bosses: str, points: tuple[int, int]
) -> None:
    # Seat 0 leads the trump boss; the others are void in trumps and play bosses.
    table = new_table(4, Scoring.ADVANCED)
    ended = boss_trick_round(table, trump, bosses)
    assert ended.winners == (0,)
    assert card(bosses.split(maxsplit=1)[0]) in ended.bosses_scored
    assert ended.points == points


def test_R_6_3_the_trump_suits_boss_scores_zero_in_three_player_games() -> None:
    table = new_table(3, Scoring.ADVANCED)
    ended = boss_trick_round(table, "purple-4", "purple-7 red-7 blue-7")
    assert ended.points == (6, 0, 0)  # purple's 1 point does not count


# --- R-6.4 ----------------------------------------------------------------------------


def _seat_1_takes_seven(scoring: Scoring, before: list[tuple[str, list[str]]]) -> Table:
    """Rounds ``before`` (trump card, tricks) then a round where seat 1 takes 7 tricks."""
    table = new_table(3, scoring)
    for trump, tricks in before:
        scripted_round(table, trump, tricks)
    assert table.state.lead_holder == 2
    return table


@pytest.mark.parametrize(
    ("scoring", "points"), [(Scoring.BASIC, (1, 0, 1)), (Scoring.ADVANCED, (3, 0, 3))]
)
def test_R_6_4_three_players_seven_tricks_the_two_others_score(
    scoring: Scoring, points: tuple[int, int, int]
) -> None:
    # Round 1: seat 2 trumps a trick of three bosses and leads round 2.
    table = _seat_1_takes_seven(scoring, [("red-6", ["green-7 purple-7 red-7"])])
    first = table.state.scores
    events = scripted_round(table, "purple-2", SEAT_1_TAKES_SEVEN)
    ended = round_end(events)
    assert ended.reason is RoundEndReason.SEVEN_TRICKS
    assert ended.winners == (0, 2)
    assert ended.points == points
    assert ended.bosses_scored == ()
    assert table.state.scores == tuple(a + b for a, b in zip(first, points, strict=True))


# --- R-6.5 ----------------------------------------------------------------------------


def test_R_6_5_three_players_basic_tie_goes_to_the_left_of_the_seven_trick_taker() -> None:
    table = _seat_1_takes_seven(
        Scoring.BASIC,
        [
            ("blue-8", ["green-7 purple-7 pink-7"]),  # seat 0 wins
            ("red-6", ["green-7 purple-7 red-7"]),  # seat 0 leads, seat 2 trumps
        ],
    )
    assert table.state.scores == (1, 0, 1)
    events = scripted_round(table, "purple-2", SEAT_1_TAKES_SEVEN)
    assert round_end(events).winners == (0, 2)
    assert table.state.scores == (2, 0, 2)
    # Seats 0 and 2 tie at 2: seat 2 sits on the left of seat 1, who took seven tricks.
    assert game_end(events) == GameEnded((2,))
    assert table.state.winners == (2,)
    _assert_game_over(table)


def test_R_6_5_three_players_advanced_tie_goes_to_the_left_of_the_seven_trick_taker() -> None:
    table = _seat_1_takes_seven(
        Scoring.ADVANCED,
        [
            ("blue-8", ["red-7 pink-7 green-7"]),  # seat 0: 3 + 1 + 0
            # Seat 0 leads; seat 2 wins a green trick, then three bosses: 3 + 1 + 0.
            ("blue-8", ["green-2 green-3 green-4", "red-7 pink-7 green-7"]),
        ],
    )
    assert table.state.scores == (4, 0, 4)
    events = scripted_round(table, "purple-2", SEAT_1_TAKES_SEVEN)
    assert table.state.scores == (7, 0, 7)
    assert game_end(events) == GameEnded((2,))


def test_R_6_5_three_players_the_most_points_win() -> None:
    table = _seat_1_takes_seven(
        Scoring.ADVANCED,
        [
            ("blue-8", ["red-7 yellow-7 green-7"]),  # seat 0: 3 + 2 + 0
            ("blue-8", ["green-2 green-3 green-4", "red-7 pink-7 green-7"]),  # seat 2: 4
        ],
    )
    assert table.state.scores == (5, 0, 4)
    events = scripted_round(table, "purple-2", SEAT_1_TAKES_SEVEN)
    # Both reach 7 or more; seat 0 has more (the tie-break would have chosen seat 2).
    assert table.state.scores == (8, 0, 7)
    assert game_end(events) == GameEnded((0,))


def test_R_6_5_three_players_a_single_player_reaching_the_target_wins() -> None:
    table = new_table(3, Scoring.ADVANCED)
    boss_trick_round(table, "green-2", "red-7 blue-7 black-7")  # 3 + 3 + 2
    assert table.state.scores == (8, 0, 0)
    assert table.state.winners == (0,)


# --- R-6.6 ----------------------------------------------------------------------------


def test_R_6_6_a_new_round_is_dealt_after_a_round_that_does_not_end_the_game() -> None:
    table = new_table(4, Scoring.BASIC)
    ended = boss_trick_round(table, "red-6", "green-7 red-7 blue-7 black-7")
    assert isinstance(table.events[-1], RoundEnded)
    assert ended.number == 1
    assert table.state.phase is Phase.DEALING
    assert deal_due(table.state) == 2
    assert observe(table.state, PUBLIC).status == "dealing"
    exchanged = prepare_round(table, "purple-2", ["black-5 black-6 black-8 black-9"])
    dealt = [e for e in table.events if isinstance(e, RoundDealt)]
    assert [d.number for d in dealt] == [1, 2]
    assert exchanged.leader == 1  # seat 1 took the last trick of round 1
    assert table.state.scores == (0, 1)  # scores carry over
    view = observe(table.state, PUBLIC)
    assert view.round is not None
    assert view.round.number == 2
    assert view.round.trump == "purple-2"
    assert [s.bosses for s in view.seats] == [(), (), (), ()]
    assert [s.tricks_won for s in view.seats] == [0, 0, 0, 0]
    assert [r.number for r in view.rounds] == [1]
    # A deal is due only once.
    assert deal_due(table.state) is None
    deal = DealRound(tuple(cards(" ".join(h)) for h in hands_with(4, "red-9", {})), card("red-9"))
    assert_refused(table, deal, Violation.WRONG_PHASE)


def test_R_6_6_rounds_are_numbered_and_dealt_until_the_game_ends() -> None:
    table = new_table(4, Scoring.BASIC)
    numbers: list[int] = []
    for _ in range(3):
        assert deal_due(table.state) == len(numbers) + 1
        numbers.append(boss_trick_round(table, "blue-8", "green-7 purple-7 red-7 yellow-7").number)
        if table.state.phase is Phase.FINISHED:
            break
    assert numbers == [1, 2]  # team 0 wins both rounds: 2 points end the game
    assert deal_due(table.state) is None
