"""The search bots' playout policy (service/bots/policy.py): it plays legal cards only,
in every kind of game, and plays as the basic bot's principles say in plain cases."""

from __future__ import annotations

import random

import pytest

from service.bots.playout import Playout
from service.bots.policy import model_card
from service.bots.selfplay import play_game
from service.rules import GameConfig, Scoring, Suit, Variant, card
from service.rules.events import PassesExchanged

CASES = [
    (3, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
]


@pytest.mark.parametrize(("players", "scoring", "variant"), CASES)
def test_the_policy_plays_legal_cards_to_the_rounds_end(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    """R-4.1, R-4.2: from every round's start, each card the policy picks is legal, and
    the round reaches its end (R-5, R-7.7)."""
    rounds = 0
    for seed in range(6):
        for step in play_game(players, scoring, variant, rng=random.Random(seed)):
            state = step.after
            for e in step.events:
                if not isinstance(e, PassesExchanged):
                    continue
                r = state.round
                assert state.config is not None and r is not None and r.leader is not None
                sim = Playout(
                    state.config,
                    [sorted(h, key=lambda c: c.order) for h in r.hands],
                    [],
                    r.leader,
                    r.trump_suit,
                    [0] * players,
                    [[] for _ in range(players)],
                    0,
                    (tuple(state.seals[0]), tuple(state.seals[1])) if state.seals else ((), ()),
                )
                while sim.outcome is None:
                    legal = sim.legal()
                    chosen = model_card(sim, legal)
                    assert chosen in legal
                    sim.play(chosen)
                rounds += 1
    assert rounds >= 6


def _position(trick: list[tuple[int, str]], hands: list[list[str]], trump: str) -> Playout:
    config = GameConfig(4, Scoring.ADVANCED, Variant.STANDARD)
    seat = (trick[-1][0] + 1) % 4 if trick else 0
    return Playout(
        config,
        [sorted((card(i) for i in h), key=lambda c: c.order) for h in hands],
        [(s, card(i)) for s, i in trick],
        seat,
        Suit(trump),
        [0] * 4,
        [[] for _ in range(4)],
        0,
    )


def test_a_boss_trick_is_taken_with_the_cheapest_card_that_holds_it() -> None:
    """Seat 2 (last to play) takes the trick holding red-7 with its lowest winner."""
    sim = _position(
        [(3, "red-7"), (0, "red-8"), (1, "red-6")],
        [[], [], ["red-9", "red-12", "red-10", "blue-8"], []],
        "pink",
    )
    assert model_card(sim, sim.legal()).id == "red-9"


def test_a_card_that_cannot_win_is_the_lowest() -> None:
    """Seat 1 cannot beat blue-13 and plays its lowest blue."""
    sim = _position(
        [(0, "blue-13")],
        [[], ["blue-8", "blue-11", "blue-9"], ["pink-4"], ["pink-5"]],
        "pink",
    )
    assert model_card(sim, sim.legal()).id == "blue-8"


def test_the_seat_does_not_play_into_a_later_seats_higher_card() -> None:
    """Seat 1 on red-6 (led by seat 0) holding red-7 (a boss) and red-8: seat 2 holds
    red-12, so any red of seat 1's loses; it keeps its boss and plays red-8."""
    sim = _position(
        [(0, "red-6")],
        [[], ["red-7", "red-8"], ["red-12", "pink-4"], ["blue-8", "blue-9"]],
        "pink",
    )
    assert model_card(sim, sim.legal()).id == "red-8"
