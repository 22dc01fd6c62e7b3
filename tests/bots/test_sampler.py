"""The search bots' sampler (service/bots/sampler.py, issue 31): what a seat knows of the
hidden hands, read from its own feed, is true of the real hands (R-3.2, R-3.3, R-4.1,
R-7.2, R-7.3), every drawn world is consistent with it, and where the worlds can be
enumerated the draws are uniform over them."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from service.bots.sampler import Knowledge, Sampler, knowledge
from service.bots.selfplay import play_game
from service.rules import Phase, Scoring, SeatViewer, Variant, redact
from service.rules.cards import Card
from service.rules.events import Event, RoundDealt
from service.rules.state import GameState

CASES = [
    (3, Scoring.BASIC, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
]


def positions(
    players: int, scoring: Scoring, variant: Variant, seed: int
) -> list[tuple[GameState, list[Event]]]:
    """Random positions of a random game while a round is played: the state and the
    game's events so far (every one, as an operator sees them)."""
    rng = random.Random(seed)
    events: list[Event] = []
    found = []
    for step in play_game(players, scoring, variant, rng=rng):
        events += step.events
        state = step.after
        if state.phase in (Phase.PASSING, Phase.PLAYING) and rng.random() < 0.15:
            found.append((state, list(events)))
    return found


def seen_by(seat: int, events: list[Event]) -> list[Event]:
    start = max(i for i, e in enumerate(events) if isinstance(e, RoundDealt))
    return [redact(e, SeatViewer(seat)) for e in events[start:]]


def fits(k: Knowledge, hands: list[set[Card]]) -> bool:
    """Whether ``hands`` (by seat) is a world the seat's knowledge allows."""
    return (
        all(
            len(hands[s]) == k.sizes[s]
            and k.known[s] <= hands[s]
            and not any(c.suit in k.voids[s] for c in hands[s])
            for s in range(k.players)
        )
        and hands[k.seat] == k.hand
    )


@pytest.mark.parametrize(("players", "scoring", "variant"), CASES)
def test_what_a_seat_knows_is_true_and_every_drawn_world_fits_it(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    """R-3.2 / R-7.2 (a card passed is in its receiver's hand), R-3.3 / R-7.3 (the
    leader holds the A), R-4.1 (a seat that did not follow is void)."""
    checked = 0
    for seed in range(6):
        for state, events in positions(players, scoring, variant, seed):
            assert state.config is not None and state.round is not None
            real = [set(h) for h in state.round.hands]
            in_hands = set().union(*real)
            for seat in range(players):
                k = knowledge(state.config, seat, seen_by(seat, events))
                assert k.hand == real[seat]
                assert fits(k, real), "the knowledge is true of the real hands"
                sampler = Sampler(k, state.config.deck)
                rng = random.Random(seed * 10 + seat)
                for _ in range(5):
                    world = sampler.draw(rng)
                    assert fits(k, world)
                    assert set().union(*world) == in_hands
                checked += 1
    assert checked > 50


def brute_force(k: Knowledge, unknown: list[Card]) -> list[tuple[frozenset[Card], ...]]:
    """Every world, by trying every seat for every unknown card."""
    others = [s for s in range(k.players) if s != k.seat]
    worlds = []
    for places in itertools.product(others, repeat=len(unknown)):
        hands = [set(known) for known in k.known]
        hands[k.seat] = set(k.hand)
        for c, s in zip(unknown, places, strict=True):
            hands[s].add(c)
        if fits(k, hands):
            worlds.append(tuple(frozenset(h) for h in hands))
    return worlds


def late_positions() -> list[tuple[GameState, list[Event], int]]:
    """Positions late in a round, where a seat's unknown cards are few enough to try
    every assignment (at most 9 cards), with voids and known cards among them."""
    found = []
    for seed in range(40):
        for state, events in positions(4, Scoring.BASIC, Variant.STANDARD, 100 + seed):
            assert state.config is not None and state.round is not None
            for seat in range(4):
                k = knowledge(state.config, seat, seen_by(seat, events))
                if 4 <= len(k.unknown(state.config.deck)) <= 9:
                    found.append((state, events, seat))
    return found


def test_the_draws_are_uniform_over_the_worlds_where_they_can_be_counted() -> None:
    late = late_positions()
    assert len(late) >= 5
    with_voids = 0
    for state, events, seat in late[:12]:
        assert state.config is not None
        k = knowledge(state.config, seat, seen_by(seat, events))
        with_voids += any(k.voids[s] for s in range(4) if s != seat)
        worlds = brute_force(k, k.unknown(state.config.deck))
        sampler = Sampler(k, state.config.deck)
        assert sampler.worlds == len(worlds)
        rng = random.Random(7)
        per_world = 60
        draws = Counter(
            tuple(frozenset(h) for h in sampler.draw(rng)) for _ in range(per_world * len(worlds))
        )
        assert set(draws) <= set(worlds)
        if len(worlds) == 1:
            continue
        # Pearson's chi-square against uniform: its 99.9th percentile is below
        # df + 5·sqrt(2·df) + 10 for these degrees of freedom (a fixed seed: no flake).
        chi2 = sum((draws[w] - per_world) ** 2 / per_world for w in worlds)
        df = len(worlds) - 1
        assert chi2 < df + 5 * (2 * df) ** 0.5 + 10, (chi2, df)
    assert with_voids > 0, "some positions had voids to honour"
