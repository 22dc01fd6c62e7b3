"""The basic bot (service/bots/heuristic.py): always legal, a function of its seat's view
alone, and a few of its choices on hand-built positions. (How well it plays is measured
by bench/bot_bench.py, which prints win rates; tests assert behaviour only.)"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.bots import BOTS, PassMove, PlayMove, basic_move, random_move
from service.bots.selfplay import dealer_command, to_command
from service.rules import (
    INITIAL,
    Card,
    Command,
    CreateGame,
    GameState,
    JoinSeat,
    Phase,
    Scoring,
    SeatViewer,
    Suit,
    Variant,
    card,
    decide,
    expected_action,
    fold,
    observe,
    trick_winner,
)
from tests.rules.scenario import Table, dealt_table

MODES = [(3, Variant.STANDARD), (4, Variant.STANDARD), (4, Variant.SEVEN_FOLLOWERS)]


def check_every_decision(players: int, variant: Variant, seed: int) -> int:
    """Play one game with basic bots on every seat, checking each move; how many."""
    rng = random.Random(seed)
    state: GameState = fold(decide(INITIAL, CreateGame(players, Scoring.BASIC, variant)))
    for seat in range(players):
        state = fold(decide(state, JoinSeat(seat, f"s{seat}")), state)
    checked = 0
    while state.phase is not Phase.FINISHED:
        command: Command | None = dealer_command(state, rng)
        if command is None:
            seat = rng.choice([s for s in range(players) if expected_action(state, s)])
            view = observe(state, SeatViewer(seat))
            move = basic_move(view, random.Random(1))
            assert move is not None
            # The same view (an equal copy), other chance: the same move.
            assert basic_move(copy.deepcopy(view), random.Random(2)) == move
            if isinstance(move, PassMove):
                assert len(set(move.cards)) == 3 and set(move.cards) <= set(view.legal)
            else:
                assert isinstance(move, PlayMove) and move.card in view.legal
            command = to_command(seat, move)
            checked += 1
        state = fold(decide(state, command), state)  # the rules accept it
    return checked


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=st.sampled_from(MODES), seed=st.integers(0, 2**32))
def test_the_basic_bots_move_is_always_legal_and_a_function_of_its_view(
    mode: tuple[int, Variant], seed: int
) -> None:
    players, variant = mode
    assert check_every_decision(players, variant, seed) > 0


def test_both_levels_are_registered_by_name() -> None:
    assert {"random": random_move, "basic": basic_move} == BOTS


HANDS_4P = [
    "green-1 green-2 green-3 green-4 green-5 green-6 green-7 purple-2 purple-3 purple-4 "
    "purple-5 purple-6",
    "purple-7 purple-8 pink-3 pink-4 pink-5 pink-6 pink-7 pink-8 pink-9 yellow-4 yellow-5 yellow-6",
    "yellow-7 yellow-8 yellow-9 yellow-10 black-5 black-6 black-7 black-8 black-9 black-10 "
    "black-11 red-6",
    "red-7 red-8 red-9 red-10 red-11 red-12 blue-7 blue-8 blue-9 blue-10 blue-11 blue-12",
]
# Passes that leave every hand as dealt in its suits of interest: each seat passes to its
# partner three cards the tests below do not use.
PASSES = {
    0: "green-2 green-3 green-4",
    1: "pink-3 pink-4 yellow-4",
    2: "yellow-8 yellow-9 yellow-10",
    3: "blue-10 blue-11 blue-12",
}


def playing() -> Table:
    table = dealt_table(HANDS_4P, "blue-13")
    for seat, ids in PASSES.items():
        table.pass_cards(seat, ids)
    return table


def move_of(table: Table, seat: int) -> str:
    move = basic_move(observe(table.state, SeatViewer(seat)), random.Random(0))
    assert isinstance(move, PlayMove)
    return move.card


def test_it_leads_a_cheap_side_card_not_a_boss_or_the_a() -> None:
    """Leading gives the lead away cheaply: no boss, no trump, not the A."""
    table = playing()
    leader = table.state.turn()
    assert leader is not None
    led = move_of(table, leader)
    hand = {c.id for c in table.hand(leader)}
    assert led in hand
    assert not led.endswith("-7") and led != "green-1" and not led.startswith("blue")


Position = tuple[Table, int, list[tuple[int, Card]], Suit | None, list[str]]


def positions(seeds: int = 60) -> Iterator[Position]:
    """Positions of random four-player play, from the fixed deal: the table, the seat to
    play, the trick so far, the trump suit and the seat's legal cards."""
    for seed in range(seeds):
        rng = random.Random(seed)
        table = playing()
        while table.state.phase is Phase.PLAYING:
            r = table.state.round
            seat = table.state.turn()
            assert r is not None and seat is not None
            view = observe(table.state, SeatViewer(seat))
            yield table, seat, list(r.trick), r.trump_suit, list(view.legal)
            move = random_move(view, rng)
            assert isinstance(move, PlayMove)
            table.play(seat, move.card)


def test_it_follows_with_its_lowest_card_when_it_cannot_win() -> None:
    """A trick it cannot win, and no boss among its legal cards: its lowest card goes."""
    seen = 0
    for table, seat, trick, trump, legal in positions():
        if not trick or any(card(i).is_boss for i in legal):
            continue
        if any(trick_winner([*trick, (seat, card(i))], trump) == seat for i in legal):
            continue
        lowest = min(legal, key=lambda i: card(i).rank)
        assert card(move_of(table, seat)).rank == card(lowest).rank
        seen += 1
    assert seen > 20


def test_it_does_not_take_a_trick_its_partner_is_winning() -> None:
    """Four players: with the partner's card on top of the trick, it ducks when it can."""
    seen = 0
    for table, seat, trick, trump, legal in positions():
        if len(trick) < 2 or trick_winner(trick, trump) != (seat + 2) % 4:
            continue
        losing = [i for i in legal if trick_winner([*trick, (seat, card(i))], trump) != seat]
        if losing and len(losing) < len(legal):
            assert move_of(table, seat) in losing
            seen += 1
    assert seen > 5
