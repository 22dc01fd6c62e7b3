"""Webhook benchmark: does the outbox slow play down, and how soon do turns arrive?

1. Starts `yokai serve` (the product's gunicorn config and its embedded worker; an
   embedded PostgreSQL unless DATABASE_URL is set) with YOKAI_WEBHOOK_ALLOW_PRIVATE=1, and
   a receiver in this process (a minimal asyncio HTTP server on 127.0.0.1) that records when
   each delivery arrives.
2. Plays, with wrk as bench/http_bench.py does (its functions and bench/http_games.py's,
   imported: every command of every game planned with the rules engine first, N
   connections in a closed loop), three sets of fresh four-player games for
   ``--seconds`` each, ``--rounds`` times (in turn
   forwards and backwards: A B C C B A; the database grows as they play, so a fixed order
   would favour whichever comes first):
   - without webhooks: seats joined anonymously;
   - by players, no webhooks: every seat held by a player of its own (so the inbox is
     kept for each), none with a webhook: what the webhooks add, alone;
   - with webhooks: every seat held by a player of its own who registered one webhook
     (``turn``) at the receiver, so every turn of every game is delivered.
3. Prints play req/s, p50 and p99 of each run, each configuration's median p99 over its
   runs and the ratios of those medians, and for each run
   the CPU time per request of each part (tests/support/cpu.py: web workers, the worker,
   PostgreSQL, this process with its receiver, wrk), then waits until no
   delivery has arrived for 5 s and prints how many arrived and their lag: arrival time
   minus the commit time the payload carries (both this machine's clock).

    .venv/bin/python -m bench.webhook_bench --seconds 20 --rounds 2

With ``--one-endpoint`` it plays one set of games instead, anonymous seats, with one
operator webhook (``turn``) that hears every game, as a site's own service would: how
many deliveries reached it during the load and after, and their lag.

Goals (issue 13): play p99 with webhooks within 1.2x of without; delivery lag p99 <= 1 s.
It asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

from bench.http_bench import Run, line, service, wrk
from bench.http_games import (
    OPERATOR_TOKEN,
    Client,
    Game,
    command_lists,
    new_game,
    plan,
    write_lists,
)
from service.rules import Scoring, Variant
from tests.support.cpu import Accounts, per_request
from tests.support.figures import spread_ms


class Arrivals:
    """What arrived and when (this machine's clock); bodies are read after the run, so
    the receiver costs the machine as little CPU as it can while the load runs."""

    def __init__(self) -> None:
        self.got: list[tuple[float, bytes]] = []
        self.last = time.monotonic()

    def add(self, body: bytes) -> None:
        self.got.append((time.time(), body))  # one thread (the receiver's loop) appends
        self.last = time.monotonic()

    def drain(self, quiet: float = 5, most: float = 600) -> None:
        """Until none has arrived for ``quiet`` seconds (``most`` seconds at most)."""
        deadline = time.monotonic() + most
        while time.monotonic() - self.last < quiet and time.monotonic() < deadline:
            time.sleep(0.5)

    def lags(self, skip: int = 0) -> list[float]:
        """Arrival time minus the commit time each payload carries, in seconds."""
        return [
            at - datetime.fromisoformat(json.loads(body)["timestamp"]).timestamp()
            for at, body in self.got[skip:]
        ]


class _Receiving(asyncio.Protocol):
    """A minimal HTTP/1.1 receiver (keep-alive, Content-Length bodies, 204 to each): a
    real receiver runs elsewhere, so this one must not take the cores the service
    under test needs (a threading http.server cost as much CPU as the worker did)."""

    def __init__(self, arrivals: Arrivals) -> None:
        self.arrivals = arrivals
        self.buffer = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            length = 0
            for header in self.buffer[:head_end].split(b"\r\n")[1:]:
                name, _, value = header.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            end = head_end + 4 + length
            if len(self.buffer) < end:
                return
            self.arrivals.add(self.buffer[head_end + 4 : end])
            self.buffer = self.buffer[end:]
            assert self.transport is not None
            self.transport.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")


def receiver(arrivals: Arrivals) -> int:
    """Start the receiver on 127.0.0.1 in a thread of its own; its port."""
    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(
        loop.create_server(lambda: _Receiving(arrivals), "127.0.0.1", 0)
    )
    threading.Thread(target=loop.run_forever, daemon=True).start()
    port: int = server.sockets[0].getsockname()[1]
    return port


def hooked_game(client: Client, seed: int, url: str | None, n: int) -> Game:
    """A game whose four seats are held by players, each with a webhook at ``url`` (none
    without one)."""
    status, created = client.call(
        "POST", "/v1/games", {"players": 4, "scoring": "advanced", "seed": seed}, OPERATOR_TOKEN
    )
    assert status == 201, created
    tokens = []
    for seat in range(4):
        status, player = client.call("POST", "/v1/players", {"name": f"p{n}-{seat}"})
        assert status == 201, player
        if url is not None:
            status, made = client.call(
                "POST", "/v1/webhooks", {"url": url, "events": ["turn"]}, player["token"]
            )
            assert status == 201, made
        status, joined = client.call(
            "POST", f"/v1/games/{created['id']}/seats/{seat}", {}, player["token"]
        )
        assert status == 201, joined
        tokens.append(joined["token"])
    game = Game(created["id"], tokens, seed, Variant.STANDARD, Scoring.ADVANCED)
    plan(game)
    return game


def _lag_line(lags: list[float], what: str) -> str:
    return f"{what}: {len(lags)}, lag {spread_ms(lags)} (goal p99 <= 1 s)"


def one_endpoint(port: int, url: str, arrivals: Arrivals, args: argparse.Namespace) -> None:
    """Fresh games of anonymous seats, one operator endpoint hearing every turn."""
    client = Client(port)
    games = [new_game(client, args.seed + i, Variant.STANDARD, Scoring.ADVANCED)
             for i in range(args.games or 20 * args.connections)]  # fmt: skip
    status, made = client.call("POST", "/v1/webhooks", {"url": url, "events": ["turn"]},
                               OPERATOR_TOKEN)  # fmt: skip
    assert status == 201, made
    folder = Path(tempfile.mkdtemp(prefix="yokai-one-endpoint-"))
    try:
        write_lists(folder, command_lists(games, args.connections))
        began = time.time()
        run = wrk(port, folder, args.connections, args.seconds, False)
        ended = time.time()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    arrivals.drain()
    print(line("plays, one operator endpoint", run))
    if len(arrivals.got) < 2:
        print(f"deliveries: {len(arrivals.got)}: too few to tell")
        return
    during = sum(1 for at, _ in arrivals.got if began <= at <= ended)
    last = max(at for at, _ in arrivals.got)
    print(
        f"delivered during the load: {during} ({during / (ended - began):.0f}/s); "
        f"the last {max(0.0, last - ended):.1f} s after it"
    )
    print(_lag_line(arrivals.lags(), "deliveries"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--games", type=int, default=0, help="per run; default 20 a connection")
    parser.add_argument("--seed", type=int, default=4242)
    parser.add_argument("--rounds", type=int, default=2, help="each configuration's runs")
    parser.add_argument(
        "--one-endpoint", action="store_true", help="one operator webhook hears every game"
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    tmp = Path(tempfile.mkdtemp(prefix="yokai-webhook-bench-"))
    env = {
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_RATE_LIMIT": "1000000 per minute",
        "YOKAI_WEBHOOK_ALLOW_PRIVATE": "1",
    }
    if not os.environ.get("DATABASE_URL"):
        env["YOKAI_DATA_DIR"] = str(tmp / "db")
    arrivals = Arrivals()
    url = f"http://127.0.0.1:{receiver(arrivals)}/hook"
    count = args.games or 20 * args.connections
    names = ("without webhooks", "by players, no webhooks", "with webhooks")
    try:
        if args.one_endpoint:
            with service(env) as port:
                one_endpoint(port, url, arrivals, args)
            return
        with service(env) as port:
            client = Client(port)
            seed = args.seed
            order: list[tuple[str, list[Game]]] = []
            for n in range(args.rounds):
                sets = []
                for name in names:
                    if name == names[0]:
                        games = [new_game(client, seed + i, Variant.STANDARD, Scoring.ADVANCED)
                                 for i in range(count)]  # fmt: skip
                    else:
                        hook = url if name == names[2] else None
                        games = [hooked_game(client, seed + i, hook, seed + i)
                                 for i in range(count)]  # fmt: skip
                    seed += count
                    sets.append((name, games))
                order += sets if n % 2 == 0 else sets[::-1]
            setup_deliveries = len(arrivals.got)  # the first turns, at the deals
            runs: list[tuple[str, Run, dict[str, float]]] = []
            for n, (name, games) in enumerate(order):
                folder = tmp / f"{n}-{name.replace(' ', '-')}"
                write_lists(folder, command_lists(games, args.connections))
                before = Accounts.take(port, [str(tmp)])
                run = wrk(port, folder, args.connections, args.seconds, False)
                runs.append((name, run, Accounts.take(port, [str(tmp)]).since(before)))
            arrivals.drain()
        print(
            f"{count} four-player games a run, wrk {args.connections} connections, closed loop, "
            f"{args.rounds} round(s): {' / '.join(name for name, _ in order)}"
        )
        for name, run, used in runs:
            print(line(f"plays {name}", run))
            print(f"  {per_request(used, run.requests)}")
        p99 = {name: statistics.median(r.p99_ms for n, r, _ in runs if n == name) for name in names}
        rate = {name: statistics.median(r.rate for n, r, _ in runs if n == name) for name in names}
        for name in names:
            print(f"median of {name:<24} {rate[name]:8.1f} req/s  p99 {p99[name]:7.2f} ms")
        print(
            f"play p99 with webhooks / without: {p99[names[2]] / p99[names[0]]:.2f}, "
            f"/ by players without webhooks: {p99[names[2]] / p99[names[1]]:.2f} "
            "(goal <= 1.2)"
        )
        lags = arrivals.lags(setup_deliveries)
        if len(lags) > 1:
            print(_lag_line(lags, "deliveries during the load"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
