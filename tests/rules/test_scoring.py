"""service/rules/scoring.py asked directly, over plain values as the engine and the search
bots' playouts both ask it: the rulebook's worked examples of advanced scoring (section
8, as tests/rules/test_worked_examples.py plays them through the engine) and each of
R-5, R-6 and R-7.6 to R-7.8 on the positions that decide them."""

from __future__ import annotations

import pytest

from service.rules import GameConfig, RoundEndReason, Scoring, Suit, Variant, card
from service.rules.cards import Card
from service.rules.scoring import (
    RoundEnd,
    bosses_scored,
    game_winner,
    new_seals,
    round_end,
    round_points,
    seals_result,
    seven_followers_end,
    side_totals,
)

ALICE, BARBARA, CHARLIE, DAVID = 0, 1, 2, 3
FOUR_ADVANCED = GameConfig(4, Scoring.ADVANCED, Variant.STANDARD)
THREE_ADVANCED = GameConfig(3, Scoring.ADVANCED, Variant.STANDARD)
THREE_BASIC = GameConfig(3, Scoring.BASIC, Variant.STANDARD)
SEVEN_FOLLOWERS = GameConfig(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS)
SHORT = GameConfig(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT)


def cards(ids: str) -> list[Card]:
    return [card(i) for i in ids.split()]


def test_section_8_example_1_four_bosses_three_stars_the_trump_boss_scores_zero() -> None:
    """R-5.1, R-6.3: red is trump; Alice took green-7 and yellow-7, Charlie blue-7 and
    red-7 (four tricks): their team wins by bosses and scores 0 + 1 + 2 + 0 stars."""
    bosses = [cards("green-7 yellow-7"), [], cards("blue-7 red-7"), []]
    side_bosses = side_totals(FOUR_ADVANCED, [len(b) for b in bosses])
    side_tricks = side_totals(FOUR_ADVANCED, [2, 0, 2, 0])
    assert (side_bosses, side_tricks) == ([4, 0], [4, 0])
    end = round_end(FOUR_ADVANCED, side_bosses, side_tricks, 4, CHARLIE)
    assert end == RoundEnd(RoundEndReason.BOSSES, (0,))
    scored = bosses_scored(FOUR_ADVANCED, end, bosses, [cards("pink-7"), [], [], []])
    assert set(scored) == set(cards("green-7 yellow-7 blue-7 red-7"))  # none from hands
    assert round_points(FOUR_ADVANCED, end, scored, Suit.RED) == (3, 0)


def test_section_8_example_2_seven_tricks_the_others_add_the_bosses_in_hands() -> None:
    """R-5.2, R-6.3: yellow is trump; Alice and Charlie took seven tricks and lose;
    Barbara and David score the black-7 and purple-7 they took and the pink-7, red-7
    and yellow-7 still in hands: 1 + 0 + 1 + 2 + 0 stars."""
    bosses = (cards("green-7 blue-7"), (), (), cards("black-7 purple-7"))
    hands = (cards("pink-7 red-11"), cards("red-7"), cards("red-12"), cards("yellow-7"))
    end = round_end(FOUR_ADVANCED, [2, 2], [7, 2], 9, CHARLIE)
    assert end == RoundEnd(RoundEndReason.SEVEN_TRICKS, (1,), 0)
    scored = bosses_scored(FOUR_ADVANCED, end, bosses, hands)
    assert set(scored) == set(cards("black-7 purple-7 pink-7 red-7 yellow-7"))
    assert round_points(FOUR_ADVANCED, end, scored, Suit.YELLOW) == (0, 4)


def test_R_5_1_three_players_three_bosses_win_the_round() -> None:
    end = round_end(THREE_ADVANCED, (0, 3, 1), (3, 2, 4), 9, BARBARA)
    assert end == RoundEnd(RoundEndReason.BOSSES, (1,))


def test_R_5_3_the_last_trick_wins_a_round_nothing_else_ended() -> None:
    assert round_end(FOUR_ADVANCED, [3, 3], [6, 5], 11, ALICE) is None
    end = round_end(FOUR_ADVANCED, [3, 3], [6, 6], 12, DAVID)
    assert end == RoundEnd(RoundEndReason.LAST_TRICK, (1,))
    end = round_end(THREE_BASIC, [2, 2, 2], [6, 5, 5], 16, CHARLIE)
    assert end == RoundEnd(RoundEndReason.LAST_TRICK, (2,))


