"""R-3: round setup: the deal, the trump card, the pass, the lead."""

from __future__ import annotations

import pytest

from service.rules import (
    PUBLIC,
    Action,
    DealRound,
    Event,
    PassCards,
    Phase,
    PlayCard,
    SeatViewer,
    Suit,
    Viewer,
    Violation,
    card,
    deal_due,
    expected_action,
    legal_cards,
    observe,
    redact,
)
from service.rules.events import CardsPassed, PassesExchanged, RoundDealt
from tests.rules.builders import (
    assert_refused,
    boss_trick_round,
    hand,
    hands_with,
    play_tricks,
    prepare_round,
)
from tests.rules.scenario import Table, cards, dealt_table, new_table


def _pass_all(table: Table, passes: dict[int, str]) -> PassesExchanged:
    out: tuple[Event, ...] = ()
    for seat, ids in passes.items():
        out = table.pass_cards(seat, ids)
    exchanged = out[-1]
    assert isinstance(exchanged, PassesExchanged)
    return exchanged


def _low_pass(hand_ids: tuple[str, ...], avoid: str = "") -> str:
    """Three cards of a hand, none of them in ``avoid``."""
    return " ".join([c for c in hand_ids if c not in avoid.split()][:3])


# --- R-3.1 ----------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size"), [(4, 12), (3, 16)])
def test_R_3_1_deal_hands_of_12_or_16_and_one_face_up_trump_card(players: int, size: int) -> None:
    hands = hands_with(players, "red-9", {})
    table = dealt_table(hands, "red-9")
    r = table.state.round
    assert r is not None
    assert table.state.phase is Phase.PASSING
    assert [len(h) for h in r.hands] == [size] * players
    assert r.trump is card("red-9")
    assert r.trump_suit is Suit.RED
    assert all(card("red-9") not in h for h in r.hands)
    view = observe(table.state, PUBLIC)
    assert view.round is not None
    assert (view.round.trump, view.round.trump_suit) == ("red-9", "red")
    assert [s.hand_size for s in view.seats] == [size] * players


def _bad_deals() -> list[tuple[str, DealRound]]:
    good = [cards(" ".join(h)) for h in hands_with(4, "red-9", {})]
    trump = card("red-9")
    return [
        ("a hand of 13", DealRound((good[0] + good[1][:1], good[1][1:], *good[2:]), trump)),
        ("no trump card", DealRound(tuple(good), None)),
        ("three hands", DealRound(tuple(good[:3]), trump)),
        ("a hand of 11", DealRound((good[0][1:], *good[1:]), trump)),
        (
            "a card twice",
            DealRound(((*good[0][:-1], good[1][0]), *good[1:]), good[0][-1]),
        ),
        ("the trump card in a hand", DealRound(tuple(good), good[0][0])),
    ]


@pytest.mark.parametrize(("why", "deal"), _bad_deals(), ids=[w for w, _ in _bad_deals()])
def test_R_3_1_a_deal_that_is_not_12_12_12_12_plus_one_is_refused(
    why: str, deal: DealRound
) -> None:
    table = new_table(4)
    assert_refused(table, deal, Violation.INVALID_DEAL)
    assert deal_due(table.state) == 1


def test_R_3_1_the_trump_card_is_out_of_play() -> None:
    table = new_table(4)
    prepare_round(table, "red-9", ["red-6 red-7 red-8 red-10"])
    assert table.state.turn() == 0
    assert "red-9" not in [c.id for c in legal_cards(table.state, 0)]
    assert_refused(table, PlayCard(0, card("red-9")), Violation.CARD_NOT_IN_HAND)


def test_R_3_1_the_trump_card_cannot_be_passed() -> None:
    table = dealt_table(hands_with(4, "red-9", {}), "red-9")
    two = hand(table, 0)[:2]
    assert_refused(
        table, PassCards(0, cards(" ".join((*two, "red-9")))), Violation.CARD_NOT_IN_HAND
    )


# --- R-3.2 ----------------------------------------------------------------------------


def test_R_3_2_a_pass_is_exactly_three_different_cards_of_ones_hand() -> None:
    table = dealt_table(hands_with(4, "red-9", {}), "red-9")
    mine = hand(table, 1)
    theirs = hand(table, 2)
    assert expected_action(table.state, 1) is Action.PASS
    assert legal_cards(table.state, 1) == cards(" ".join(mine))
    for ids in (mine[:2], mine[:4], mine[:1], (), (mine[0], mine[0], mine[1])):
        assert_refused(table, PassCards(1, cards(" ".join(ids))), Violation.INVALID_PASS)
    assert_refused(
        table, PassCards(1, cards(" ".join((*mine[:2], theirs[0])))), Violation.CARD_NOT_IN_HAND
    )
    table.pass_cards(1, " ".join(mine[:3]))  # a valid pass is accepted


