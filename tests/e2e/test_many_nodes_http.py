"""Two `yokai serve` nodes of one deployment (one database, one Redis: YOKAI_REDIS_URL),
each with its embedded worker, whose relays take turns holding the lock: a stream held by
one node gets every event of commands sent to the other, in order, none missing or
repeated, while Redis is killed and started again in the middle of the game; commands
succeed throughout, and the node says `degraded` while Redis is away."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.support.postgres import migrated_database
from tests.support.redis_server import RedisServer
from tests.support.serve import OPERATOR_TOKEN, serving
from tests.support.sse import SseStream
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        raise AssertionError(f"{method} {path}: {error.code} {error.read()!r}") from None


def ready(base: str) -> dict[str, Any]:
    with urllib.request.urlopen(base + "/readyz", timeout=5) as answer:
        found: dict[str, Any] = json.loads(answer.read())
        found["code"] = answer.status
        return found


class Table:
    """A game played through one node, one command at a time."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.id = call(base, "POST", "/v1/games", {"players": 4}, OPERATOR_TOKEN)["id"]
        self.tokens = [
            call(base, "POST", f"/v1/games/{self.id}/seats/{s}", {"name": f"p{s}"})["token"]
            for s in range(4)
        ]

    def step(self) -> int:
        """The next command of the first seat that may act (a pass or a play): the
        game's version after it."""
        for token in self.tokens:
            view = call(self.base, "GET", f"/v1/games/{self.id}/view", token=token)
            if view["action"] == "pass":
                body, path = {"cards": view["legal"][:3]}, "pass"
            elif view["action"] == "play":
                body, path = {"card": view["legal"][0]}, "play"
            else:
                continue
            done = call(self.base, "POST", f"/v1/games/{self.id}/{path}", body, token)
            return int(done["version"])
        raise AssertionError(f"no seat of {self.id} may act")


def test_a_stream_on_one_node_gets_every_event_of_the_other_across_a_redis_restart(
    server_url: str, tmp_path: Path, redis_server: RedisServer
) -> None:
    bus = redis_server
    database = migrated_database(server_url, "yokai_nodes")  # migrated once, not by both
    node = {"YOKAI_REDIS_URL": bus.url, "YOKAI_WORKERS": "1", "YOKAI_KEEPALIVE_SECONDS": "1"}
    with ExitStack() as stack:
        one = stack.enter_context(
            serving(server_url, tmp_path / "one.log", database=database, **node)
        )
        two = stack.enter_context(
            serving(server_url, tmp_path / "two.log", database=database, **node)
        )
        table = Table(one)
        host = two.removeprefix("http://")
        stream = stack.enter_context(SseStream(host, f"/v1/games/{table.id}/stream", timeout=20))
        assert stream.status == 200
        opened = stream.until("view")[-1].id or 0

        versions = [table.step() for _ in range(6)]  # the passes, and plays
        # Announced through Redis by a relay (the plays send no NOTIFY): long before the
        # stream's read would time out.
        got = stream.until("view", versions[-1], seconds=10)
        bus.stop()  # Redis killed in the middle of the game
        said = wait_for(
            lambda: (found := ready(two))["status"] == "degraded" and found,
            "node two to say degraded",
            20,
        )
        assert said["code"] == 200  # still serving
        versions += [table.step() for _ in range(6)]  # commands succeed meanwhile
        bus.start()
        versions += [table.step() for _ in range(6)]
        wait_for(lambda: ready(two)["status"] == "ok", "node two to say ok again", 20)

        got += stream.until("view", versions[-1], seconds=20)
        seqs = [m.id for m in got if m.event == "game_event"]
        assert seqs == list(range(opened + 1, versions[-1] + 1))  # none missing, none twice