def test_R_5_4_a_trick_bringing_seven_tricks_and_enough_bosses_wins_by_bosses() -> None:
    assert round_end(FOUR_ADVANCED, [4, 1], [7, 3], 10, ALICE) == RoundEnd(
        RoundEndReason.BOSSES, (0,)
    )
    assert round_end(THREE_BASIC, [1, 3, 0], [2, 7, 3], 12, BARBARA) == RoundEnd(
        RoundEndReason.BOSSES, (1,)
    )


@pytest.mark.parametrize(("cfg", "points"), [(THREE_BASIC, 1), (THREE_ADVANCED, 3)])
def test_R_6_4_three_players_seven_tricks_the_two_others_score_no_bosses(
    cfg: GameConfig, points: int
) -> None:
    end = round_end(cfg, [2, 1, 0], [3, 7, 2], 12, BARBARA)
    assert end == RoundEnd(RoundEndReason.SEVEN_TRICKS, (0, 2), 1)
    hands = [cards("red-7"), cards("blue-7"), cards("pink-7")]
    scored = bosses_scored(cfg, end, [cards("green-7 yellow-7"), cards("black-7"), []], hands)
    assert scored == []
    assert round_points(cfg, end, scored, Suit.GREEN) == (points, 0, points)


def test_R_6_2_basic_scoring_one_point_whatever_the_bosses() -> None:
    cfg = GameConfig(4, Scoring.BASIC, Variant.STANDARD)
    end = RoundEnd(RoundEndReason.BOSSES, (1,))
    assert round_points(cfg, end, cards("red-7 blue-7 black-7 pink-7"), Suit.GREEN) == (0, 1)
    assert game_winner(cfg, [1, 1], None) is None
    assert game_winner(cfg, [1, 2], None) == 1


def test_R_6_3_the_game_ends_at_seven_points_or_more() -> None:
    assert game_winner(FOUR_ADVANCED, [6, 5], None) is None
    assert game_winner(FOUR_ADVANCED, [9, 5], None) == 0


def test_R_6_5_three_players_a_tie_goes_to_the_left_of_the_seven_trick_taker() -> None:
    assert game_winner(THREE_BASIC, [2, 1, 2], loser=1) == 2
    assert game_winner(THREE_ADVANCED, [7, 8, 8], loser=0) == 1
    assert game_winner(THREE_ADVANCED, [7, 9, 8], loser=0) == 1  # the most points win


def test_R_7_6_both_sevens_captured_in_the_round_seal_their_suit_in_suit_order() -> None:
    bosses = [cards("red-7 pink-7"), [], cards("red-7b pink-7b green-7"), cards("blue-7")]
    assert new_seals(SEVEN_FOLLOWERS, 0, bosses, ((), ())) == [Suit.PINK, Suit.RED]
    assert new_seals(SEVEN_FOLLOWERS, 0, bosses, ([Suit.PINK], [])) == [Suit.RED]
    assert new_seals(SEVEN_FOLLOWERS, 1, bosses, ((), ())) == []


@pytest.mark.parametrize(("cfg", "sealed"), [(SEVEN_FOLLOWERS, [Suit.RED]), (SHORT, [])])
def test_R_7_8_short_a_suit_the_other_team_sealed_is_closed(
    cfg: GameConfig, sealed: list[Suit]
) -> None:
    bosses = [cards("red-7"), [], cards("red-7b"), []]
    assert new_seals(cfg, 0, bosses, ((), (Suit.RED,))) == sealed


@pytest.mark.parametrize(
    ("cfg", "sealed", "tricks", "reason"),
    [
        (SEVEN_FOLLOWERS, 6, 13, None),
        (SEVEN_FOLLOWERS, 6, 14, RoundEndReason.ALL_TRICKS),
        (SEVEN_FOLLOWERS, 7, 9, RoundEndReason.SEALED),
        (SHORT, 4, 9, RoundEndReason.SEALED),
        (SEVEN_FOLLOWERS, 4, 9, None),
    ],
)
def test_R_7_7_R_7_8_the_round_ends_after_fourteen_tricks_the_game_at_the_target(
    cfg: GameConfig, sealed: int, tricks: int, reason: RoundEndReason | None
) -> None:
    assert seven_followers_end(cfg, sealed, tricks) == reason


def test_R_7_7_a_round_is_won_by_the_teams_that_sealed_in_it() -> None:
    assert seals_result((0, 2)) == ((1,), (0, 2))
    assert seals_result([1, 1]) == ((0, 1), (1, 1))
    assert seals_result((0, 0)) == ((), (0, 0))
