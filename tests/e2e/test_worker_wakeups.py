"""A seek's wake-up with a real `yokai worker` process busy playing bots (issue 44: a lone
seek with ``bots_after_seconds: 5`` waited 20 s while the worker played a game's bots).

- The worker plays a game of four expert bots, move after move (each move is due at
  once, so its loop runs jobs without a pause until the game ends); a player seeks
  meanwhile. The seek is paired while the bot game still runs: before issue 44 the
  pairing was not asked again until that run of moves ended, its seek's announcement
  unread, and its bots' due time, passed meanwhile, lost when read again.
- A join that makes bots due and a seek are announced in one read of the worker's: the
  seek is not lost behind the join's due time.

The tests wait with deadlines and assert outcomes, never timings; the fixture stops the
worker.
"""

from __future__ import annotations

import signal
from datetime import datetime
from typing import Any

import psycopg
import pytest

from tests.e2e.test_seek_tables import matched, seek, started
from tests.e2e.test_seek_workers import new_player
from tests.support.api import bearer
from tests.support.waiting import wait_for
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture

pytestmark = pytest.mark.slow


def status(setup: Setup, game_id: str) -> str:
    found: str = setup.api.public(game_id)["status"]
    return found


def first_and_last(setup: Setup, game_id: str) -> tuple[datetime, datetime]:
    """When a game's first and last events were recorded (the store's own clock)."""
    with psycopg.connect(setup.url) as conn:
        row = conn.execute(
            "SELECT min(recorded_at), max(recorded_at) FROM events WHERE game_id = %s",
            (game_id,),
        ).fetchone()
    assert row is not None and row[0] is not None
    return row[0], row[1]


def test_a_seek_is_paired_at_its_time_while_the_worker_plays_a_long_bot_game(
    setup: Setup,
) -> None:
    started(setup)
    bots: list[dict[str, Any]] = [{"seat": s, "level": "expert"} for s in range(4)]
    # Three games of advanced scoring (rounds until a side has 7 points), their moves
    # interleaved by the worker, so that its run of moves outlasts the seek's 5 s with
    # room: one basic-scoring game can end within ten seconds here, and under load even
    # one advanced game once ended before the pairing (CI failed so, twice).
    games = [setup.api.create(4, bots=bots, scoring="advanced")["id"] for _ in range(3)]
    wait_for(lambda: all(status(setup, g) == "playing" for g in games), "the bots to have passed")
    token = new_player(setup.api, "Mio")[1]
    asked = [(token, seek(setup.api, token, bots_after_seconds=5))]
    (found,) = wait_for(lambda: matched(setup.api, asked), "the seek to be matched", 120)
    # The order read from the store, not from when this test looked: the paired game was
    # created before the last of the bot games' moves (so far, if one still runs).
    paired = first_and_last(setup, found["game_id"])[0]
    last_move = max(first_and_last(setup, g)[1] for g in games)
    still_playing = any(status(setup, g) != "finished" for g in games)
    assert still_playing or paired < last_move, "paired only once the bots were done"
    assert setup.api.public(found["game_id"])["status"] == "passing"


def test_a_seek_announced_behind_a_game_s_due_time_is_not_lost(setup: Setup) -> None:
    """The announcements of a join (a bot must pass) and of a seek reach the worker in one
    read: the worker is stopped (SIGSTOP) while both are made, and let go on. Before
    issue 44 it woke for the first and dropped the rest of the read, and the pairing,
    which had read its due time just before, heard of the seek only when that went
    stale (30 s on). The deadline lies well before that."""
    worker = setup.worker()
    wait_for(lambda: "started" in worker.output(), "the worker to start")
    bots: list[dict[str, Any]] = [{"seat": s, "level": "basic"} for s in range(4)]
    warm = setup.api.create(4, bots=bots)["id"]  # the loop turns, the pairing reads
    wait_for(lambda: status(setup, warm) == "finished", "a first bot game to end")
    token = new_player(setup.api, "Mio")[1]
    worker.process.send_signal(signal.SIGSTOP)
    try:
        r = setup.api.post(
            "/v1/games",
            {"players": 4, "bots": [{"seat": s, "level": "basic"} for s in (1, 2, 3)]},
        )
        assert r.status_code == 201, r.get_json()
        r = setup.api.post(
            f"/v1/games/{r.get_json()['id']}/seats/0", {"name": "Mio"}, **bearer(token)
        )
        assert r.status_code == 201, r.get_json()
        asked = [(token, seek(setup.api, token, bots_after_seconds=5))]
    finally:
        worker.process.send_signal(signal.SIGCONT)
    wait_for(lambda: matched(setup.api, asked), "the seek to be matched", 20)
