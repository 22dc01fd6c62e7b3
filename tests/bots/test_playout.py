"""The search bots' simulator (service/bots/playout.py) against the engine: random games
of every kind, each round played through both from its first trick; the same legal
cards (R-4.1, R-4.2), trick winners (R-4.3, R-7.5), round ends and points (R-5.1 to
R-5.4, R-6.2 to R-6.4; R-7.4, R-7.6 to R-7.8).

Both ask service/rules/scoring.py whether a round is over and what it scores, each
from its own bookkeeping: the engine from the state its events fold to, the simulator
from the lists it updates in place. So the test compares that bookkeeping after every
trick (tricks and bosses taken by seat, tricks played, the trump suit, the hands, the
seals), as well as the ends and points it leads to."""

from __future__ import annotations

import random

import pytest

from service.bots.playout import Playout
from service.bots.selfplay import play_game
from service.rules import PlayCard, Scoring, Variant, legal_cards
from service.rules.events import PassesExchanged, RoundEnded, TrickTaken
from service.rules.scoring import side_totals

CASES = [
    (3, Scoring.BASIC, Variant.STANDARD),
    (3, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
]


@pytest.mark.parametrize(("players", "scoring", "variant"), CASES)
def test_rounds_played_through_the_simulator_end_as_the_engines(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    """R-4.1, R-4.3, R-5.1, R-5.2, R-5.3, R-6.3, R-6.4, R-7.5, R-7.6, R-7.7, R-7.8."""
    rounds = 0
    for seed in range(25):
        sim: Playout | None = None
        for step in play_game(players, scoring, variant, rng=random.Random(seed)):
            state = step.after
            if isinstance(step.command, PlayCard) and sim is not None:
                seat, played = step.command.seat, step.command.card
                assert sim.outcome is None and sim.turn == seat
                assert set(sim.legal()) == set(legal_cards(step.before, seat))
                sim.play(played)
            for e in step.events:
                if isinstance(e, PassesExchanged):
                    r = state.round
                    assert state.config is not None and r is not None and r.leader is not None
                    sim = Playout(
                        state.config,
                        [list(h) for h in r.hands],
                        [],
                        r.leader,
                        r.trump_suit,
                        [0] * players,
                        [[] for _ in range(players)],
                        0,
                        (tuple(state.seals[0]), tuple(state.seals[1])) if state.seals else ((), ()),
                    )
                elif isinstance(e, TrickTaken) and sim is not None:
                    r = state.round
                    assert r is not None and state.config is not None
                    assert sim.turn == e.winner  # the trick's winner leads the next
                    assert sim.tricks_played == e.number
                    assert sim.trump_suit is r.trump_suit
                    assert sim.hands == [list(h) for h in r.hands]
                    assert sim.tricks_won == list(r.tricks_won)
                    assert [set(b) for b in sim.bosses] == [set(b) for b in r.bosses]
                    assert sim.side_tricks == side_totals(state.config, r.tricks_won)
                    assert sim.side_bosses == side_totals(state.config, map(len, r.bosses))
                    if state.seals:
                        assert [set(x) for x in sim.seals] == [set(x) for x in state.seals]
                elif isinstance(e, RoundEnded) and sim is not None:
                    assert sim.outcome is not None
                    assert (sim.outcome.winners, sim.outcome.points) == (e.winners, e.points)
                    rounds += 1
                    sim = None
    assert rounds >= 25
