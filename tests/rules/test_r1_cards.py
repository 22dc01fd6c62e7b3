"""R-1: the cards."""

from __future__ import annotations

import pytest

from service.rules import (
    PUBLIC,
    STANDARD_DECK,
    DealRound,
    PlayCard,
    Scoring,
    Suit,
    UnknownCardError,
    Violation,
    card,
    legal_cards,
    observe,
    trick_winner,
)
from tests.rules.builders import (
    assert_refused,
    boss_ids,
    boss_trick_round,
    hand,
    play_tricks,
    prepare_round,
    round_end,
    scripted_round,
    scripted_table,
    second_round_table,
    trick_winners,
)
from tests.rules.scenario import cards, new_table

# The table of, written out independently of the engine.
RANKS: dict[str, range] = {
    "green": range(1, 8),
    "purple": range(2, 9),
    "pink": range(3, 10),
    "yellow": range(4, 11),
    "black": range(5, 12),
    "red": range(6, 13),
    "blue": range(7, 14),
}
STARS: dict[str, int] = {
    "green": 0,
    "purple": 0,
    "pink": 1,
    "yellow": 1,
    "black": 1,
    "red": 2,
    "blue": 2,
}
POINTS_3P: dict[str, int] = {
    "green": 0,
    "purple": 1,
    "pink": 1,
    "yellow": 2,
    "black": 2,
    "red": 3,
    "blue": 3,
}


def test_R_1_1_deck_has_49_cards_in_seven_suits_of_seven_consecutive_ranks() -> None:
    expected = {f"{suit}-{rank}" for suit, ranks in RANKS.items() for rank in ranks}
    deck_ids = [c.id for c in STANDARD_DECK]
    assert len(deck_ids) == 49
    assert len(set(deck_ids)) == 49
    assert set(deck_ids) == expected
    assert [s.value for s in Suit] == list(RANKS)
    for suit, ranks in RANKS.items():
        in_suit = sorted(c.rank for c in STANDARD_DECK if c.suit.value == suit)
        assert in_suit == list(ranks)


def test_R_1_1_a_deal_must_use_the_49_cards() -> None:
    # The 49 cards are exactly what a deal is made of: 4 x 12 + 1 trump card.
    table = new_table(4)
    deck = list(STANDARD_DECK)
    valid = DealRound(tuple(tuple(deck[i * 12 : (i + 1) * 12]) for i in range(4)), deck[48])
    table.do(valid)  # accepted
    assert table.state.round is not None
    assert sum(len(h) for h in table.state.round.hands) == 48

    # The trump card is also in a hand, and deck[48] is nowhere.
    assert_refused(new_table(4), DealRound(valid.hands, deck[0]), Violation.INVALID_DEAL)


def test_R_1_2_the_sevens_are_the_bosses() -> None:
    assert sorted(c.id for c in STANDARD_DECK if c.is_boss) == sorted(f"{suit}-7" for suit in RANKS)


def test_R_1_2_only_bosses_are_kept_public_and_only_bosses_score() -> None:
    # Seat 0 takes two tricks of high regular cards, then a trick of four bosses.
    table, events = scripted_table(
        4,
        "purple-2",
        [
            "blue-13 blue-12 blue-11 blue-10",
            "red-12 red-11 red-10 red-9",
            "green-7 black-7 yellow-7 pink-7",
        ],
        scoring=Scoring.ADVANCED,
    )
    assert trick_winners(events) == [0, 0, 0]
    ended = round_end(events)
    assert boss_ids(ended.bosses_scored) == {"green-7", "black-7", "yellow-7", "pink-7"}
    assert ended.points == (0 + 1 + 1 + 1, 0)
    view = observe(table.state, PUBLIC)
    assert set(view.seats[0].bosses) == {"green-7", "black-7", "yellow-7", "pink-7"}


def test_R_1_2_regular_cards_are_not_captured_as_bosses() -> None:
    table = new_table(4)
    tricks = ["blue-13 blue-12 blue-11 blue-10", "red-12 red-7 red-10 red-9"]
    prepare_round(table, "purple-2", tricks)
    play_tricks(table, tricks[:1])
    assert observe(table.state, PUBLIC).seats[0].bosses == ()
    assert observe(table.state, PUBLIC).seats[0].tricks_won == 1
    play_tricks(table, tricks[1:])
    assert observe(table.state, PUBLIC).seats[0].bosses == ("red-7",)


