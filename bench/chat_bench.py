"""Table talk benchmark (issue 47): how soon does a chat message reach 200 open streams of
one table's watchers, and what does a message cost the server beside a play?

1. Starts `yokai serve` (the product's gunicorn config; an embedded PostgreSQL unless
   DATABASE_URL is set), with the per-process stream limits raised (every client here
   is 127.0.0.1) and the request rate limit raised as bench/http_bench.py raises it.
2. Delivery: one four-player game; ``--streams`` players without a seat each open its
   game stream (spectators: `GET /v1/games/{id}/stream` with a player token); then
   ``--messages`` messages are written on the spectators' channel, one every
   ``--every-ms``, by senders taking turns (5 messages in 10 s each, the chat's limit).
   Each stream notes the wall clock at which each `event: chat` arrived; the lag of a
   delivery is that minus the message's `at` (the server's clock when the command was
   decided, just before its commit: same machine). Prints p50/p99/max over every
   delivery, and how many of the expected deliveries arrived.
3. CPU: ``--cost`` chat messages (by players without a seat: spectators) and as many
   passes and plays (of games planned with the rules engine, bench/http_games.py), in
   alternate blocks of 50, each sent one at a time on one connection, no stream open;
   the CPU seconds of the web processes and of PostgreSQL over each kind's blocks
   (tests/support/cpu.py), per request. Goal: a message costs no more than a play.

    .venv/bin/python -m bench.chat_bench --streams 200 --messages 100

Goals (issue 47): delivery p99 <= 200 ms to 200 streams; a message's CPU <= a play's. It
asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.http_bench import service
from bench.http_games import OPERATOR_TOKEN, Client, new_game
from bench.stream_bench import Spec, _chunks, _head, _request
from service.rules import Scoring, Variant
from tests.support.cpu import Accounts, per_request
from tests.support.figures import spread_ms
from tests.support.sse import SseParser

STREAM_LIMIT = "100000"


class Watchers:
    """The streams, held on an asyncio loop in a thread: for each, when each chat message
    (by id) arrived."""

    def __init__(self, port: int, specs: list[Spec]) -> None:
        self.port = port
        self.specs = specs
        self.arrivals: list[dict[int, float]] = [{} for _ in specs]
        self.opened = 0
        self.errors: list[str] = []
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._tasks: list[asyncio.Task[None]] = []

    def open(self, timeout: float) -> None:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._open(timeout), self._loop).result(timeout + 30)

    async def _open(self, timeout: float) -> None:
        firsts = []
        for i, spec in enumerate(self.specs):
            first: asyncio.Future[None] = self._loop.create_future()
            firsts.append(first)
            self._tasks.append(asyncio.create_task(self._hold(i, spec, first)))
        await asyncio.wait(firsts, timeout=timeout)

    async def _hold(self, i: int, spec: Spec, first: asyncio.Future[None]) -> None:
        parser = SseParser()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 22)
            writer.write(_request(spec, self.port))
            status, headers = await _head(reader)
            if status != 200:
                self.errors.append(f"stream {i}: {status}")
                return
            chunked = "chunked" in headers.get("transfer-encoding", "").lower()
            async for received, data in _chunks(reader, chunked):
                for frame in parser.feed(data):
                    if frame.event == "view" and not first.done():
                        self.opened += 1
                        first.set_result(None)
                    elif frame.event == "chat":
                        self.arrivals[i][json.loads(frame.data)["id"]] = received
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self.errors.append(f"stream {i}: {type(error).__name__}: {error}")
        finally:
            if not first.done():
                first.set_result(None)

    def stop(self) -> None:
        async def cancel() -> None:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(cancel(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)


def players(client: Client, n: int, prefix: str) -> list[str]:
    tokens = []
    for i in range(n):
        status, made = client.call("POST", "/v1/players", {"name": f"{prefix}{i}"})
        assert status == 201, made
        tokens.append(made["token"])
    return tokens


def delivery(port: int, streams: int, messages: int, every_ms: int) -> None:
    client = Client(port)
    game = new_game(client, 4747, Variant.STANDARD, Scoring.BASIC)
    watchers = players(client, streams, "w")
    path = f"/v1/games/{game.id}/stream"
    held = Watchers(port, [Spec(path, t, "watcher") for t in watchers])
    held.open(timeout=120)
    print(f"{held.opened} of {streams} spectator streams open ({len(held.errors)} errors)")
    senders = watchers[: max(1, min(streams, 20))]
    sent: dict[int, float] = {}
    try:
        time.sleep(1.0)  # the streams settle (a bench, not a test: nothing to wait for)
        for n in range(messages):
            token = senders[n % len(senders)]
            status, body = client.call(
                "POST", f"/v1/games/{game.id}/chat", {"text": f"message {n}"}, token
            )
            assert status == 201, body
            sent[body["id"]] = datetime.fromisoformat(body["at"]).timestamp()
            time.sleep(every_ms / 1000)
        deadline = time.monotonic() + 30
        expected = len(sent) * held.opened
        while time.monotonic() < deadline:
            if sum(len(a) for a in held.arrivals) >= expected:
                break
            time.sleep(0.1)
    finally:
        held.stop()
    lags = [(at - sent[i]) for a in held.arrivals for i, at in a.items() if i in sent]
    last = [max(a[i] for a in held.arrivals if i in a) - sent[i] for i in sent]
    print(f"{len(sent)} messages, one every {every_ms} ms, to {held.opened} streams")
    print(f"deliveries: {len(lags)} of {len(sent) * held.opened}")
    print(f"lag, commit to a stream: {spread_ms(lags)} (goal p99 <= 200 ms)")
    print(f"lag, commit to the last stream of each message: {spread_ms(last)}")
    for error in held.errors[:5]:
        print("  ", error)


def cost(port: int, data_markers: list[str], count: int, block: int = 50) -> None:
    """``count`` messages and as many passes and plays, in alternate blocks of ``block``
    (so that the machine's other work weighs on both alike), the CPU of each kind
    summed over its blocks."""
    client = Client(port)
    game = new_game(client, 4748, Variant.STANDARD, Scoring.BASIC)
    senders = players(client, count // 5 + 1, "s")
    commands: list[tuple[str, str, str, Any]] = []
    seed = 5000
    while len(commands) < count:
        planned = new_game(client, seed, Variant.STANDARD, Scoring.BASIC)
        commands += planned.commands
        seed += 1
    used: dict[str, dict[str, float]] = {"chat": {}, "play": {}}

    def measured(kind: str, requests: list[tuple[str, str, str, Any]]) -> None:
        before = Accounts.take(port, data_markers)
        for method, path, token, body in requests:
            status, answer = client.call(method, path, body, token)
            assert status in (200, 201), answer
        for part, seconds in Accounts.take(port, data_markers).since(before).items():
            used[kind][part] = used[kind].get(part, 0.0) + seconds

    chats = [
        ("POST", f"/v1/games/{game.id}/chat", senders[n // 5], {"text": f"cost {n}"})
        for n in range(count)
    ]
    for start in range(0, count, block):
        measured("chat", chats[start : start + block])
        measured("play", commands[start : start + block])
    print(f"{count} chat messages, one at a time: {per_request(used['chat'], count)}")
    print(f"{count} passes and plays, one at a time: {per_request(used['play'], count)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--every-ms", type=int, default=100)
    parser.add_argument("--cost", type=int, default=500)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="yokai-chat-bench-"))
    env = {
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_RATE_LIMIT": "1000000 per minute",
        "YOKAI_STREAMS_PER_TOKEN": STREAM_LIMIT,
        "YOKAI_STREAMS_PER_ADDRESS": STREAM_LIMIT,
    }
    if not os.environ.get("DATABASE_URL"):
        env["YOKAI_DATA_DIR"] = str(tmp / "db")
    markers = [env.get("YOKAI_DATA_DIR", "")]
    try:
        with service(env) as port:
            delivery(port, args.streams, args.messages, args.every_ms)
            cost(port, markers, args.cost)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
