"""The exhaustive search of a round's last tricks (service/bots/endgame.py) and the
search's use of it (``play_values(..., solve=)``), on the last three tricks of games
the basic bot plays: on the search's simulator and on the rules engine it gives every
card the same value; with four players the two teams' values of a card add up to 1
(what one team is sure of, the other can hope for at most: the minimax's pruning loses
nothing); a copied simulator plays on without touching the original; and with one deal
consistent with the seat's view, the search's values are the solver's exactly."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from service.bots.endgame import PlayoutNode, card_values
from service.bots.playout import Outcome, Playout
from service.bots.search import Budget, play_values, playout_of, share
from service.rules import GameState, SeatViewer, observe
from service.rules.cards import Card
from tests.support.endgame import MODES, EndPlay, end_plays, game, worlds
from tests.support.endgame import card_values as engine_values


def plays(seeds: range, cards_left: int = 3) -> Iterator[EndPlay]:
    for seed in seeds:
        yield from end_plays(game(seed), cards_left)


def simulated_values(state: GameState, side: int) -> dict[Card, float]:
    config = state.config
    assert config is not None

    def ours(seat: int) -> bool:
        return config.side_of(seat) == side

    def value(outcome: Outcome) -> float:
        return share(config, side, outcome)

    return card_values(PlayoutNode(playout_of(config, state)), ours, value)


def test_the_simulator_and_the_engine_give_every_card_the_same_value() -> None:
    checked = set()
    for play in plays(range(1, 9)):
        config = play.state.config
        assert config is not None
        side = config.side_of(play.at.seat)
        assert simulated_values(play.state, side) == engine_values(play.state, side)
        checked.add((config.players, config.scoring))
    assert checked == {(m.players, m.scoring) for m in MODES}  # every mode met


@pytest.mark.parametrize("cards_left", [2, 3])
def test_with_four_players_the_two_teams_values_add_up_to_one(cards_left: int) -> None:
    seen = 0
    for play in plays(range(2, 40, 2), cards_left):  # even seeds: four players
        assert play.state.config is not None and play.state.config.players == 4
        mine = engine_values(play.state, 0)
        theirs = engine_values(play.state, 1)
        assert {c: v + theirs[c] for c, v in mine.items()} == dict.fromkeys(mine, 1.0)
        seen += len(set(mine.values())) > 1  # a position where the card matters
    assert seen >= 5


def test_a_copied_playout_plays_on_without_changing_the_original() -> None:
    play = next(plays(range(2, 3)))
    config = play.state.config
    assert config is not None
    original = playout_of(config, play.state)
    before = vars_of(original)  # cards are one object each: a repr is a deep copy
    other = original.copy()
    assert vars_of(other) == before
    other.run()
    assert vars_of(original) == before
    assert original.copy().run() == other.outcome


MUTABLE = (
    *("hands", "trick", "turn", "tricks_won", "bosses", "tricks_played", "seals"),
    *("outcome", "side_tricks", "side_bosses", "trump_suit"),
)


def vars_of(sim: Playout) -> str:
    return repr({name: getattr(sim, name) for name in MUTABLE})


def test_with_one_consistent_deal_the_search_gives_the_solvers_values() -> None:
    checked = misjudged = 0
    for play in plays(range(1, 40)):
        config = play.state.config
        assert config is not None
        seat = play.at.seat
        dealt = worlds(config, play.state, seat, play.feed)
        if len(dealt) != 1:
            continue
        view = observe(play.state, SeatViewer(seat))
        rng = random.Random(1)
        values = play_values(config, view, play.feed, rng, Budget(5), share, solve=3)
        exact = {c.id: v for c, v in engine_values(dealt[0], config.side_of(seat)).items()}
        assert values == pytest.approx(exact)
        checked += 1
        unsolved = play_values(config, view, play.feed, rng, Budget(5), share)
        misjudged += unsolved != pytest.approx(values)  # the playouts alone say otherwise
    assert checked >= 10 and misjudged >= 1
