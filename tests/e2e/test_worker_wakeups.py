"""A seek's wake-up with a real `yokai worker` process busy playing bots (issue 44: a lone
seek with ``bots_after_seconds: 5`` waited 20 s while the worker played a game's bots).

The worker plays a game of four expert bots, move after move (each move is due at once,
so its loop runs jobs without a pause until the game ends); a player seeks meanwhile.
The seek is paired while the bot game still runs: before issue 44 the pairing was not
asked again until that run of moves ended, its seek's announcement unread, and its
bots' due time, passed meanwhile, lost when read again. The test waits with deadlines
and asserts outcomes, never timings; the fixture stops the worker.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_seek_tables import matched, seek, started
from tests.e2e.test_seek_workers import new_player
from tests.support.waiting import wait_for
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture

pytestmark = pytest.mark.slow


def status(setup: Setup, game_id: str) -> str:
    found: str = setup.api.public(game_id)["status"]
    return found


def test_a_seek_is_paired_at_its_time_while_the_worker_plays_a_long_bot_game(
    setup: Setup,
) -> None:
    started(setup)
    bots: list[dict[str, Any]] = [{"seat": s, "level": "expert"} for s in range(4)]
    game_id = setup.api.create(4, bots=bots)["id"]
    wait_for(lambda: status(setup, game_id) == "playing", "the bots to have passed")
    token = new_player(setup.api, "Mio")[1]
    asked = [(token, seek(setup.api, token, bots_after_seconds=5))]
    (found,) = wait_for(lambda: matched(setup.api, asked), "the seek to be matched", 120)
    assert status(setup, game_id) != "finished", "paired only once the bots were done"
    assert setup.api.public(found["game_id"])["status"] == "passing"
