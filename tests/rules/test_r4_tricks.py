"""R-4: tricks: following suit, the A, trick winners, taking the trick."""

from __future__ import annotations

import pytest

from service.rules import (
    OPERATOR,
    PUBLIC,
    Action,
    PlayCard,
    SeatViewer,
    Violation,
    card,
    expected_action,
    legal_cards,
    observe,
    trick_winner,
)
from tests.rules.builders import (
    assert_refused,
    hand,
    play_tricks,
    prepare_round,
    scripted_round,
    second_round_table,
    trick_winners,
)
from tests.rules.scenario import Table, cards, new_table


def _ids(table: Table, seat: int) -> list[str]:
    return [c.id for c in legal_cards(table.state, seat)]


# --- R-4.1 ----------------------------------------------------------------------------


def test_R_4_1_the_leader_may_play_any_card() -> None:
    table = new_table(4)
    prepare_round(table, "purple-2", ["purple-8 purple-3 purple-4 purple-5"])
    leader_hand = hand(table, 0)
    assert len({card(c).suit for c in leader_hand}) > 1
    assert _ids(table, 0) == list(leader_hand)
    play_tricks(table, ["purple-8"])  # leading a trump is allowed
    assert table.state.turn() == 1


def test_R_4_1_a_player_holding_the_led_suit_must_follow_it() -> None:
    table = new_table(4)
    tricks = ["red-9 red-6 red-12 red-8"]
    prepare_round(table, "purple-2", tricks, holding={1: "purple-8 blue-13 red-10"})
    play_tricks(table, ["red-9"])
    reds = [c for c in hand(table, 1) if c.startswith("red-")]
    assert sorted(_ids(table, 1)) == sorted(reds)
    assert set(reds) >= {"red-6", "red-10"}
    for off_suit in ("purple-8", "blue-13"):  # neither a trump nor a higher card
        assert_refused(table, PlayCard(1, card(off_suit)), Violation.MUST_FOLLOW_SUIT)
    play_tricks(table, ["red-6"])  # a lower card of the led suit is fine
    assert table.state.turn() == 2


def test_R_4_1_a_player_void_in_the_led_suit_may_play_any_card() -> None:
    table = new_table(4)
    # Seat 1 shows void in red; seat 3 too.
    tricks = ["red-9 blue-13 red-12 purple-3"]
    prepare_round(table, "purple-2", tricks)
    play_tricks(table, ["red-9"])
    assert not [c for c in hand(table, 1) if c.startswith("red-")]
    assert _ids(table, 1) == list(hand(table, 1))
    events = play_tricks(table, ["blue-13", "red-12", "purple-3"])
    assert trick_winners(events) == [3]


def test_R_4_1_only_cards_in_ones_hand_can_be_played() -> None:
    table = new_table(4)
    prepare_round(table, "purple-2", ["red-9 red-6 red-12 red-8"])
    other = hand(table, 2)[0]
    assert_refused(table, PlayCard(0, card(other)), Violation.CARD_NOT_IN_HAND)
    play_tricks(table, ["red-9", "red-6", "red-12", "red-8"])
    # Seat 2 won and leads; the card it just played is gone from its hand.
    assert table.state.turn() == 2
    assert_refused(table, PlayCard(2, card("red-12")), Violation.CARD_NOT_IN_HAND)


# --- R-4.2 ----------------------------------------------------------------------------


def test_R_4_2_the_A_may_be_played_on_a_green_lead() -> None:
    table = second_round_table(4, leader=3)
    tricks = ["green-4 green-1 green-2 green-3"]
    prepare_round(table, "purple-2", tricks, holding={0: "green-6 green-7"})
    play_tricks(table, ["green-4"])
    assert set(_ids(table, 0)) == {"green-1", "green-6", "green-7"}
    events = play_tricks(table, ["green-1", "green-2", "green-3"])
    assert trick_winners(events) == [0]


def test_R_4_2_the_A_cannot_be_played_on_another_suit_while_holding_that_suit() -> None:
    table = second_round_table(4, leader=3)
    tricks = ["black-5 black-6 black-8 black-9"]
    prepare_round(table, "purple-2", tricks, holding={0: "green-1"})
    play_tricks(table, ["black-5"])
    assert table.state.turn() == 0
    assert "green-1" not in _ids(table, 0)
    assert_refused(table, PlayCard(0, card("green-1")), Violation.MUST_FOLLOW_SUIT)


def test_R_4_2_the_A_may_be_played_when_void_in_the_led_suit() -> None:
    table = second_round_table(4, leader=3)
    tricks = ["black-5 green-1 black-8 black-9"]
    prepare_round(table, "purple-2", tricks)
    play_tricks(table, ["black-5"])
    assert "green-1" in _ids(table, 0)
    events = play_tricks(table, ["green-1", "black-8", "black-9"])
    assert trick_winners(events) == [0]


