"""The worked examples of the English rulebook (seeds/000_4cd7e9e53159e6e5.txt).

Seats: Alice 0, Barbara 1, Charlie 2, David 3 (clockwise); Alice and Charlie are
partners (R-2.2). The card pictures of the rulebook were lost; the cards below are
reconstructed to fit every sentence of the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.rules import PUBLIC, Scoring, Suit, card, observe, replay_checked, trick_winner
from service.rules.events import CardPlayed, RoundEndReason, TrickTaken
from tests.rules.builders import (
    boss_ids,
    game_end,
    hand,
    play_tricks,
    prepare_round,
    round_end,
    trick_winners,
)
from tests.rules.scenario import cards, new_table

ALICE, BARBARA, CHARLIE, DAVID = 0, 1, 2, 3

# --- section 6: who wins each trick (the trump suit is Purple) -----------------------

TRUMP_CARD = "purple-8"
TRICK_1 = "green-3 green-6 green-2 blue-13"  # Alice leads
TRICK_2 = "red-9 red-6 purple-5 purple-3"  # Barbara leads
BRIDGE = "black-5 black-6 black-8 black-10"  # David leads, Charlie wins (not in the book)
TRICK_3 = "green-4 purple-6 green-1 green-5"  # Charlie leads
TRICK_4 = "yellow-5 blue-12 red-11 black-11"  # Alice leads
SECTION_6 = [TRICK_1, TRICK_2, BRIDGE, TRICK_3, TRICK_4]


def _played(events: Sequence[object]) -> list[tuple[int, str]]:
    return [(e.seat, e.card.id) for e in events if isinstance(e, CardPlayed)]


def test_section_6_trick_examples_played_through_the_engine() -> None:
    table = new_table(4)
    exchanged = prepare_round(table, TRUMP_CARD, SECTION_6)
    assert exchanged.leader == ALICE  # she holds the A
    r = table.state.round
    assert r is not None and r.trump_suit is Suit.PURPLE

    # Trick 1: Barbara plays the highest green; David's blue-13 is higher but not green.
    assert not [c for c in hand(table, DAVID) if c.startswith("green-")]
    events = play_tricks(table, [TRICK_1])
    assert _played(events) == [
        (ALICE, "green-3"),
        (BARBARA, "green-6"),
        (CHARLIE, "green-2"),
        (DAVID, "blue-13"),
    ]
    assert trick_winners(events) == [BARBARA]

    # Trick 2: David plays the highest trump (purple).
    events = play_tricks(table, [TRICK_2])
    assert _played(events) == [
        (BARBARA, "red-9"),
        (CHARLIE, "red-6"),
        (DAVID, "purple-5"),
        (ALICE, "purple-3"),
    ]
    assert trick_winners(events) == [DAVID]

    # A trick not in the book, so that Charlie leads the next one.
    assert trick_winners(play_tricks(table, [BRIDGE])) == [CHARLIE]

    # Trick 3: Alice follows green with the A, which beats even David's trump.
    assert [c for c in hand(table, ALICE) if c.startswith("green-")] == ["green-1"]
    events = play_tricks(table, [TRICK_3])
    assert _played(events) == [
        (CHARLIE, "green-4"),
        (DAVID, "purple-6"),
        (ALICE, "green-1"),
        (BARBARA, "green-5"),
    ]
    assert trick_winners(events) == [ALICE]

    # Trick 4: nobody else has yellow and nobody trumps: Alice's low card wins.
    for seat in (BARBARA, CHARLIE, DAVID):
        assert not [c for c in hand(table, seat) if c.startswith("yellow-")]
    events = play_tricks(table, [TRICK_4])
    assert _played(events) == [
        (ALICE, "yellow-5"),
        (BARBARA, "blue-12"),
        (CHARLIE, "red-11"),
        (DAVID, "black-11"),
    ]
    assert trick_winners(events) == [ALICE]
    assert [e.number for e in events if isinstance(e, TrickTaken)] == [5]


def test_section_6_trick_examples_by_trick_winner() -> None:
    for leader, trick, winner in [
        (ALICE, TRICK_1, BARBARA),
        (BARBARA, TRICK_2, DAVID),
        (CHARLIE, TRICK_3, ALICE),
        (ALICE, TRICK_4, ALICE),
    ]:
        played = tuple(((leader + i) % 4, c) for i, c in enumerate(cards(trick)))
        assert trick_winner(played, Suit.PURPLE) == winner


# --- section 8: advanced scoring ------------------------------------------------------


def test_section_8_advanced_scoring_example_1_three_points() -> None:
    # Red is trump. Alice takes green-7 and yellow-7, Charlie blue-7 and red-7: their
    # team has four bosses, five stars, but the trump suit's red-7 scores 0.
    tricks = [
        "green-7 green-2 green-3 green-4",  # Alice
        "yellow-7 yellow-4 yellow-5 yellow-6",  # Alice
        "blue-7 blue-8 blue-13 blue-9",  # Charlie
        "red-12 red-6 red-7 red-9",  # Charlie leads; Alice's red-7 goes to him
    ]
    table = new_table(4, Scoring.ADVANCED)
    prepare_round(table, "red-10", tricks)
    events = play_tricks(table, tricks)
    assert trick_winners(events) == [ALICE, ALICE, CHARLIE, CHARLIE]
    view = observe(table.state, PUBLIC)
    assert sorted(view.seats[ALICE].bosses) == ["green-7", "yellow-7"]
    assert sorted(view.seats[CHARLIE].bosses) == ["blue-7", "red-7"]
    ended = round_end(events)
    assert ended.reason is RoundEndReason.BOSSES
    assert ended.winners == (0,)  # Alice and Charlie
    assert boss_ids(ended.bosses_scored) == {"green-7", "yellow-7", "red-7", "blue-7"}
    assert ended.points == (3, 0)
    assert table.state.scores == (3, 0)
    assert game_end(events) is None


def test_section_8_advanced_scoring_example_2_four_points() -> None:
    # Yellow is trump. Alice wins 3 tricks, Charlie 3, then Charlie his 4th: their team
    # has 7 tricks and loses. Barbara and David took black-7 and purple-7 and add the
    # bosses still in hands (yellow-7, red-7, pink-7): five stars, yellow-7 scores 0.
    tricks = [
        "green-7 green-2 green-3 green-4",  # Alice (1)
        "blue-13 blue-8 blue-7 blue-9",  # Alice (2)
        "black-5 black-7 black-6 black-8",  # David takes black-7
        "purple-8 purple-2 purple-7 purple-3",  # David takes purple-7
        "black-9 black-10 blue-10 black-11",  # Charlie (1)
        "blue-12 blue-11 green-5 pink-3",  # Charlie (2)
        "green-6 red-6 green-1 pink-4",  # Alice (3)
        "red-8 red-9 red-12 red-10",  # Charlie (3)
        "pink-9 pink-5 pink-6 pink-8",  # Charlie (4): seven tricks for the team
    ]
    in_hands = {ALICE: "pink-7", BARBARA: "red-7", DAVID: "yellow-7"}
    table = new_table(4, Scoring.ADVANCED)
    prepare_round(table, "yellow-10", tricks, holding=in_hands)
    events = play_tricks(table, tricks[:8])
    assert [s.tricks_won for s in observe(table.state, PUBLIC).seats] == [3, 0, 3, 2]
    events = play_tricks(table, tricks[8:])
    assert trick_winners(events) == [CHARLIE]
    view = observe(table.state, PUBLIC)
    assert [s.tricks_won for s in view.seats] == [3, 0, 4, 2]
    assert sorted(view.seats[DAVID].bosses) == ["black-7", "purple-7"]
    for seat, boss in in_hands.items():
        assert boss in hand(table, seat)
    ended = round_end(events)
    assert ended.reason is RoundEndReason.SEVEN_TRICKS
    assert ended.winners == (1,)  # Barbara and David
    assert boss_ids(ended.bosses_scored) == {
        "black-7",
        "purple-7",
        "yellow-7",
        "red-7",
        "pink-7",
    }
    assert card("green-7") not in ended.bosses_scored
    assert ended.points == (0, 4)
    assert table.state.scores == (0, 4)
    assert game_end(events) is None
    # The whole history is one the rules themselves produce.
    assert replay_checked(table.events) == table.state
