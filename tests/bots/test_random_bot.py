"""The random bot answers from a seat's view only, with a move a client could send."""

from __future__ import annotations

import random

import pytest

from service.bots import PassMove, PlayMove, random_move
from service.rules import SeatViewer, observe
from tests.rules.scenario import Table, dealt_table, new_table

HANDS_4P = [
    "green-1 green-2 green-3 green-4 green-5 green-6 green-7 purple-2 purple-3 purple-4 "
    "purple-5 purple-6",
    "purple-7 purple-8 pink-3 pink-4 pink-5 pink-6 pink-7 pink-8 pink-9 yellow-4 yellow-5 yellow-6",
    "yellow-7 yellow-8 yellow-9 yellow-10 black-5 black-6 black-7 black-8 black-9 black-10 "
    "black-11 red-6",
    "red-7 red-8 red-9 red-10 red-11 red-12 blue-7 blue-8 blue-9 blue-10 blue-11 blue-12",
]

PASSES_4P = {
    0: "green-5 green-6 purple-2",
    1: "pink-3 pink-4 yellow-4",
    2: "yellow-7 black-5 red-6",
    3: "red-7 blue-7 blue-8",
}


def dealt() -> Table:
    return dealt_table(HANDS_4P, "blue-13")


@pytest.mark.parametrize("seed", range(20))
def test_a_seat_that_must_pass_passes_three_distinct_legal_cards(seed: int) -> None:
    view = observe(dealt().state, SeatViewer(1))
    move = random_move(view, random.Random(seed))
    assert isinstance(move, PassMove)
    assert len(set(move.cards)) == 3
    assert set(move.cards) <= set(view.legal)


@pytest.mark.parametrize("seed", range(20))
def test_the_seat_to_play_plays_a_legal_card(seed: int) -> None:
    table = dealt()
    for seat, ids in PASSES_4P.items():
        table.pass_cards(seat, ids)
    table.play(0, "purple-3")  # seat 0 kept the A and leads
    view = observe(table.state, SeatViewer(1))
    assert view.legal == ("purple-7", "purple-8")  # follow the led suit
    move = random_move(view, random.Random(seed))
    assert isinstance(move, PlayMove)
    assert move.card in view.legal


def test_a_seat_with_nothing_to_do_makes_no_move() -> None:
    rng = random.Random(0)
    table = dealt()
    table.pass_cards(2, PASSES_4P[2])
    assert random_move(observe(table.state, SeatViewer(2)), rng) is None  # passed already
    table = new_table(3)
    assert random_move(observe(table.state, SeatViewer(0)), rng) is None  # not dealt yet
