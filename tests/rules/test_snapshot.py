"""A state written as snapshot data and read back is the same state, at every step of
random games of every configuration (through JSON, as the store keeps it)."""

from __future__ import annotations

import json
import random

import pytest

from service.bots.selfplay import play_game
from service.rules import Scoring, Variant
from service.rules.snapshot import from_data, to_data


@pytest.mark.parametrize(
    ("players", "scoring", "variant"),
    [
        (4, Scoring.BASIC, Variant.STANDARD),
        (3, Scoring.ADVANCED, Variant.STANDARD),
        (4, Scoring.ADVANCED, Variant.STANDARD),
        (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
        (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
    ],
)
def test_every_state_of_a_game_survives_a_snapshot(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    steps = 0
    for step in play_game(players, scoring, variant, rng=random.Random(players * 31 + steps)):
        data = json.loads(json.dumps(to_data(step.after)))
        assert from_data(data) == step.after
        steps += 1
    assert steps > 50


def test_derived_config_fields_are_not_stored() -> None:
    """GameConfig's deck, hand size … follow from players and variant: left out, derived
    again when read."""
    last = None
    for step in play_game(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS, rng=random.Random(5)):
        last = step.after
    assert last is not None
    data = to_data(last)
    assert set(data["config"]) == {"players", "scoring", "variant", "clock", "visibility", "rated"}
    assert from_data(data).config == last.config
