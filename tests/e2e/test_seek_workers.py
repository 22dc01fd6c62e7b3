"""Quick play with real `yokai worker` processes (docs/api.md "Quick play"): two workers
pairing one pool of many seeks, each seek once; a worker killed with SIGKILL in the
middle of a pairing, which leaves every seek either open (for another worker to pair)
or matched into a started game; and a match reaching its player through the player
stream, a webhook and the inbox.

Tests wait for outcomes with deadlines and assert outcomes, never timings. Every process
a test starts is stopped by the fixture that started it (tests/support/workers.py).
"""

from __future__ import annotations

import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
import pytest

from tests.integration.test_seek_races import assert_sound, waiting_on_locks
from tests.support.api import Api, bearer
from tests.support.sse import SseStream, served
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import receiving
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture

pytestmark = pytest.mark.slow


def new_player(api: Api, name: str) -> tuple[str, str]:
    """A player's id and token."""
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.get_json()["token"]


def seek(api: Api, token: str, players: int = 4) -> str:
    r = api.post("/v1/seeks", {"players": players}, **bearer(token))
    assert r.status_code == 201, r.get_json()
    seek_id: str = r.get_json()["id"]
    return seek_id


def statuses(url: str) -> dict[str, str]:
    with psycopg.connect(url) as conn:
        return {str(i): s for i, s in conn.execute("SELECT id, status FROM seeks").fetchall()}


def all_matched(url: str, count: int) -> bool:
    found = statuses(url)
    return len(found) == count and set(found.values()) == {"matched"}


def test_two_workers_pair_one_pool_of_many_seeks_each_once(setup: Setup) -> None:
    workers = [setup.worker(), setup.worker()]
    for w in workers:
        wait_for(lambda w=w: "started" in w.output(), "a worker to start")  # type: ignore[misc]
    tokens = [new_player(setup.api, f"P{n}")[1] for n in range(48)]
    flask = setup.api.client.application
    barrier = threading.Barrier(8)

    def seek_all(mine: list[str]) -> None:  # eight clients at once, as players arrive
        api = Api(flask.test_client())
        barrier.wait(timeout=60)
        for token in mine:
            seek(api, token)

    with ThreadPoolExecutor(max_workers=8) as clients:
        list(clients.map(seek_all, [tokens[i::8] for i in range(8)]))
    wait_for(lambda: all_matched(setup.url, 48), "every seek to be matched", 120)
    assert assert_sound(setup) == {"matched": 48}
    with psycopg.connect(setup.url) as conn:
        games = conn.execute("SELECT count(*) FROM games").fetchone()
    assert games == (12,)
    by_worker = [w.output().count("paired 4 seeks") for w in workers]
    assert sum(by_worker) == 12, by_worker
    print(f"\ngames paired by each worker: {by_worker}")


@pytest.mark.parametrize("commit_reaches_the_server", [False, True], ids=["rolled-back", "done"])
def test_a_worker_killed_mid_pairing_leaves_each_seek_open_or_in_a_started_game(
    setup: Setup, commit_reaches_the_server: bool
) -> None:
    """The first worker takes the pool and its seeks, and waits in its commit (the test
    holds a seeker's player row, which the seat it binds refers to); it is killed with
    SIGKILL. Rolled back (its connection dropped, as the server does for a dead client):
    every seek is open, and a second worker pairs them. Done (the commit was on its way
    and the server carries it out): every seek is matched into the started game, and the
    second worker has nothing to do."""
    players = [new_player(setup.api, f"P{n}") for n in range(4)]
    seeks = [seek(setup.api, token) for _, token in players]
    with (
        psycopg.connect(setup.url) as holder,
        psycopg.connect(setup.url, autocommit=True) as watcher,
    ):
        holder.execute("SELECT 1 FROM players WHERE id = %s FOR UPDATE", (players[2][0],))
        first = setup.worker()
        wait_for(waiting_on_locks(watcher, 1), "the first worker to wait in its commit")
        # Autocommit: a row this could lock is let go at once.
        free = watcher.execute("SELECT id FROM seeks FOR UPDATE SKIP LOCKED").fetchall()
        assert free == [], "the pairing holds every seek of the pool"
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=30)
        if not commit_reaches_the_server:
            for (pid,) in watcher.execute(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database()"
            ).fetchall():
                watcher.execute("SELECT pg_terminate_backend(%s)", (pid,))
        holder.rollback()
    if commit_reaches_the_server:
        wait_for(lambda: all_matched(setup.url, 4), "the commit the server carried out")
        assert assert_sound(setup) == {"matched": 4}
    else:
        assert set(statuses(setup.url).values()) == {"open"}
        assert assert_sound(setup) == {"open": 4}
    second = setup.worker()
    wait_for(lambda: all_matched(setup.url, 4), "every seek to be matched", 60)
    assert assert_sound(setup) == {"matched": 4}
    with psycopg.connect(setup.url) as conn:
        (game,) = conn.execute("SELECT DISTINCT game_id FROM seeks").fetchall()
        assert conn.execute("SELECT count(*) FROM games").fetchone() == (1,)
    assert setup.api.public(str(game[0]))["status"] == "passing"
    assert sorted(statuses(setup.url)) == sorted(seeks)
    if not commit_reaches_the_server:  # the second worker paired them
        wait_for(lambda: "paired 4 seeks" in second.output(), "the second worker's log")


def test_a_match_reaches_its_player_by_stream_webhook_and_inbox(setup: Setup) -> None:
    players = [new_player(setup.api, f"P{n}") for n in range(4)]
    token = players[0][1]
    flask = setup.api.client.application
    with receiving() as receiver, served(flask) as host:
        r = setup.api.post(
            "/v1/webhooks", {"url": receiver.url, "events": ["matched"]}, **bearer(token)
        )
        assert r.status_code == 201, r.get_json()
        receiver.secret = r.get_json()["secret"]
        with SseStream(host, "/v1/me/stream", bearer(token), timeout=60) as stream:
            first = stream.next()
            assert first is not None and first.event == "inbox"
            setup.worker()
            mine, *_ = [seek(setup.api, t) for _, t in players]
            matched, game = stream.until("matched")[-1], stream.next()
        (delivered,) = receiver.wait_for(1)
    assert matched.data["seek_id"] == mine
    found = setup.api.get(f"/v1/seeks/{mine}", **bearer(token)).get_json()
    assert matched.data == {"seek_id": mine, "game_id": found["game_id"], "seat": found["seat"]}
    assert game is not None and game.event == "game"
    assert (game.data["game_id"], game.data["action"]) == (found["game_id"], "pass")
    assert delivered.verified and delivered.message["type"] == "matched"
    data: dict[str, Any] = delivered.message["data"]
    assert {k: data[k] for k in ("seek_id", "game_id", "seat")} == matched.data
    (entry,) = setup.api.get("/v1/me/games", **bearer(token)).get_json()["games"]
    assert (entry["game_id"], entry["my_turn"], entry["action"]) == (found["game_id"], True, "pass")