def test_R_3_2_a_submitted_pass_is_final() -> None:
    table = dealt_table(hands_with(4, "red-9", {}), "red-9")
    mine = hand(table, 0)
    table.pass_cards(0, " ".join(mine[:3]))
    assert expected_action(table.state, 0) is None
    assert legal_cards(table.state, 0) == ()
    for ids in (mine[:3], mine[3:6]):
        assert_refused(table, PassCards(0, cards(" ".join(ids))), Violation.ALREADY_PASSED)


def test_R_3_2_no_card_is_played_before_the_exchange_and_none_passed_after() -> None:
    table = dealt_table(hands_with(4, "red-9", {0: "green-1"}), "red-9")
    assert_refused(table, PlayCard(0, card("green-1")), Violation.WRONG_PHASE)
    table.pass_cards(0, _low_pass(hand(table, 0), "green-1"))
    assert_refused(table, PlayCard(0, card("green-1")), Violation.WRONG_PHASE)
    for seat in (1, 2, 3):
        table.pass_cards(seat, _low_pass(hand(table, seat)))
    assert table.state.phase is Phase.PLAYING
    assert_refused(table, PassCards(1, cards(" ".join(hand(table, 1)[:3]))), Violation.WRONG_PHASE)


def test_R_3_2_a_pass_before_the_deal_is_refused() -> None:
    table = new_table(4)
    assert_refused(table, PassCards(0, cards("green-1 green-2 green-3")), Violation.WRONG_PHASE)


@pytest.mark.parametrize(
    ("players", "target"),
    [(4, {0: 2, 1: 3, 2: 0, 3: 1}), (3, {0: 1, 1: 2, 2: 0})],
    ids=["four players: to the partner", "three players: to the left"],
)
def test_R_3_2_cards_go_to_the_partner_or_to_the_left(players: int, target: dict[int, int]) -> None:
    table = dealt_table(hands_with(players, "red-9", {}), "red-9")
    dealt = [hand(table, s) for s in range(players)]
    passes = {s: dealt[s][-3:] for s in range(players)}
    for s in range(players):
        table.pass_cards(s, " ".join(passes[s]))
    for s in range(players):
        giver = next(g for g, t in target.items() if t == s)
        expected = (set(dealt[s]) - set(passes[s])) | set(passes[giver])
        assert set(hand(table, s)) == expected
        view = observe(table.state, SeatViewer(s))
        assert view.pass_ is not None
        assert view.pass_.to == (target[s],) * 3
        assert set(view.pass_.given) == set(passes[s])
        assert set(view.pass_.received) == set(passes[giver])


def test_R_3_2_passes_are_secret_and_cards_move_only_when_everyone_has_passed() -> None:
    table = dealt_table(hands_with(4, "red-9", {}), "red-9")
    dealt = [hand(table, s) for s in range(4)]
    passes = {s: dealt[s][:3] for s in range(4)}
    viewers: list[Viewer] = [SeatViewer(s) for s in range(4)]
    viewers.append(PUBLIC)

    # Seat 0 passes first: only seat 0 sees its choice; no card has moved.
    (passed,) = table.pass_cards(0, " ".join(passes[0]))
    assert isinstance(passed, CardsPassed)
    for viewer in viewers:
        copy = redact(passed, viewer)
        assert isinstance(copy, CardsPassed)
        if viewer == SeatViewer(0):
            assert copy.cards == cards(" ".join(passes[0]))
        else:
            assert copy.cards is None  # not even the partner who will receive them
    for s in range(4):
        view = observe(table.state, SeatViewer(s))
        assert view.hand == dealt[s]
        if s == 0:
            assert view.pass_ is not None
            assert view.pass_.given == passes[0]
            assert view.pass_.received == (None, None, None)
        else:
            assert view.pass_ is None
            assert not set(passes[0]) & set(view.hand)
    public = observe(table.state, PUBLIC)
    assert [s.passed for s in public.seats] == [True, False, False, False]
    assert [s.hand_size for s in public.seats] == [12] * 4

    # The others pass in any order; nothing moves until the last one.
    for seat in (3, 1):
        new = table.pass_cards(seat, " ".join(passes[seat]))
        assert [type(e) for e in new] == [CardsPassed]
        assert [hand(table, s) for s in range(4)] == dealt
    last = table.pass_cards(2, " ".join(passes[2]))
    assert [type(e) for e in last] == [CardsPassed, PassesExchanged]
    exchanged = last[1]
    assert isinstance(exchanged, PassesExchanged)
    assert set(hand(table, 2)) == (set(dealt[2]) - set(passes[2])) | set(passes[0])
    # Each seat sees the cards it gave and received, and no other pass.
    for viewer in viewers:
        copy = redact(exchanged, viewer)
        assert isinstance(copy, PassesExchanged)
        for p in copy.passes:
            sees = isinstance(viewer, SeatViewer) and viewer.seat in (p.giver, p.receiver)
            assert (p.card is not None) is sees


