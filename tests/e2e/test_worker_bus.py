"""A real `yokai worker` on the bus (YOKAI_REDIS_URL): it hears that a bot must move on
Redis, not from PostgreSQL (the app's commands send no NOTIFY), and it goes on moving
the bots while Redis is away, looking at its jobs every second, until it can subscribe
again. The waits have deadlines shorter than the 30 s an idle worker sleeps when it
hears nothing (worker.py POLL_SECONDS): a bot that moves within one was heard of."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from service.adapters import migrate
from service.settings import Settings
from tests.support.api import OPERATOR_TOKEN, Api, Game, bearer
from tests.support.postgres import new_database, running_app
from tests.support.processes import Started, start
from tests.support.redis_server import RedisServer, running
from tests.support.waiting import WaitedTooLongError, wait_for
from tests.support.workers import YOKAI

pytestmark = pytest.mark.slow

HEARD_WITHIN = 15  # seconds: half the idle worker's longest sleep


@pytest.fixture
def bus() -> Iterator[RedisServer]:
    with running() as server:
        yield server


@pytest.fixture
def api_and_url(server_url: str, settings: Settings, bus: RedisServer) -> Iterator[tuple[Api, str]]:
    url = new_database(server_url, "yokai_worker_bus")
    migrate.upgrade(url)
    with running_app(replace(settings, database_url=url, redis_url=bus.url)) as app:
        yield app.api(), url


@pytest.fixture
def worker(api_and_url: tuple[Api, str], bus: RedisServer, tmp_path: Path) -> Iterator[Started]:
    started = start(
        [*YOKAI, "worker"],
        tmp_path / "worker.log",
        env={
            **os.environ,
            "DATABASE_URL": api_and_url[1],
            "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
            "YOKAI_REDIS_URL": bus.url,
        },
        what="yokai worker",
    )
    try:
        yield started
    finally:
        started.stop()


def subscriptions(worker: Started) -> int:
    return worker.output().count("worker bus: subscribed to yokai:jobs")


def act(api: Api, game: Game, worker: Started) -> bool:
    """Seat 0 acts once the bots (moved by the worker) give it the turn; False once the
    game is over."""
    seen: dict[str, Any] = {}

    def ready() -> bool:
        seen["view"] = view = api.view(game, 0)
        return view["status"] == "finished" or view["action"] in ("pass", "play")

    try:
        wait_for(ready, "the bots to move and give seat 0 the turn", HEARD_WITHIN)
    except WaitedTooLongError as error:
        raise WaitedTooLongError(
            f"{error}: {seen.get('view')}; the worker said:\n{worker.tail()}"
        ) from None
    mine = seen["view"]
    if mine["status"] == "finished":
        return False
    if mine["action"] == "pass":
        answer = api.pass_cards(game, 0, mine["legal"][:3])
    else:
        answer = api.play(game, 0, mine["legal"][0])
    assert answer.status_code == 200, answer.get_json()
    return True


def test_a_worker_on_the_bus_moves_the_bots_and_carries_on_while_redis_is_away(
    api_and_url: tuple[Api, str], bus: RedisServer, worker: Started
) -> None:
    api, _ = api_and_url
    worker.wait_ready(lambda: subscriptions(worker) >= 1, 30)
    player = api.post("/v1/players", {"name": "Mio"}).get_json()
    bots = [{"seat": s, "level": "random"} for s in (1, 2, 3)]
    created = api.create(4, bots=bots)
    game = Game(created["id"], 4)
    joined = api.post(f"/v1/games/{game.id}/seats/0", {}, **bearer(player["token"]))
    assert joined.status_code == 201, joined.get_json()
    game.tokens = [player["token"], "", "", ""]
    for _ in range(4):  # the passes, and plays heard of on the bus
        assert act(api, game, worker)

    bus.stop()  # the worker is deaf: it looks at its jobs every second
    for _ in range(3):
        assert act(api, game, worker)  # the app's commands succeed without Redis

    bus.start()
    worker.wait_ready(lambda: subscriptions(worker) >= 2, 30)
    for _ in range(3):
        if not act(api, game, worker):
            break
