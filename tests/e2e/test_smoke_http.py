"""A complete game through HTTP, end to end, for each configuration."""

from __future__ import annotations

import random

import pytest

from tests.support.api import Api


@pytest.mark.parametrize(
    ("players", "scoring", "variant"),
    [
        (4, "basic", "standard"),
        (3, "advanced", "standard"),
        (4, "advanced", "standard"),
        (4, "basic", "seven_followers_short"),
    ],
)
def test_a_random_game_plays_to_the_end_through_http(
    api: Api, players: int, scoring: str, variant: str
) -> None:
    game = api.start(players, scoring=scoring, variant=variant)
    commands = list(api.play_out(game, random.Random(7)))
    public = api.public(game.id)
    assert public["status"] == "finished"
    assert public["winner"] is not None
    assert len(commands) > players * 3
    assert public["version"] == len(api.feed(game, None))
