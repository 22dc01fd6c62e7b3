"""docs/rules.md R-7: the "Seven Followers" variants (four players, 56 cards, seals).

Source: the French rulebook, section 9 (``seeds/004_5401ccc37f9dae93.txt``); identifiers
and the pass order from docs/api.md "The Seven Followers variants". Every behaviour is
checked through the public engine API: the events ``decide`` produces, the folded
state, and the views ``observe`` gives.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.rules import (
    INITIAL,
    PUBLIC,
    SEVEN_FOLLOWERS_DECK,
    STANDARD_DECK,
    CreateGame,
    DealRound,
    Event,
    GameConfig,
    GameState,
    PassCards,
    Phase,
    PlayCard,
    PresetDeal,
    RoundEndReason,
    RuleViolationError,
    Scoring,
    SeatViewer,
    Suit,
    Variant,
    Violation,
    card,
    deal_due,
    decide,
    legal_cards,
    observe,
    trick_winner,
)
from service.rules.events import GameEnded, PassesExchanged, RoundEnded, SuitSealed, TrickTaken
from tests.rules.scenario import Table, cards, dealt_table, new_table
from tests.rules.sf_builders import (
    HAND_SIZE,
    PLAYERS,
    SF_IDS,
    ScriptedRound,
    SuitPlan,
    Trick,
    complete_hands,
    expected_winner,
    pass_all,
    play_rest_of_round,
    play_trick,
    play_tricks,
    scripted_round,
    sevens,
    sf_table,
    start_round,
    team_of,
    unpass,
)

SF = Variant.SEVEN_FOLLOWERS
SHORT = Variant.SEVEN_FOLLOWERS_SHORT
GREEN, PURPLE, PINK, YELLOW, BLACK, RED, BLUE = (
    Suit.GREEN,
    Suit.PURPLE,
    Suit.PINK,
    Suit.YELLOW,
    Suit.BLACK,
    Suit.RED,
    Suit.BLUE,
)

# --- scripted rounds (see sf_builders: (suit, winner of the 7 trick, winner of the 7b one))

# Team 0 seals green, purple, pink, yellow; team 1 seals black; red and blue are split.
FULL_ROUND_1: tuple[SuitPlan, ...] = (
    (GREEN, 2, 0),
    (PURPLE, 0, 2),
    (PINK, 2, 2),
    (YELLOW, 0, 0),
    (BLACK, 1, 3),
    (RED, 0, 1),
    (BLUE, 3, 2),
)
# Team 0 takes green again (already sealed), then black, red, blue: its 7th seal comes
# with trick 8, six tricks before the end of the round.
FULL_ROUND_2: tuple[SuitPlan, ...] = (
    (GREEN, 0, 0),
    (BLACK, 2, 0),
    (RED, 0, 2),
    (BLUE, 2, 2),
    (PURPLE, 1, 3),
    (PINK, 1, 1),
    (YELLOW, 3, 3),
)
# Short variant: team 0 seals green, purple, pink (3 seals); team 1 seals black first.
SHORT_ROUND_1: tuple[SuitPlan, ...] = (
    (GREEN, 0, 2),
    (PURPLE, 2, 0),
    (PINK, 0, 0),
    (BLACK, 3, 1),
    (YELLOW, 0, 1),
    (RED, 3, 2),
    (BLUE, 1, 0),
)
# Team 1 takes both green 7s, team 0 both black 7s (each sealed first by the other
# team), then team 0 takes both yellow 7s (trick 6).
SHORT_ROUND_2: tuple[SuitPlan, ...] = (
    (GREEN, 1, 3),
    (BLACK, 0, 2),
    (YELLOW, 2, 0),
    (PURPLE, 1, 1),
    (PINK, 3, 3),
    (RED, 0, 0),
    (BLUE, 2, 2),
)


def _violation(state: GameState, command: CreateGame | DealRound | PassCards | PlayCard) -> str:
    with pytest.raises(RuleViolationError) as info:
        decide(state, command)
    return info.value.code


def _sealed(events: tuple[Event, ...] | list[Event]) -> list[tuple[int, Suit]]:
    return [(e.team, e.suit) for e in events if isinstance(e, SuitSealed)]


def _round_ends(events: tuple[Event, ...] | list[Event]) -> list[RoundEnded]:
    return [e for e in events if isinstance(e, RoundEnded)]


def _game_ends(events: tuple[Event, ...] | list[Event]) -> list[GameEnded]:
    return [e for e in events if isinstance(e, GameEnded)]


def _winner(events: tuple[Event, ...]) -> int:
    taken = [e for e in events if isinstance(e, TrickTaken)]
    assert len(taken) == 1
    return taken[0].winner


def _hand_ids(table: Table, seat: int) -> set[str]:
    r = table.state.round
    assert r is not None
    return {c.id for c in r.hands[seat]}


def _play_round(table: Table, rnd: ScriptedRound) -> list[tuple[Event, ...]]:
    return play_tricks(table, rnd.tricks)


# ====================================================================================
# 56 cards, the second 7 of each suit is `<suit>-7b`, both 7s are bosses
# ====================================================================================


def test_R_7_1_deck_is_the_49_plus_a_second_seven_per_suit() -> None:
    ids = [c.id for c in SEVEN_FOLLOWERS_DECK]
    assert len(ids) == 56
    assert len(set(ids)) == 56
    standard = {c.id for c in STANDARD_DECK}
    assert len(standard) == 49
    assert set(ids) - standard == {f"{s}-7b" for s in Suit}
    assert standard <= set(ids)
    assert not any(i.endswith("-7b") for i in standard)


@pytest.mark.parametrize("suit", list(Suit))
def test_R_7_1_both_sevens_are_bosses_of_their_suit(suit: Suit) -> None:
    first, second = (card(i) for i in sevens(suit))
    for c in (first, second):
        assert c.suit is suit
        assert c.rank == 7
        assert c.is_boss
    assert first is not second
    bosses = [c.id for c in SEVEN_FOLLOWERS_DECK if c.suit is suit and c.is_boss]
    assert sorted(bosses) == sorted(sevens(suit))


@pytest.mark.parametrize("variant", [SF, SHORT])
def test_R_7_1_seven_followers_games_use_the_56_card_deck(variant: Variant) -> None:
    cfg = GameConfig(4, Scoring.BASIC, variant)
    assert {c.id for c in cfg.deck} == set(SF_IDS)
    assert GameConfig(4, Scoring.BASIC, Variant.STANDARD).deck == STANDARD_DECK


def test_R_7_1_captured_second_seven_is_a_public_boss() -> None:
    rnd = scripted_round(FULL_ROUND_1)
    table = sf_table()
    start_round(table, rnd)
    play_tricks(table, rnd.tricks[:2])  # green: 7 to seat 2, 7b to seat 0
    seats = observe(table.state, PUBLIC).seats
    assert "green-7b" in seats[0].bosses
    assert "green-7" in seats[2].bosses
    assert seats[1].bosses == ()
    assert seats[3].bosses == ()


def test_R_7_1_standard_game_refuses_a_second_seven_in_a_deal() -> None:
    table = new_table(4)
    ids = [c.id for c in STANDARD_DECK]
    trump = ids.pop()  # blue-13
    ids[ids.index("pink-7")] = "pink-7b"
    hands = tuple(cards(" ".join(ids[i * 12 : (i + 1) * 12])) for i in range(4))
    assert _violation(table.state, DealRound(hands, card(trump))) == Violation.INVALID_DEAL
    # ... while the same deal with the real pink-7 is accepted.
    ids[ids.index("pink-7b")] = "pink-7"
    hands = tuple(cards(" ".join(ids[i * 12 : (i + 1) * 12])) for i in range(4))
    table.do(DealRound(hands, card(trump)))
    assert table.state.phase is Phase.PASSING


# ====================================================================================
# 14 cards each, no trump card, one card passed to each other seat
# ====================================================================================


def _plain_deal() -> tuple[tuple[str, ...], ...]:
    return tuple(SF_IDS[i * 14 : (i + 1) * 14] for i in range(4))


@pytest.mark.parametrize("variant", [SF, SHORT])
def test_R_7_2_deal_gives_fourteen_cards_each_and_no_trump_card(variant: Variant) -> None:
    table = dealt_table(_plain_deal(), None, variant=variant)
    r = table.state.round
    assert r is not None
    assert [len(h) for h in r.hands] == [HAND_SIZE] * 4
    assert r.trump is None
    view = observe(table.state, PUBLIC)
    assert view.status == "passing"
    assert view.round is not None
    assert view.round.trump is None
    assert [s.hand_size for s in view.seats] == [14] * 4


@pytest.mark.parametrize("variant", [SF, SHORT])
def test_R_7_2_deal_with_a_trump_card_is_refused(variant: Variant) -> None:
    table = sf_table(variant)
    hands = [list(h) for h in _plain_deal()]
    trump = hands[3].pop()  # 14 + 14 + 14 + 13 cards and a turned-up card: 56 in all
    command = DealRound(tuple(cards(" ".join(h)) for h in hands), card(trump))
    assert _violation(table.state, command) == Violation.INVALID_DEAL
    # Four full hands plus a trump card (necessarily a repeated card) is refused too.
    full = tuple(cards(" ".join(h)) for h in _plain_deal())
    assert _violation(table.state, DealRound(full, card("green-1"))) == Violation.INVALID_DEAL
    assert table.state.phase is Phase.DEALING


def test_R_7_2_preset_deal_with_a_trump_card_is_refused_at_creation() -> None:
    hands = tuple(cards(" ".join(h)) for h in _plain_deal())
    good = PresetDeal(hands, None)
    bad = PresetDeal(hands, card("green-1"))
    create = CreateGame(4, Scoring.BASIC, SF, None, (good, bad))
    assert _violation(INITIAL, create) == Violation.INVALID_DEAL
    decide(INITIAL, CreateGame(4, Scoring.BASIC, SF, None, (good,)))  # accepted


def test_R_7_2_standard_game_refuses_a_deal_without_trump_card() -> None:
    table = new_table(4)
    ids = [c.id for c in STANDARD_DECK]
    hands = tuple(cards(" ".join(ids[i * 12 : (i + 1) * 12])) for i in range(4))
    assert _violation(table.state, DealRound(hands, None)) == Violation.INVALID_DEAL


def test_R_7_2_standard_shaped_deal_is_refused() -> None:
    table = sf_table()
    ids = [c.id for c in STANDARD_DECK]
    hands = tuple(cards(" ".join(ids[i * 12 : (i + 1) * 12])) for i in range(4))
    assert _violation(table.state, DealRound(hands, None)) == Violation.INVALID_DEAL
    assert _violation(table.state, DealRound(hands, card("blue-13"))) == Violation.INVALID_DEAL


def test_R_7_2_each_seat_passes_one_card_to_each_other_seat_in_target_order() -> None:
    dealt = _plain_deal()
    table = dealt_table(dealt, None, variant=SF)
    passes = [tuple(h[-3:]) for h in dealt]  # the last three cards of each hand
    for seat, chosen in enumerate(passes):
        table.pass_cards(seat, " ".join(chosen))
    exchanged = [e for e in table.events if isinstance(e, PassesExchanged)]
    assert len(exchanged) == 1
    moves = {(p.giver, p.receiver, p.card.id if p.card else None) for p in exchanged[0].passes}
    expected = {
        (giver, (giver + offset) % 4, cid)
        for giver, chosen in enumerate(passes)
        for offset, cid in enumerate(chosen, start=1)
    }
    assert moves == expected
    for seat in range(4):
        incoming = {passes[(seat - offset) % 4][offset - 1] for offset in (1, 2, 3)}
        assert _hand_ids(table, seat) == (set(dealt[seat]) - set(passes[seat])) | incoming
        view = observe(table.state, SeatViewer(seat))
        assert view.pass_ is not None
        assert view.pass_.given == passes[seat]
        assert view.pass_.to == ((seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4)
        assert set(view.pass_.received) == incoming
        assert len(view.hand) == 14


def test_R_7_2_nothing_moves_until_all_four_have_passed() -> None:
    dealt = _plain_deal()
    table = dealt_table(dealt, None, variant=SF)
    for seat in (2, 0, 3):
        events = table.pass_cards(seat, " ".join(dealt[seat][-3:]))
        assert not any(isinstance(e, PassesExchanged) for e in events)
        for s in range(4):
            assert _hand_ids(table, s) == set(dealt[s])
        r = table.state.round
        assert r is not None and r.received is None
        assert table.state.phase is Phase.PASSING
        assert table.state.turn() is None
        view = observe(table.state, SeatViewer(seat))
        assert view.pass_ is not None and view.pass_.received == (None, None, None)
    # The seat holding the A cannot start playing before the exchange.
    assert _violation(table.state, PlayCard(0, card("green-1"))) == Violation.WRONG_PHASE
    assert observe(table.state, SeatViewer(1)).action == "pass"
    events = table.pass_cards(1, " ".join(dealt[1][-3:]))
    assert any(isinstance(e, PassesExchanged) for e in events)
    assert table.state.phase is Phase.PLAYING
    assert all(_hand_ids(table, s) != set(dealt[s]) for s in range(4))


@pytest.mark.parametrize("size", [2, 4])
def test_R_7_2_a_pass_is_exactly_three_cards(size: int) -> None:
    dealt = _plain_deal()
    table = dealt_table(dealt, None, variant=SF)
    command = PassCards(1, cards(" ".join(dealt[1][:size])))
    assert _violation(table.state, command) == Violation.INVALID_PASS
    repeated = PassCards(1, cards(f"{dealt[1][0]} {dealt[1][0]} {dealt[1][1]}"))
    assert _violation(table.state, repeated) == Violation.INVALID_PASS
    foreign = PassCards(1, cards(f"{dealt[1][0]} {dealt[1][1]} {dealt[2][0]}"))
    assert _violation(table.state, foreign) == Violation.CARD_NOT_IN_HAND


@given(
    order=st.permutations(SF_IDS),
    picks=st.lists(
        st.lists(st.integers(0, 13), min_size=3, max_size=3, unique=True),
        min_size=4,
        max_size=4,
    ),
)
def test_R_7_2_passes_arrive_at_seat_plus_one_two_three_for_any_deal(
    order: list[str], picks: list[list[int]]
) -> None:
    dealt = [order[i * 14 : (i + 1) * 14] for i in range(4)]
    table = dealt_table(dealt, None, variant=SF)
    given = [[dealt[s][i] for i in picks[s]] for s in range(4)]
    for seat in range(4):
        table.pass_cards(seat, " ".join(given[seat]))
    for seat in range(4):
        incoming = {given[(seat - k) % 4][k - 1] for k in (1, 2, 3)}
        assert _hand_ids(table, seat) == (set(dealt[seat]) - set(given[seat])) | incoming


# ====================================================================================
# the holder of the A after the passes leads, every round
# ====================================================================================


def test_R_7_3_holder_of_green_1_leads_when_it_is_not_passed() -> None:
    dealt = complete_hands(["", "", "green-1", ""])
    table = dealt_table(dealt, None, variant=SF)
    for seat in range(4):
        table.pass_cards(seat, " ".join(dealt[seat][-3:]))
    exchanged = [e for e in table.events if isinstance(e, PassesExchanged)]
    assert exchanged[0].leader == 2
    assert table.state.turn() == 2
    assert observe(table.state, SeatViewer(2)).action == "play"
    assert _violation(table.state, PlayCard(0, card(dealt[0][0]))) == Violation.NOT_YOUR_TURN


@pytest.mark.parametrize("position", [0, 1, 2])
def test_R_7_3_receiver_of_a_passed_green_1_leads(position: int) -> None:
    dealt = complete_hands(["", "", "", "green-1"])
    table = dealt_table(dealt, None, variant=SF)
    for seat in range(3):
        table.pass_cards(seat, " ".join(dealt[seat][-3:]))
    others = [c for c in dealt[3] if c != "green-1"][:2]
    given = [*others[:position], "green-1", *others[position:]]
    table.pass_cards(3, " ".join(given))
    receiver = (3 + 1 + position) % 4
    assert "green-1" in _hand_ids(table, receiver)
    assert table.state.turn() == receiver
    view = observe(table.state, PUBLIC)
    assert view.round is not None and view.round.leader == receiver


def test_R_7_3_holder_of_green_1_leads_every_round() -> None:
    first = scripted_round(FULL_ROUND_1)  # A with seat 2; seat 2 takes the last trick
    second = scripted_round(
        [
            (GREEN, 3, 1),
            (PURPLE, 0, 0),
            (PINK, 1, 1),
            (YELLOW, 2, 2),
            (BLACK, 0, 0),
            (RED, 1, 1),
            (BLUE, 3, 3),
        ]
    )
    assert first.holder_of_a == 2
    assert second.holder_of_a == 3
    # With the default passes the A was dealt to the seat before its holder.
    assert "green-1" in second.dealt[2]
    table = sf_table()
    start_round(table, first)
    assert table.state.turn() == 2
    _play_round(table, first)
    assert table.state.lead_holder == 2  # won the last trick of round 1
    start_round(table, second)
    assert table.state.turn() == 3
    r = table.state.round
    assert r is not None and r.number == 2 and r.leader == 3


# ====================================================================================
# the first card played in a round sets the round's trump suit
# ====================================================================================

# After the passes: seat 3 holds all eight purple cards, so seats 0-2 are void in it.
TRUMP_HANDS = complete_hands(
    [
        "green-1 blue-8 pink-9",
        "blue-9 blue-7",
        "blue-10 blue-7b black-11",
        "blue-11 purple-2 purple-3 purple-4 purple-5 purple-6 purple-7 purple-7b purple-8",
    ]
)


def _trump_table(variant: Variant = SF, seat1_seven: str = "blue-7") -> Table:
    """Round 1 of TRUMP_HANDS (seat 1 and 2 hold the two blue 7s, in either order)."""
    other = "blue-7b" if seat1_seven == "blue-7" else "blue-7"
    hands = [list(h) for h in TRUMP_HANDS]
    hands[1][hands[1].index("blue-7")] = seat1_seven
    hands[2][hands[2].index("blue-7b")] = other
    dealt, passes = unpass(hands)
    table = sf_table(variant)
    table.deal(dealt, None)
    pass_all(table, passes)
    assert table.state.turn() == 0
    return table


def test_R_7_4_trump_suit_is_unset_until_the_first_card() -> None:
    table = sf_table()
    dealt, passes = unpass(TRUMP_HANDS)
    table.deal(dealt, None)
    r = table.state.round
    assert r is not None and r.trump_suit is None
    pass_all(table, passes)
    r = table.state.round
    assert r is not None and r.trump_suit is None
    view = observe(table.state, PUBLIC)
    assert view.round is not None
    assert view.round.trump is None and view.round.trump_suit is None
    table.play(0, "blue-8")
    r = table.state.round
    assert r is not None and r.trump_suit is Suit.BLUE
    view = observe(table.state, PUBLIC)
    assert view.round is not None
    assert view.round.trump_suit == "blue" and view.round.trump is None


def test_R_7_4_first_suit_stays_trump_for_the_rest_of_the_round() -> None:
    table = _trump_table()
    assert _winner(play_trick(table, ("blue-8", "blue-9", "blue-10", "blue-11"))) == 3
    # Purple led; seat 1 (void) trumps with its low blue 7 and beats purple-8, pink-9
    # and black-11, all of higher rank.
    events = play_trick(table, ("pink-9", "blue-7", "black-11", "purple-8"))
    assert _winner(events) == 1
    r = table.state.round
    assert r is not None and r.trump_suit is Suit.BLUE
    # Every later trick, whatever is led, is decided with blue as trump.
    rest = play_rest_of_round(table)
    assert len(rest) == 12
    for trick, winner in rest:
        assert winner == expected_winner(trick, Suit.BLUE), trick
    assert any(card(t[0][1]).suit is not Suit.BLUE for t, _ in rest)  # other suits led
    assert table.state.results[0].trump_suit is Suit.BLUE
    assert observe(table.state, PUBLIC).rounds[0].trump_suit == "blue"


def test_R_7_4_a_later_round_gets_its_own_trump_suit() -> None:
    table = _trump_table()
    play_trick(table, ("blue-8", "blue-9", "blue-10", "blue-11"))
    play_rest_of_round(table)
    assert deal_due(table.state) == 2
    # Round 2: seat 1 gets the A and leads pink.
    hands = complete_hands(["pink-3", "green-1 pink-4", "pink-5", "pink-6"])
    dealt, passes = unpass(hands)
    table.deal(dealt, None)
    r = table.state.round
    assert r is not None and r.number == 2 and r.trump_suit is None
    pass_all(table, passes)
    assert table.state.turn() == 1
    r = table.state.round
    assert r is not None and r.trump_suit is None
    events = play_trick(table, ("pink-3", "pink-4", "pink-5", "pink-6"))
    assert _winner(events) == 3
    r = table.state.round
    assert r is not None and r.trump_suit is Suit.PINK
    assert table.state.results[0].trump_suit is Suit.BLUE
    rest = play_rest_of_round(table)
    for trick, winner in rest:
        assert winner == expected_winner(trick, Suit.PINK), trick
    assert table.state.results[1].trump_suit is Suit.PINK


# ====================================================================================
# follow suit as R-4; of two 7s of a suit, the one played first wins
# ====================================================================================


def test_R_7_5_players_must_follow_the_led_suit() -> None:
    table = _trump_table()
    table.play(0, "blue-8")
    off_suit = sorted(c for c in _hand_ids(table, 1) if not c.startswith("blue-"))[0]
    assert _violation(table.state, PlayCard(1, card(off_suit))) == Violation.MUST_FOLLOW_SUIT
    legal = {c.id for c in legal_cards(table.state, 1)}
    assert legal == {c for c in _hand_ids(table, 1) if c.startswith("blue-")}
    table.play(1, "blue-9")
    table.play(2, "blue-10")
    table.play(3, "blue-11")
    # Seat 3 leads purple; seats 0-2 hold none and may play anything (the A included).
    table.play(3, "purple-2")
    assert {c.id for c in legal_cards(table.state, 0)} == _hand_ids(table, 0)
    assert "green-1" in _hand_ids(table, 0)


def test_R_7_5_the_a_cannot_be_played_while_holding_the_led_suit() -> None:
    partial = ["pink-6 purple-2", "green-1 pink-3 purple-3", "pink-4", "pink-5"]
    dealt, passes = unpass(complete_hands(partial))
    table = sf_table()
    table.deal(dealt, None)
    pass_all(table, passes)
    assert table.state.turn() == 1
    table.play(1, "pink-3")
    table.play(2, "pink-4")
    table.play(3, "pink-5")
    table.play(0, "pink-6")
    assert table.state.turn() == 0
    table.play(0, "purple-2")
    assert _violation(table.state, PlayCard(1, card("green-1"))) == Violation.MUST_FOLLOW_SUIT
    legal = {c.id for c in legal_cards(table.state, 1)}
    assert "green-1" not in legal
    assert "purple-3" in legal


# Seat 0 holds the A; trick 1 is led green (green is trump), seat 3 wins it and leads
# pink in trick 2, so the 7s below meet as the led suit, not as trump.
@pytest.mark.parametrize(
    ("trick2", "winner"),
    [
        # seat order 0, 1, 2, 3; play order 3, 0, 1, 2
        (("pink-7", "pink-7b", "pink-4", "pink-3"), 0),
        (("pink-7b", "pink-7", "pink-4", "pink-3"), 0),
        (("pink-4", "pink-3", "pink-7b", "pink-7"), 3),
        (("pink-3", "pink-7", "pink-4", "pink-7b"), 3),
    ],
)
def test_R_7_5_first_played_seven_beats_second_in_the_led_suit(trick2: Trick, winner: int) -> None:
    partial = [f"green-1 green-2 {trick2[0]}", f"green-3 {trick2[1]}"]
    partial += [f"green-4 {trick2[2]}", f"green-5 {trick2[3]}"]
    dealt, passes = unpass(complete_hands(partial))
    table = sf_table()
    table.deal(dealt, None)
    pass_all(table, passes)
    assert _winner(play_trick(table, ("green-2", "green-3", "green-4", "green-5"))) == 3
    events = play_trick(table, trick2)
    r = table.state.round
    assert r is not None and r.trump_suit is Suit.GREEN
    assert _winner(events) == winner
    assert set(sevens(PINK)) <= {c.id for c in r.bosses[winner]}
    # Both 7s of pink in one trick: the winner's team seals pink at once.
    assert _sealed(events) == [(team_of(winner), PINK)]


@pytest.mark.parametrize("seat1_seven", ["blue-7", "blue-7b"])
def test_R_7_5_first_played_seven_beats_second_as_trump(seat1_seven: str) -> None:
    table = _trump_table(seat1_seven=seat1_seven)
    play_trick(table, ("blue-8", "blue-9", "blue-10", "blue-11"))
    seat2_seven = "blue-7b" if seat1_seven == "blue-7" else "blue-7"
    # Purple led by seat 3; seats 1 and 2 (void) both trump with a blue 7.
    events = play_trick(table, ("pink-9", seat1_seven, seat2_seven, "purple-8"))
    assert _winner(events) == 1
    assert _sealed(events) == [(1, BLUE)]


def test_R_7_5_the_a_beats_both_sevens_of_the_trump_suit() -> None:
    table = _trump_table()
    play_trick(table, ("blue-8", "blue-9", "blue-10", "blue-11"))
    events = play_trick(table, ("green-1", "blue-7", "blue-7b", "purple-8"))
    assert _winner(events) == 0
    assert _sealed(events) == [(0, BLUE)]


@pytest.mark.parametrize(
    ("trick", "trump", "winner"),
    [
        # the two 7s of the led suit, either id first
        ([(0, "red-7"), (1, "red-7b"), (2, "red-6"), (3, "green-6")], Suit.BLUE, 0),
        ([(2, "red-7b"), (3, "red-7"), (0, "red-6"), (1, "pink-3")], Suit.BLUE, 2),
        ([(1, "red-6"), (2, "red-7b"), (3, "red-8"), (0, "red-7")], Suit.BLUE, 3),
        ([(1, "red-6"), (2, "red-7b"), (3, "green-6"), (0, "red-7")], Suit.BLUE, 2),
        # the two 7s of the trump suit on another led suit
        ([(0, "pink-9"), (1, "blue-7b"), (2, "blue-7"), (3, "pink-3")], Suit.BLUE, 1),
        ([(0, "pink-9"), (1, "blue-7"), (2, "blue-7b"), (3, "pink-3")], Suit.BLUE, 1),
        ([(0, "blue-7b"), (1, "pink-9"), (2, "blue-8"), (3, "blue-7")], Suit.BLUE, 2),
        # a trump beats the led suit's 7s; the A beats everything
        ([(0, "red-7"), (1, "red-7b"), (2, "blue-8"), (3, "red-6")], Suit.BLUE, 2),
        ([(0, "blue-7"), (1, "blue-7b"), (2, "green-1"), (3, "blue-13")], Suit.BLUE, 2),
        ([(0, "green-7"), (1, "green-7b"), (2, "green-6"), (3, "green-1")], Suit.GREEN, 3),
    ],
)
def test_R_7_5_trick_winner_with_two_sevens(
    trick: list[tuple[int, str]], trump: Suit, winner: int
) -> None:
    played = [(seat, card(cid)) for seat, cid in trick]
    assert trick_winner(played, trump) == winner
    assert expected_winner(trick, trump) == winner  # the oracle agrees with the rules


# ====================================================================================
# both 7s of a suit captured by one team in one round seal the suit
# ====================================================================================


def test_R_7_6_capturing_both_sevens_in_one_round_seals_the_suit() -> None:
    rnd = scripted_round(FULL_ROUND_1)
    table = sf_table()
    start_round(table, rnd)
    per_trick = _play_round(table, rnd)
    sealed_at = {n + 1: _sealed(ev) for n, ev in enumerate(per_trick) if _sealed(ev)}
    # Each seal comes with the trick that brings the team's second 7 of the suit; the
    # two captures may be by the same seat or by partners.
    assert sealed_at == {
        2: [(0, GREEN)],
        4: [(0, PURPLE)],
        6: [(0, PINK)],
        8: [(0, YELLOW)],
        10: [(1, BLACK)],
    }
    assert table.state.seals == ((GREEN, PURPLE, PINK, YELLOW), (BLACK,))
    assert table.state.scores == (4, 1)
    view = observe(table.state, PUBLIC)
    assert view.seals == (("green", "purple", "pink", "yellow"), ("black",))
    assert view.scores == (4, 1)


def test_R_7_6_score_counts_seals_as_they_happen() -> None:
    rnd = scripted_round(FULL_ROUND_1)
    table = sf_table()
    start_round(table, rnd)
    assert table.state.scores == (0, 0)
    assert observe(table.state, PUBLIC).seals == ((), ())
    play_tricks(table, rnd.tricks[:1])
    assert table.state.scores == (0, 0)  # one green 7 only
    play_tricks(table, rnd.tricks[1:2])
    assert table.state.scores == (1, 0)
    assert table.state.seals == ((GREEN,), ())


def _team_bosses(table: Table, team: int, suit: Suit) -> set[str]:
    r = table.state.round
    assert r is not None
    return {c.id for s in (team, team + 2) for c in r.bosses[s] if c.suit is suit}


def test_R_7_6_sevens_captured_in_different_rounds_do_not_seal() -> None:
    first = scripted_round(FULL_ROUND_1)  # red: team 0 takes red-7, team 1 red-7b
    second = scripted_round(
        [
            (RED, 3, 2),
            (GREEN, 1, 1),
            (PURPLE, 3, 3),
            (PINK, 1, 3),
            (YELLOW, 3, 1),
            (BLACK, 0, 1),
            (BLUE, 0, 1),
        ]
    )  # red: team 1 takes red-7, team 0 red-7b
    table = sf_table()
    start_round(table, first)
    _play_round(table, first)
    assert _team_bosses(table, 0, RED) == {"red-7"}
    assert _team_bosses(table, 1, RED) == {"red-7b"}
    start_round(table, second)
    _play_round(table, second)
    assert _team_bosses(table, 0, RED) == {"red-7b"}
    assert _team_bosses(table, 1, RED) == {"red-7"}
    assert len(table.state.results) == 2
    assert all(suit is not RED for _, suit in _sealed(table.events))
    assert RED not in table.state.seals[0]
    assert RED not in table.state.seals[1]
    # The other suits behaved as scripted, so the round really was played out.
    assert table.state.seals == (
        (GREEN, PURPLE, PINK, YELLOW),
        (GREEN, PURPLE, PINK, YELLOW, BLACK),
    )


def test_R_7_6_seals_persist_across_rounds() -> None:
    first = scripted_round(FULL_ROUND_1)
    second = scripted_round(FULL_ROUND_2)
    table = sf_table()
    start_round(table, first)
    _play_round(table, first)
    after_first = table.state.seals
    start_round(table, second)
    assert table.state.seals == after_first
    assert table.state.scores == (4, 1)
    assert observe(table.state, PUBLIC).seals == (
        ("green", "purple", "pink", "yellow"),
        ("black",),
    )
    events = play_tricks(table, second.tricks[:2])  # team 0 takes both green 7s again
    assert _sealed([e for ev in events for e in ev]) == []  # sealed once for the game
    assert table.state.scores == (4, 1)
    assert table.state.seals[0] == (GREEN, PURPLE, PINK, YELLOW)


# ====================================================================================
# the round ends after 14 tricks; the game ends at 7 seals, even mid-round
# ====================================================================================


def test_R_7_7_round_ends_after_fourteen_tricks_and_the_next_is_due() -> None:
    rnd = scripted_round(FULL_ROUND_1)
    table = sf_table()
    start_round(table, rnd)
    per_trick = play_tricks(table, rnd.tricks[:13])
    assert all(not _round_ends(ev) for ev in per_trick)
    assert table.state.phase is Phase.PLAYING
    assert deal_due(table.state) is None
    last = play_trick(table, rnd.tricks[13])
    after: GameState = table.state
    ended = _round_ends(last)
    assert len(ended) == 1
    assert ended[0].number == 1
    assert ended[0].reason is RoundEndReason.ALL_TRICKS
    assert _game_ends(last) == []
    assert after.phase is Phase.DEALING
    assert deal_due(after) == 2
    assert after.winners is None
    view = observe(after, PUBLIC)
    assert [x.reason for x in view.rounds] == ["all_tricks"]
    assert view.winner is None
    # Round 2 is dealt and played like the first.
    start_round(table, scripted_round(FULL_ROUND_2))
    r = table.state.round
    assert r is not None and r.number == 2 and r.tricks_played == 0


def test_R_7_7_game_ends_mid_round_when_a_team_has_sealed_all_seven_suits() -> None:
    first = scripted_round(FULL_ROUND_1)
    second = scripted_round(FULL_ROUND_2)
    table = sf_table(SF, deals=[first.preset(), second.preset()])
    start_round(table, first, preset=True)
    _play_round(table, first)
    assert table.state.seals[0] == (GREEN, PURPLE, PINK, YELLOW)  # 4 of 7: go on
    assert _game_ends(table.events) == []
    start_round(table, second, preset=True)
    r = table.state.round
    assert r is not None
    assert [sorted(c.id for c in h) for h in r.hands] == [
        sorted(second.after_pass[s]) for s in range(4)
    ]
    per_trick = play_tricks(table, second.tricks[:7])
    assert [_sealed(ev) for ev in per_trick] == [[], [], [], [(0, BLACK)], [], [(0, RED)], []]
    assert all(not _round_ends(ev) for ev in per_trick)
    events = play_trick(table, second.tricks[7])
    assert [type(e).__name__ for e in events[4:]] == [
        "TrickTaken",
        "SuitSealed",
        "RoundEnded",
        "GameEnded",
    ]
    assert _sealed(events) == [(0, BLUE)]
    (ended,) = _round_ends(events)
    assert ended.number == 2
    assert ended.reason is RoundEndReason.SEALED
    assert _game_ends(events) == [GameEnded((0,))]
    state = table.state
    assert state.phase is Phase.FINISHED
    assert state.winners == (0,)
    assert state.seals == (tuple(Suit), (BLACK,))
    assert state.scores == (7, 1)
    r = state.round
    assert r is not None and r.tricks_played == 8
    assert [len(h) for h in r.hands] == [6] * 4  # cards were left in hand
    assert deal_due(state) is None
    view = observe(state, PUBLIC)
    assert view.status == "finished"
    assert view.winner == (0,)
    assert [x.reason for x in view.rounds] == ["all_tricks", "sealed"]
    # Nothing more can be played.
    leader = r.leader
    assert leader is not None
    nxt = second.tricks[8][leader]
    assert _violation(state, PlayCard(leader, card(nxt))) == Violation.WRONG_PHASE


def test_R_7_7_the_other_team_can_win_by_sealing_everything() -> None:
    rnd = scripted_round(
        [
            (GREEN, 1, 3),
            (PURPLE, 3, 1),
            (PINK, 1, 1),
            (YELLOW, 3, 3),
            (BLACK, 1, 3),
            (RED, 3, 1),
            (BLUE, 1, 3),
        ]
    )
    table = sf_table()
    start_round(table, rnd)
    per_trick = _play_round(table, rnd)
    assert all(not _game_ends(ev) for ev in per_trick[:13])
    assert _game_ends(per_trick[13]) == [GameEnded((1,))]
    assert table.state.seals == ((), tuple(Suit))
    assert table.state.scores == (0, 7)
    assert table.state.phase is Phase.FINISHED
    assert deal_due(table.state) is None


# ====================================================================================
# short variant: first team to seal a suit owns it; 4 seals win
# ====================================================================================


def test_R_7_8_short_only_the_first_team_to_capture_both_sevens_seals() -> None:
    first = scripted_round(SHORT_ROUND_1)
    second = scripted_round(SHORT_ROUND_2)
    table = sf_table(SHORT, deals=[first.preset(), second.preset()])
    start_round(table, first, preset=True)
    _play_round(table, first)
    assert table.state.seals == ((GREEN, PURPLE, PINK), (BLACK,))
    assert table.state.scores == (3, 1)
    assert _round_ends(table.events)[0].reason is RoundEndReason.ALL_TRICKS
    assert _game_ends(table.events) == []
    start_round(table, second, preset=True)
    per_trick = play_tricks(table, second.tricks[:4])
    # Team 1 took both green 7s and team 0 both black 7s: no seal, as each suit was
    # sealed first by the other team.
    assert [_sealed(ev) for ev in per_trick] == [[], [], [], []]
    assert table.state.seals == ((GREEN, PURPLE, PINK), (BLACK,))
    assert table.state.scores == (3, 1)
    r = table.state.round
    assert r is not None
    assert set(sevens(GREEN)) <= {c.id for s in (1, 3) for c in r.bosses[s]}
    assert set(sevens(BLACK)) <= {c.id for s in (0, 2) for c in r.bosses[s]}


def test_R_7_8_short_first_team_to_four_seals_wins_mid_round() -> None:
    first = scripted_round(SHORT_ROUND_1)
    second = scripted_round(SHORT_ROUND_2)
    table = sf_table(SHORT, deals=[first.preset(), second.preset()])
    start_round(table, first, preset=True)
    _play_round(table, first)
    start_round(table, second, preset=True)
    per_trick = play_tricks(table, second.tricks[:5])
    assert all(not _round_ends(ev) for ev in per_trick)
    events = play_trick(table, second.tricks[5])
    assert _sealed(events) == [(0, YELLOW)]
    (ended,) = _round_ends(events)
    assert ended.reason is RoundEndReason.SEALED
    assert _game_ends(events) == [GameEnded((0,))]
    assert table.state.phase is Phase.FINISHED
    assert table.state.seals == ((GREEN, PURPLE, PINK, YELLOW), (BLACK,))
    assert table.state.scores == (4, 1)
    r = table.state.round
    assert r is not None and r.tricks_played == 6


def test_R_7_8_full_variant_lets_both_teams_seal_the_same_suit() -> None:
    # The same deals as the short-variant tests, in the full variant.
    first = scripted_round(SHORT_ROUND_1)
    second = scripted_round(SHORT_ROUND_2)
    table = sf_table(SF, deals=[first.preset(), second.preset()])
    start_round(table, first, preset=True)
    _play_round(table, first)
    start_round(table, second, preset=True)
    per_trick = _play_round(table, second)
    assert [_sealed(ev) for ev in per_trick[:6]] == [
        [],
        [(1, GREEN)],
        [],
        [(0, BLACK)],
        [],
        [(0, YELLOW)],
    ]
    # 4 (then 5, 6) seals do not end the full variant ...
    assert all(not _game_ends(ev) for ev in per_trick[:13])
    assert table.state.seals[0] == (GREEN, PURPLE, PINK, YELLOW, BLACK, RED, BLUE)
    # Both teams hold green and black: each sealed them in a different round.
    assert table.state.seals[1] == (GREEN, PURPLE, PINK, BLACK)
    # ... only the 7th, which team 0 gets with the last trick (blue).
    assert _sealed(per_trick[13]) == [(0, BLUE)]
    assert _game_ends(per_trick[13]) == [GameEnded((0,))]
    assert table.state.winners == (0,)


@pytest.mark.parametrize(("variant", "ends"), [(SHORT, True), (SF, False)])
def test_R_7_8_four_seals_win_only_the_short_variant(variant: Variant, ends: bool) -> None:
    rnd = scripted_round(
        [
            (GREEN, 0, 2),
            (PURPLE, 0, 0),
            (PINK, 2, 2),
            (YELLOW, 2, 0),
            (BLACK, 1, 3),
            (RED, 3, 3),
            (BLUE, 1, 1),
        ]
    )
    table = sf_table(variant)
    start_round(table, rnd)
    play_tricks(table, rnd.tricks[:7])
    assert _game_ends(table.events) == []
    events = play_trick(table, rnd.tricks[7])
    assert _sealed(events) == [(0, YELLOW)]
    if ends:
        assert _game_ends(events) == [GameEnded((0,))]
        assert _round_ends(events)[0].reason is RoundEndReason.SEALED
        assert table.state.phase is Phase.FINISHED
    else:
        assert _game_ends(events) == []
        assert _round_ends(events) == []
        play_tricks(table, rnd.tricks[8:])
        assert table.state.seals == ((GREEN, PURPLE, PINK, YELLOW), (BLACK, RED, BLUE))
        assert table.state.scores == (4, 3)
        assert _round_ends(table.events)[0].reason is RoundEndReason.ALL_TRICKS
        assert deal_due(table.state) == 2


# ====================================================================================
# R-7 (heading): four players only
# ====================================================================================


@pytest.mark.parametrize("variant", [SF, SHORT])
def test_R_7_seven_followers_needs_four_players(variant: Variant) -> None:
    for scoring in Scoring:
        code = _violation(INITIAL, CreateGame(3, scoring, variant))
        assert code == Violation.INVALID_OPTIONS
    assert decide(INITIAL, CreateGame(PLAYERS, Scoring.BASIC, variant))
