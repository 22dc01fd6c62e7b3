"""Self-play: bots on every seat play whole games, each from its own seat's view."""

from __future__ import annotations

import ast
import random
import sys
from pathlib import Path

import pytest

import service.bots
from service.bots import Move, random_move
from service.bots.selfplay import play_game
from service.rules import Phase, Scoring, SeatView, Variant, fold

CONFIGS = [
    (3, Scoring.BASIC, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
]


@pytest.mark.parametrize(("players", "scoring", "variant"), CONFIGS)
def test_bots_play_a_game_to_its_end_seeing_only_their_seat(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    seen: list[SeatView] = []

    def watched(view: SeatView, rng: random.Random) -> Move | None:
        assert type(view) is SeatView  # not the operator's view, not the state
        assert view.action is not None  # asked only when the seat must act
        seen.append(view)
        return random_move(view, rng)

    steps = list(play_game(players, scoring, variant, rng=random.Random(5), bot=watched))
    assert steps[-1].after.phase is Phase.FINISHED
    assert fold(e for step in steps for e in step.events) == steps[-1].after
    assert {view.seat for view in seen} == set(range(players))


def test_the_same_rng_plays_the_same_game() -> None:
    def history(seed: int) -> list[object]:
        steps = play_game(4, Scoring.ADVANCED, rng=random.Random(seed))
        return [e for step in steps for e in step.events]

    assert history(11) == history(11)
    assert history(11) != history(12)


def test_bots_import_only_the_rules_and_the_standard_library() -> None:
    found: list[tuple[str, str]] = []
    for path in sorted(Path(service.bots.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found += [(path.name, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.append((path.name, node.module))
    assert found, "the scan found no imports at all"
    foreign = [
        (f, m)
        for f, m in found
        if m.split(".")[0] not in sys.stdlib_module_names
        and m != "__future__"
        and not m.startswith(("service.rules", "service.bots"))
    ]
    assert foreign == []