def test_R_1_3_the_A_beats_the_highest_trump_and_the_led_suit() -> None:
    # Round 2, led by seat 1. Trump purple: seat 2 is void in black and plays the A,
    # seat 0 is void too and plays the highest trump in play.
    table = second_round_table(4, leader=1)
    events = scripted_round(table, "purple-2", ["black-11 green-1 black-10 purple-8"])
    assert trick_winners(events) == [2]


def test_R_1_3_the_A_wins_when_a_void_player_plays_it() -> None:
    # Seat 0 leads (holds the A), loses trick 1 to seat 1, then is void in black.
    tricks = [
        "pink-3 pink-9 pink-4 pink-5",
        "black-11 black-10 purple-8 green-1",
    ]
    _, events = scripted_table(4, "purple-2", tricks)
    assert trick_winners(events) == [1, 0]


def test_R_1_3_the_A_is_a_green_card_for_following_suit() -> None:
    table = new_table(4)
    # Seat 0 holds the A as its only green card; seat 1 wins trick 1 and leads green.
    tricks = ["pink-3 pink-9 pink-4 pink-5", "green-3 green-2 green-4 green-1"]
    prepare_round(table, "purple-2", tricks, holding={1: "green-5 green-6 green-7"})
    play_tricks(table, [tricks[0], "green-3 green-2 green-4"])
    assert table.state.turn() == 0
    assert [c.id for c in legal_cards(table.state, 0)] == ["green-1"]
    off_suit = next(c for c in hand(table, 0) if not c.startswith("green-"))
    assert_refused(table, PlayCard(0, card(off_suit)), Violation.MUST_FOLLOW_SUIT)
    events = play_tricks(table, ["green-1"])
    assert trick_winners(events) == [0]
    played = tuple(zip((1, 2, 3, 0), cards("green-3 green-2 green-4 green-1"), strict=True))
    assert trick_winner(played, Suit.PURPLE) == 0


def test_R_1_4_card_ids_are_suit_dash_rank_with_the_A_as_rank_1() -> None:
    a = card("green-1")
    assert (a.suit, a.rank) == (Suit.GREEN, 1)
    top = card("blue-13")
    assert (top.suit, top.rank) == (Suit.BLUE, 13)
    assert card("purple-8").suit is Suit.PURPLE
    for bad in ("green-0", "green-8", "purple-1", "blue-14", "green-A", "orange-5", ""):
        with pytest.raises(UnknownCardError):
            card(bad)


@pytest.mark.parametrize(
    ("trump", "bosses"),
    [
        ("red-6", "green-7 purple-7 pink-7 yellow-7"),
        ("purple-2", "black-7 red-7 blue-7 green-7"),
        ("blue-8", "purple-7 black-7 red-7 pink-7"),
        ("black-5", "yellow-7 blue-7 green-7 purple-7"),
        ("green-2", "blue-7 red-7 pink-7 black-7"),
    ],
)
def test_R_1_5_four_players_count_stars_only(trump: str, bosses: str) -> None:
    table = new_table(4, Scoring.ADVANCED)
    ended = boss_trick_round(table, trump, bosses)
    expected = sum(STARS[b.split("-")[0]] for b in bosses.split())
    assert ended.winners == (0,)
    assert ended.points == (expected, 0)


@pytest.mark.parametrize(
    ("trump", "bosses"),
    [
        ("red-6", "purple-7 green-7 pink-7"),
        ("blue-8", "yellow-7 black-7 purple-7"),
        ("yellow-4", "red-7 blue-7 green-7"),
        ("black-5", "blue-7 pink-7 yellow-7"),
        ("green-2", "black-7 red-7 purple-7"),
    ],
)
def test_R_1_5_three_players_count_stars_and_three_player_icons(trump: str, bosses: str) -> None:
    table = new_table(3, Scoring.ADVANCED)
    ended = boss_trick_round(table, trump, bosses)
    expected = sum(POINTS_3P[b.split("-")[0]] for b in bosses.split())
    assert ended.winners == (0,)
    assert ended.points == (expected, 0, 0)


def test_R_1_5_ruling_the_purple_boss_has_no_star_but_a_three_player_point() -> None:
    four = new_table(4, Scoring.ADVANCED)
    three = new_table(3, Scoring.ADVANCED)
    # The same bosses except the 4-player trick has a zero-value green boss added.
    four_end = boss_trick_round(four, "red-6", "purple-7 green-7 pink-7 yellow-7")
    three_end = boss_trick_round(three, "red-6", "purple-7 green-7 pink-7")
    assert four_end.points == (2, 0)  # pink 1 + yellow 1; purple and green no star
    assert three_end.points == (2, 0, 0)  # purple 1 + pink 1; green nothing
