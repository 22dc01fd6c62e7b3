"""A provably fair game's server seed stays secret until the game ends, everywhere a
real `yokai serve` process (gunicorn and its embedded worker) lets anything out (docs/api.md
"Provably fair shuffles"; issue 17): views, feeds, state, audit, records (text and
JSON, every viewer), the export, game and player streams (SSE), long-polls on events and
on the inbox, webhook payloads (a player's and the operators'), and the process's own
log lines. Then the game ends, and the seed is there for all to check.

Everything is read over real sockets while a whole game (two rounds at least, then a
resignation: the end comes at a command the test chooses) is played on the server.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_serve_process import Served, start, stop
from tests.support.postgres import new_database
from tests.support.sse import Message, SseStream
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import Receiver, receiving

pytestmark = pytest.mark.slow

OPERATOR_TOKEN = "seed-secrecy-operator-token-of-32-chars"
OPERATOR = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
JSON = {"Content-Type": "application/json"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Client:
    base: str
    seen: list[str] = field(default_factory=list)  # every body read, as text

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str]:
        data = None if body is None else json.dumps(body).encode()
        sent = {**(JSON if body is not None else {}), **(headers or {})}
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                status, got, text = r.status, dict(r.headers), r.read().decode()
        except urllib.error.HTTPError as err:
            status, got, text = err.code, dict(err.headers), err.read().decode()
        self.seen.append(text)
        return status, got, text

    def json(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Any:
        status, _, text = self.call(method, path, body, headers)
        assert status in (200, 201), (method, path, status, text)
        return json.loads(text)


class Reader:
    """An SSE stream read in a thread, every message kept."""

    def __init__(self, host: str, path: str, headers: dict[str, str]) -> None:
        self.stream = SseStream(host, path, headers, timeout=30)
        assert self.stream.status == 200, self.stream.problem()
        self.messages: list[Message] = []
        self.ended = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            while (message := self.stream.next()) is not None:
                with self._lock:
                    self.messages.append(message)
        except (OSError, ValueError, AttributeError):
            pass  # closed by the test
        finally:
            self.ended.set()

    def has(self, check: Callable[[Message], bool]) -> bool:
        with self._lock:
            return any(check(m) for m in self.messages)

    def text(self) -> list[str]:
        with self._lock:
            return [json.dumps(m.data) for m in self.messages]

    def close(self) -> None:
        self.stream.close()
        self._thread.join(timeout=30)


def long_poll(client: Client, path: str, headers: dict[str, str]) -> threading.Thread:
    """A long-poll in a thread; its answer lands in ``client.seen``."""
    thread = threading.Thread(target=client.call, args=("GET", path, None, headers))
    thread.start()
    return thread


def everything_readable(client: Client, game_id: str, tokens: list[str], player: str) -> None:
    """Read everything the game offers anyone now (the bodies land in client.seen)."""
    paths: list[tuple[str, dict[str, str]]] = [
        (f"/v1/games/{game_id}", {}),
        (f"/v1/games/{game_id}/record", {}),
        (f"/v1/games/{game_id}/record", {"Accept": "application/json"}),
        (f"/v1/games/{game_id}/record", OPERATOR),
        (f"/v1/games/{game_id}/state", OPERATOR),
        (f"/v1/games/{game_id}/audit?limit=1000", OPERATOR),
        (f"/v1/games/{game_id}/events?limit=1000", OPERATOR),
        ("/v1/export", OPERATOR),
        ("/v1/me/games?status=all", bearer(player)),
        ("/v1/me", bearer(player)),
    ]
    for token in tokens:
        paths += [
            (f"/v1/games/{game_id}/view", bearer(token)),
            (f"/v1/games/{game_id}/events?limit=1000", bearer(token)),
            (f"/v1/games/{game_id}/record", bearer(token)),
            (f"/v1/games/{game_id}/record", {**bearer(token), "Accept": "application/json"}),
        ]
    for path, headers in paths:
        status, _, text = client.call("GET", path, None, headers)
        assert status == 200, (path, status, text)


def at_version(message: Message, version: int) -> bool:
    """A game stream's view, or a player stream's entry, at ``version``."""
    if message.event == "view":
        return message.id == version
    return message.event == "game" and message.data["version"] == version


def forms(seed_hex: str) -> list[str]:
    """The seed as hex and as base64 (either alphabet, padded or not)."""
    raw = bytes.fromhex(seed_hex)
    b64 = base64.b64encode(raw).decode()
    url = base64.urlsafe_b64encode(raw).decode()
    return [seed_hex, seed_hex.upper(), b64, b64.rstrip("="), url, url.rstrip("=")]


def leaks(texts: list[str], seed_hex: str) -> list[str]:
    return [t[:200] for t in texts if any(f in t for f in forms(seed_hex))]


def test_the_server_seed_reaches_nobody_and_no_log_line_before_the_end(
    server_url: str, tmp_path: Path
) -> None:
    url = new_database(server_url, "yokai_seed")
    served: Served = start(
        {
            "DATABASE_URL": url,
            "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
            "YOKAI_FAIRNESS_KEY": "11" * 32,
            "YOKAI_DATA_DIR": str(tmp_path / "data"),
            "YOKAI_WEBHOOK_ALLOW_PRIVATE": "1",  # the receiver is on 127.0.0.1
            "YOKAI_WEBHOOK_FIRST_RETRY_SECONDS": "0.5",
            "YOKAI_KEEPALIVE_SECONDS": "1",
            "YOKAI_LOG_LEVEL": "INFO",
            "YOKAI_RATE_LIMIT": "100000 per minute",  # one client plays every seat
        },
        tmp_path,
    )
    host = served.base.removeprefix("http://")
    client = Client(served.base)
    readers: list[Reader] = []
    receiver: Receiver
    try:
        with receiving() as receiver, receiving() as operators_receiver:
            player = client.json("POST", "/v1/players", {"name": "Mio"})["token"]
            hook = client.json(
                "POST",
                "/v1/webhooks",
                {"url": receiver.url, "events": ["turn", "game_started", "round_finished"]},
                bearer(player),
            )
            receiver.secret = hook["secret"]
            every = ["turn", "game_started", "round_finished", "game_finished"]
            hook = client.json(
                "POST", "/v1/webhooks", {"url": operators_receiver.url, "events": every}, OPERATOR
            )
            operators_receiver.secret = hook["secret"]

            game_id = client.json("POST", "/v1/games", {"players": 4})["id"]
            readers.append(Reader(host, f"/v1/games/{game_id}/stream", {}))
            readers.append(Reader(host, f"/v1/games/{game_id}/stream", OPERATOR))
            readers.append(Reader(host, "/v1/me/stream", bearer(player)))
            tokens = [client.json("POST", f"/v1/games/{game_id}/seats/0", {}, bearer(player))]
            tokens[0] = player  # the player's token acts for its seat
            for seat in (1, 2, 3):
                joined = client.json(
                    "POST", f"/v1/games/{game_id}/seats/{seat}", {"name": f"p{seat}"}
                )
                tokens.append(joined["token"])
            for token in tokens:
                readers.append(Reader(host, f"/v1/games/{game_id}/stream", bearer(token)))
            commitment = client.json("GET", f"/v1/games/{game_id}")["fairness"]["commitment"]

            rng = random.Random(17)
            polls: list[threading.Thread] = []
            step = 0
            while True:
                public = client.json("GET", f"/v1/games/{game_id}")
                version = public["version"]
                if len(public["rounds"]) >= 1 and public["round"]["trick"]:
                    break  # round 2 is under way: the end comes next, by a resignation
                if step % 25 == 0:
                    everything_readable(client, game_id, tokens, player)
                    after = f"after={version}&wait=30"
                    polls.append(
                        long_poll(client, f"/v1/games/{game_id}/events?{after}", bearer(tokens[2]))
                    )
                    _, headers, _ = client.call("GET", "/v1/me/games", None, bearer(player))
                    inbox = {**bearer(player), "If-None-Match": headers["ETag"]}
                    polls.append(long_poll(client, "/v1/me/games?wait=30", inbox))
                views = [
                    client.json("GET", f"/v1/games/{game_id}/view", None, bearer(t)) for t in tokens
                ]
                ready = [v for v in views if v["action"] is not None]
                assert ready, public
                v = rng.choice(ready)
                if v["action"] == "pass":
                    move = ("pass", {"cards": rng.sample(v["legal"], 3)})
                else:
                    move = ("play", {"card": rng.choice(v["legal"])})
                client.json(
                    "POST", f"/v1/games/{game_id}/{move[0]}", move[1], bearer(tokens[v["seat"]])
                )
                step += 1
            for poll in polls:
                poll.join(timeout=60)
            everything_readable(client, game_id, tokens, player)
            # Everything before the end has arrived: the streams are at this version, the
            # webhooks up to it delivered.
            for reader in readers:
                wait_for(
                    lambda r=reader: r.has(lambda m: at_version(m, version)),  # type: ignore[misc]
                    "every stream to reach the version before the end",
                )
            wait_for(
                lambda: any(
                    r.message and r.message["type"] == "round_finished"
                    for r in operators_receiver.received
                ),
                "the operators' round_finished webhook",
            )
            wait_for(lambda: receiver.received, "the player's webhooks")
            before = (
                list(client.seen)
                + [t for r in readers for t in r.text()]
                + [r.body.decode() for r in receiver.received]
                + [r.body.decode() for r in operators_receiver.received]
            )

            # The end: seat 1 resigns.
            client.json("POST", f"/v1/games/{game_id}/resign", None, bearer(tokens[1]))
            end = client.json("GET", f"/v1/games/{game_id}")
            assert end["status"] == "finished"
            seed = end["fairness"]["server_seed"]
            assert isinstance(seed, str) and len(seed) == 64
            assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == commitment
            assert leaks(before, seed) == [], "the server seed was out before the end"

            # After the end it is everyone's: the public stream's last view shows it, and
            # the record and the export name it (the scan above would have seen it).
            public_stream = readers[0]
            wait_for(public_stream.ended.is_set, "the public stream's end")
            assert leaks(public_stream.text(), seed)
            _, _, text = client.call("GET", f"/v1/games/{game_id}/record")
            assert f'[ServerSeed "{seed}"]' in text
            finished = wait_for(
                lambda: [
                    r
                    for r in operators_receiver.received
                    if r.message and r.message["type"] == "game_finished"
                ],
                "the operators' game_finished webhook",
            )
            assert all(r.verified for r in finished)
            webhooks = [r.body.decode() for r in receiver.received + operators_receiver.received]
            assert leaks(webhooks, seed) == []  # a webhook never carries it
    finally:
        for reader in readers:
            reader.close()
        assert stop(served) == 0
    lines = served.started.output().splitlines()
    requests = [x for x in lines if '"yokai.request"' in x]
    assert len(requests) >= len(client.seen)  # every request above was logged
    assert any('"yokai.worker"' in x for x in lines)  # and the embedded worker spoke
    assert leaks(lines, seed) == [], "a log line holds the server seed"