def test_R_4_2_the_A_may_be_led() -> None:
    table = second_round_table(4, leader=1)
    events = scripted_round(table, "purple-2", ["green-1 green-7 purple-8 green-2"])
    # Seat 3 is void in green and trumps; the A still wins.
    assert trick_winners(events) == [1]


def test_R_4_2_a_green_lead_obliges_the_holder_of_only_the_A_to_play_it() -> None:
    table = second_round_table(4, leader=3)
    tricks = ["green-4 green-1 green-2 green-3"]
    prepare_round(table, "purple-2", tricks, holding={3: "green-5 green-6 green-7"})
    play_tricks(table, ["green-4"])
    assert _ids(table, 0) == ["green-1"]
    off = next(c for c in hand(table, 0) if c != "green-1")
    assert_refused(table, PlayCard(0, card(off)), Violation.MUST_FOLLOW_SUIT)


# --- R-4.3 ----------------------------------------------------------------------------

# (players, trump card, trick from seat 0 in play order, winner)
TRICKS: list[tuple[int, str, str, int]] = [
    (4, "purple-2", "green-3 green-6 green-2 blue-13", 1),  # highest of the led suit
    (4, "purple-2", "yellow-5 blue-13 red-12 black-11", 0),  # nobody followed
    (4, "purple-2", "red-9 red-6 purple-3 red-12", 2),  # a low trump beats the led suit
    (4, "purple-2", "red-9 purple-3 purple-5 red-12", 2),  # the highest trump
    (4, "purple-2", "red-9 purple-3 red-12 red-11", 1),  # a later led card does not beat it
    (4, "purple-2", "purple-3 purple-8 purple-5 red-12", 1),  # trumps led
    (4, "purple-2", "black-5 green-1 purple-8 black-11", 1),  # the A beats trumps
    (4, "purple-2", "green-1 green-7 purple-8 green-2", 0),  # the A led
    (4, "red-9", "black-5 red-6 black-11 black-10", 1),  # the trump card's suit is trump
    (4, "green-2", "black-8 green-3 black-11 green-7", 3),  # green trumps
    (4, "green-2", "green-3 green-7 green-1 blue-13", 2),  # the A in the trump suit
    (3, "purple-2", "red-9 purple-3 red-12", 1),
    (3, "purple-2", "red-9 red-6 red-12", 2),
    (3, "blue-8", "blue-7 blue-13 green-1", 2),
    (3, "blue-8", "black-11 yellow-10 red-12", 0),
]


@pytest.mark.parametrize(("players", "trump", "trick", "winner"), TRICKS)
def test_R_4_3_trick_winner_through_play(players: int, trump: str, trick: str, winner: int) -> None:
    table = second_round_table(players, leader=0)
    events = scripted_round(table, trump, [trick])
    assert trick_winners(events) == [winner]


@pytest.mark.parametrize(("players", "trump", "trick", "winner"), TRICKS)
def test_R_4_3_trick_winner_function(players: int, trump: str, trick: str, winner: int) -> None:
    played = tuple(enumerate(cards(trick)))
    assert trick_winner(played, card(trump).suit) == winner
    # The same trick led by another seat: the winner moves with the cards.
    rotated = tuple(((seat + 2) % players, c) for seat, c in played)
    assert trick_winner(rotated, card(trump).suit) == (winner + 2) % players


# --- R-4.4 ----------------------------------------------------------------------------


def test_R_4_4_the_winner_takes_the_trick_shows_its_bosses_and_leads() -> None:
    table = second_round_table(4, leader=0)
    tricks = ["red-7 black-7 purple-3 red-12", "yellow-4 yellow-5 yellow-6 yellow-8"]
    prepare_round(table, "purple-2", tricks)
    events = play_tricks(table, tricks[:1])
    assert trick_winners(events) == [2]
    for view in (observe(table.state, PUBLIC), observe(table.state, SeatViewer(1))):
        assert [s.tricks_won for s in view.seats] == [0, 0, 1, 0]
        # Bosses played by others (seats 0 and 1) are kept face up by the winner.
        assert sorted(view.seats[2].bosses) == ["black-7", "red-7"]
        assert [s.bosses for s in view.seats if s.seat != 2] == [(), (), ()]
        assert view.round is not None
        assert view.round.trick == ()
        assert view.round.last_trick is not None
        assert view.round.last_trick.winner == 2
        assert [(p.seat, p.card) for p in view.round.last_trick.cards] == [
            (0, "red-7"),
            (1, "black-7"),
            (2, "purple-3"),
            (3, "red-12"),
        ]
        assert view.round.turn == 2
    assert observe(table.state, OPERATOR).lead_holder == 2
    assert expected_action(table.state, 2) is Action.PLAY
    for seat in (0, 1, 3):
        assert expected_action(table.state, seat) is None
        assert_refused(table, PlayCard(seat, card(hand(table, seat)[0])), Violation.NOT_YOUR_TURN)
    events = play_tricks(table, tricks[1:])
    assert trick_winners(events) == [1]
    assert [s.tricks_won for s in observe(table.state, PUBLIC).seats] == [0, 1, 1, 0]