# --- R-3.3 ----------------------------------------------------------------------------


def _first_lead(players: int, trump: str, holding: dict[int, str]) -> int:
    """Deal ``holding``; everyone passes three cards other than the A and blue-13.
    Who leads?"""
    table = dealt_table(hands_with(players, trump, holding), trump)
    all_passes = {s: _low_pass(hand(table, s), "green-1 blue-13") for s in range(players)}
    exchanged = _pass_all(table, all_passes)
    assert table.state.turn() == exchanged.leader
    assert expected_action(table.state, exchanged.leader) is Action.PLAY
    return exchanged.leader


@pytest.mark.parametrize(("players", "holder"), [(4, 0), (4, 1), (4, 3), (3, 1), (3, 2)])
def test_R_3_3_the_holder_of_the_A_leads_the_first_round(players: int, holder: int) -> None:
    assert _first_lead(players, "red-9", {holder: "green-1"}) == holder


@pytest.mark.parametrize(
    ("players", "dealt_to", "holder"),
    [(4, 3, 1), (4, 0, 2), (3, 2, 0), (3, 0, 1)],
)
def test_R_3_3_ruling_the_holder_after_the_exchange_leads(
    players: int, dealt_to: int, holder: int
) -> None:
    # The A is dealt to ``dealt_to``, who passes it on: its new holder leads.
    table = dealt_table(hands_with(players, "red-9", {dealt_to: "green-1"}), "red-9")
    give_ids = ["green-1", *[c for c in hand(table, dealt_to) if c != "green-1"][:2]]
    passes = {s: _low_pass(hand(table, s), "green-1") for s in range(players)}
    passes[dealt_to] = " ".join(give_ids)
    exchanged = _pass_all(table, passes)
    assert "green-1" in hand(table, holder)
    assert exchanged.leader == holder
    assert table.state.turn() == holder


@pytest.mark.parametrize(("players", "holder"), [(4, 2), (3, 1)])
def test_R_3_3_when_the_A_is_the_trump_card_blue_13_leads(players: int, holder: int) -> None:
    assert _first_lead(players, "green-1", {holder: "blue-13"}) == holder


@pytest.mark.parametrize(("players", "dealt_to", "holder"), [(4, 1, 3), (3, 1, 2)])
def test_R_3_3_when_the_A_is_the_trump_card_blue_13_holder_after_the_exchange_leads(
    players: int, dealt_to: int, holder: int
) -> None:
    table = dealt_table(hands_with(players, "green-1", {dealt_to: "blue-13"}), "green-1")
    passes = {s: _low_pass(hand(table, s), "blue-13") for s in range(players)}
    passes[dealt_to] = " ".join(
        ["blue-13", *[c for c in hand(table, dealt_to) if c != "blue-13"][:2]]
    )
    exchanged = _pass_all(table, passes)
    assert "blue-13" in hand(table, holder)
    assert exchanged.leader == holder


def test_R_3_3_the_leader_need_not_play_the_A() -> None:
    table = new_table(4)
    prepare_round(table, "red-9", ["pink-3 pink-4 pink-5 pink-6"], leader=2)
    assert table.state.turn() == 2
    assert "green-1" in hand(table, 2)
    assert legal_cards(table.state, 2) == cards(" ".join(hand(table, 2)))
    play_tricks(table, ["pink-3"])
    assert "green-1" in hand(table, 2)
    assert table.state.turn() == 3


# --- R-3.4 ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "trump", "bosses", "last_winner"),
    [
        # Seat 0 leads the A's round; seat 1 trumps the boss trick with the red boss.
        (4, "red-6", "green-7 red-7 blue-7 black-7", 1),
        (4, "black-5", "green-7 red-7 blue-7 black-7", 3),
        (3, "blue-8", "green-7 red-7 blue-7", 2),
    ],
)
def test_R_3_4_a_later_round_is_led_by_the_last_trick_winner(
    players: int, trump: str, bosses: str, last_winner: int
) -> None:
    table = new_table(players)
    boss_trick_round(table, trump, bosses, leader=0)
    assert table.state.phase is Phase.DEALING
    assert deal_due(table.state) == 2
    # Round 2: the A is dealt to seat 0 and stays there; it does not decide the lead.
    (dealt,) = table.deal(hands_with(players, "purple-2", {0: "green-1 blue-13"}), "purple-2")
    assert isinstance(dealt, RoundDealt)
    exchanged = _pass_all(
        table, {s: _low_pass(hand(table, s), "green-1 blue-13") for s in range(players)}
    )
    assert "green-1" in hand(table, 0)
    assert exchanged.leader == last_winner
    assert table.state.turn() == last_winner
    assert observe(table.state, SeatViewer(last_winner)).action == "play"
