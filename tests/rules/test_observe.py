"""What each viewer may see: ``observe`` and ``redact`` (docs/architecture.md, Hidden information).

A seat sees the table, its own hand, its legal cards and its own pass; the public sees
the table only; an operator sees everything, the dealing plan included.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass

import pytest

from service.rules import (
    INITIAL,
    OPERATOR,
    PUBLIC,
    SEVEN_FOLLOWERS_DECK,
    STANDARD_DECK,
    Card,
    CreateGame,
    DealRound,
    JoinSeat,
    OperatorView,
    PassCards,
    PlayCard,
    PresetDeal,
    PublicView,
    Scoring,
    SeatView,
    SeatViewer,
    Variant,
    card,
    observe,
    redact,
)
from service.rules.events import CardsPassed, GameCreated, PassesExchanged, RoundDealt
from tests.rules.scenario import Table, cards

ALL_IDS = frozenset(c.id for c in SEVEN_FOLLOWERS_DECK)


def card_ids(obj: object) -> set[str]:
    """Every card id anywhere in a view or an event."""
    if isinstance(obj, str):
        return {obj} if obj in ALL_IDS else set()
    if isinstance(obj, Card):
        return {obj.id}
    if isinstance(obj, tuple | list):
        return set().union(*(card_ids(x) for x in obj)) if obj else set()
    if is_dataclass(obj) and not isinstance(obj, type):
        return card_ids([getattr(obj, f.name) for f in fields(obj)])
    return set()


def ordered_deal(players: int, variant: Variant) -> DealRound:
    """The deck in canonical order, dealt in blocks; the last card is the trump card."""
    deck = SEVEN_FOLLOWERS_DECK if variant is not Variant.STANDARD else STANDARD_DECK
    size = 14 if variant is not Variant.STANDARD else (12 if players == 4 else 16)
    hands = tuple(tuple(deck[s * size : (s + 1) * size]) for s in range(players))
    return DealRound(hands, None if variant is not Variant.STANDARD else deck[-1])


def dealt(
    players: int = 4,
    variant: Variant = Variant.STANDARD,
    seed: int | None = None,
    preset: bool = False,
) -> Table:
    deal = ordered_deal(players, variant)
    deals = (PresetDeal(deal.hands, deal.trump),) if preset else None
    table = Table()
    table.do(CreateGame(players, Scoring.BASIC, variant, seed=seed, deals=deals))
    for seat in range(players):
        table.do(JoinSeat(seat, f"player {seat}"))
    table.do(deal)
    return table


# Four players, canonical deal: seat 0 holds green-1 … green-7 and purple-2 … purple-6,
# seat 1 purple-7 … yellow-6, seat 2 yellow-7 … red-6, seat 3 red-7 … blue-12; blue-13
# is the trump card.
PASSES_4P = {
    0: "green-5 green-6 purple-2",
    1: "pink-3 pink-4 yellow-4",
    2: "yellow-7 black-5 red-6",
    3: "red-7 blue-7 blue-8",
}


def exchanged_4p() -> Table:
    table = dealt()
    for seat, ids in PASSES_4P.items():
        table.do(PassCards(seat, cards(ids)))
    return table


# --- seat views -----------------------------------------------------------------------


def test_a_seat_view_shows_its_own_hand_and_no_other() -> None:
    table = dealt()
    for seat in range(4):
        view = observe(table.state, SeatViewer(seat))
        assert isinstance(view, SeatView)
        assert view.seat == seat
        assert view.hand == tuple(c.id for c in table.hand(seat))
        others = {c.id for s in range(4) if s != seat for c in table.hand(s)}
        assert not card_ids(view) & others
        assert card_ids(view) == {c.id for c in table.hand(seat)} | {"blue-13"}


def test_R_3_2_a_seat_that_must_pass_may_pass_any_card_of_its_hand() -> None:
    table = dealt()
    view = observe(table.state, SeatViewer(1))
    assert view.action == "pass"
    assert view.legal == view.hand
    table.do(PassCards(1, cards(PASSES_4P[1])))
    view = observe(table.state, SeatViewer(1))
    assert view.action is None and view.legal == ()


def test_R_4_1_a_seat_view_shows_the_legal_cards_of_the_seat_to_play() -> None:
    table = exchanged_4p()
    assert table.state.round is not None and table.state.round.leader == 0  # the A
    lead = observe(table.state, SeatViewer(0))
    assert lead.action == "play" and lead.legal == lead.hand  # the leader plays anything
    table.do(PlayCard(0, card("purple-3")))
    follower = observe(table.state, SeatViewer(1))
    assert follower.action == "play"
    assert follower.legal == ("purple-7", "purple-8")  # follow the led suit
    for seat in (0, 2, 3):
        view = observe(table.state, SeatViewer(seat))
        assert view.action is None and view.legal == ()


def test_R_3_2_the_pass_view_shows_received_cards_only_after_the_exchange() -> None:
    table = dealt()
    table.do(PassCards(0, cards(PASSES_4P[0])))
    view = observe(table.state, SeatViewer(0))
    assert view.pass_ is not None
    assert view.pass_.given == ("green-5", "green-6", "purple-2")
    assert view.pass_.received == (None, None, None)
    assert view.pass_.to == (2, 2, 2)
    # The partner has not chosen yet: it sees no pass, and not what is coming to it.
    partner = observe(table.state, SeatViewer(2))
    assert partner.pass_ is None
    assert not card_ids(partner) & set(PASSES_4P[0].split()) - {c.id for c in table.hand(2)}
    assert partner.seats[0].passed and not partner.seats[2].passed

    for seat in (1, 2, 3):
        table.do(PassCards(seat, cards(PASSES_4P[seat])))
    for seat, partner_seat in ((0, 2), (1, 3), (2, 0), (3, 1)):
        view = observe(table.state, SeatViewer(seat))
        assert view.pass_ is not None
        assert sorted(x for x in view.pass_.received if x is not None) == sorted(
            PASSES_4P[partner_seat].split()
        )
        assert set(PASSES_4P[partner_seat].split()) <= set(view.hand)
        assert not set(PASSES_4P[seat].split()) & set(view.hand)


def test_R_7_2_the_pass_view_of_seven_followers_gives_one_card_to_each_seat() -> None:
    table = dealt(variant=Variant.SEVEN_FOLLOWERS)
    given = {s: table.hand(s)[:3] for s in range(4)}
    for seat in range(4):
        table.do(PassCards(seat, given[seat]))
    for seat in range(4):
        view = observe(table.state, SeatViewer(seat))
        assert view.pass_ is not None
        assert view.pass_.to == tuple((seat + k) % 4 for k in (1, 2, 3))
        # The k-th card a seat names goes to the seat k places after it.
        expected = {given[(seat - k) % 4][k - 1].id for k in (1, 2, 3)}
        assert set(view.pass_.received) == expected


# --- public and operator views --------------------------------------------------------


@pytest.mark.parametrize("variant", [Variant.STANDARD, Variant.SEVEN_FOLLOWERS])
def test_the_public_view_shows_no_hand(variant: Variant) -> None:
    table = dealt(variant=variant)
    for seat in range(4):
        table.do(PassCards(seat, table.hand(seat)[:3]))
    assert table.state.round is not None
    leader = table.state.round.leader
    assert leader is not None
    table.do(PlayCard(leader, table.hand(leader)[-1]))
    view = observe(table.state, PUBLIC)
    assert type(view) is PublicView
    in_hands = {c.id for s in range(4) for c in table.hand(s)}
    assert not card_ids(view) & in_hands
    assert [s.hand_size for s in view.seats] == [len(table.hand(s)) for s in range(4)]
    assert view.round is not None
    assert [p.card for p in view.round.trick] == [table.state.round.trick[0][1].id]


def test_R_4_4_captured_bosses_are_public() -> None:
    table = exchanged_4p()
    # Seat 0 leads green-7 (a boss); seat 2 follows with a passed green-5, the others
    # hold no green and discard.
    for seat, card_id in ((0, "green-7"), (1, "purple-7"), (2, "green-5"), (3, "red-8")):
        table.do(PlayCard(seat, card(card_id)))
    view = observe(table.state, PUBLIC)
    assert set(view.seats[0].bosses) == {"green-7", "purple-7"}  # seat 1 discarded a boss
    assert view.seats[1].bosses == ()
    assert view.seats[0].tricks_won == 1
    assert view.round is not None and view.round.last_trick is not None
    assert view.round.last_trick.winner == 0


def test_the_operator_view_shows_every_hand_every_pass_and_the_dealing_plan() -> None:
    table = dealt(seed=1234, preset=True)
    table.do(PassCards(0, cards(PASSES_4P[0])))
    view = observe(table.state, OPERATOR)
    assert isinstance(view, OperatorView)
    assert view.hands == tuple(tuple(c.id for c in table.hand(s)) for s in range(4))
    assert view.seed == 1234
    deal = ordered_deal(4, Variant.STANDARD)
    assert view.deals is not None and len(view.deals) == 1
    assert view.deals[0].hands == tuple(tuple(c.id for c in h) for h in deal.hands)
    assert view.deals[0].trump == "blue-13"
    assert view.passes[0] is not None and view.passes[0].given == tuple(PASSES_4P[0].split())
    assert view.passes[1] is None


def test_seat_and_public_views_do_not_show_the_dealing_plan() -> None:
    table = dealt(seed=1234, preset=True)
    for viewer in (SeatViewer(0), SeatViewer(3), PUBLIC):
        view = observe(table.state, viewer)
        assert not isinstance(view, OperatorView)
        assert not hasattr(view, "seed") and not hasattr(view, "deals")


@pytest.mark.parametrize(
    "seat",
    [
        -1,
        4,
        9,
    ],
)
def test_a_seat_that_does_not_exist_sees_no_hand(seat: int) -> None:
    table = dealt()
    in_hands = {c.id for s in range(4) for c in table.hand(s)}
    try:
        view = observe(table.state, SeatViewer(seat))
    except (ValueError, LookupError):
        return  # refusing to make a view is fine
    assert not card_ids(view) & in_hands


def test_a_new_game_has_an_empty_view() -> None:
    view = observe(INITIAL, PUBLIC)
    assert view.players == 0 and view.round is None and view.seats == ()
    table = Table()
    table.do(CreateGame(3, Scoring.ADVANCED, Variant.STANDARD))
    seat_view = observe(table.state, SeatViewer(1))
    assert seat_view.hand == () and seat_view.action is None and seat_view.pass_ is None
    assert seat_view.status == "waiting"


# --- redacted events ------------------------------------------------------------------


def test_seats_and_public_do_not_see_the_dealing_plan_in_game_created() -> None:
    table = dealt(seed=99, preset=True)
    created = table.events[0]
    assert isinstance(created, GameCreated)
    assert created.seed == 99 and created.deals is not None
    assert redact(created, OPERATOR) == created
    for viewer in (SeatViewer(0), SeatViewer(1), PUBLIC):
        red = redact(created, viewer)
        assert isinstance(red, GameCreated)
        assert red.seed is None and red.deals is None
        assert (red.players, red.scoring, red.variant) == (4, Scoring.BASIC, Variant.STANDARD)
        assert card_ids(red) == set()


@pytest.mark.parametrize("players", [3, 4])
def test_round_dealt_is_redacted_per_seat(players: int) -> None:
    table = dealt(players=players)
    dealt_event = table.events[-1]
    assert isinstance(dealt_event, RoundDealt)
    for seat in range(players):
        red = redact(dealt_event, SeatViewer(seat))
        assert isinstance(red, RoundDealt)
        assert red.hands == tuple(
            dealt_event.hands[s] if s == seat else None for s in range(players)
        )
        assert red.trump == dealt_event.trump  # the trump card is face up
    public = redact(dealt_event, PUBLIC)
    assert isinstance(public, RoundDealt)
    assert public.hands == (None,) * players and public.trump == dealt_event.trump
    assert redact(dealt_event, OPERATOR) == dealt_event


def test_R_3_2_cards_passed_is_redacted_to_the_giver() -> None:
    table = dealt()
    (passed,) = table.do(PassCards(2, cards(PASSES_4P[2])))
    assert isinstance(passed, CardsPassed)
    assert redact(passed, SeatViewer(2)) == passed
    assert redact(passed, OPERATOR) == passed
    # Passes are secret, even from the partner who will receive them.
    for viewer in (SeatViewer(0), SeatViewer(1), SeatViewer(3), PUBLIC):
        assert redact(passed, viewer) == CardsPassed(2, None)


@pytest.mark.parametrize(
    ("players", "variant"),
    [(4, Variant.STANDARD), (3, Variant.STANDARD), (4, Variant.SEVEN_FOLLOWERS)],
)
def test_R_3_2_R_7_2_passes_exchanged_is_redacted_to_giver_and_receiver(
    players: int, variant: Variant
) -> None:
    table = dealt(players=players, variant=variant)
    exchanged: PassesExchanged | None = None
    for seat in range(players):
        events = table.do(PassCards(seat, table.hand(seat)[-3:]))
        if len(events) == 2:
            assert isinstance(events[1], PassesExchanged)
            exchanged = events[1]
    assert exchanged is not None
    assert all(p.card is not None for p in exchanged.passes)
    assert redact(exchanged, OPERATOR) == exchanged
    for seat in range(players):
        red = redact(exchanged, SeatViewer(seat))
        assert isinstance(red, PassesExchanged)
        assert red.leader == exchanged.leader
        for mine, full in zip(red.passes, exchanged.passes, strict=True):
            assert (mine.giver, mine.receiver) == (full.giver, full.receiver)
            if seat in (full.giver, full.receiver):
                assert mine.card is full.card
            else:
                assert mine.card is None
        visible = sum(p.card is not None for p in red.passes)
        assert visible == 6  # its three given cards and the three it received
    public = redact(exchanged, PUBLIC)
    assert isinstance(public, PassesExchanged)
    assert all(p.card is None for p in public.passes)
