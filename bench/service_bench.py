"""Service benchmark: latency of a play command early vs late in a long game, over HTTP.

Starts `yokai serve` (on DATABASE_URL, or an embedded PostgreSQL in a temporary folder),
plays complete random games through the API over a keep-alive socket, and prints the
median and 90th-percentile latency of POST /play for the first and the last plays of
each game. With --no-cache the per-worker state cache is off (every command replays the
whole stream), which shows how the cost grows with the length of a game.

Run: ``.venv/bin/python -m bench.service_bench [--variant seven_followers] [--no-cache]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any


class Client:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        r = self.conn.getresponse()
        return r.status, json.loads(r.read() or b"null")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def play_game(
    client: Client, variant: str, scoring: str, rng: random.Random
) -> tuple[list[float], int]:
    """One random game; the latency (seconds) of each play in order, and the event count."""
    status, game = client.call(
        "POST", "/v1/games", {"players": 4, "scoring": scoring, "variant": variant}
    )
    assert status == 201, game
    gid = game["id"]
    tokens = [
        client.call("POST", f"/v1/games/{gid}/seats/{s}", {"name": f"p{s}"})[1]["token"]
        for s in range(4)
    ]
    plays: list[float] = []
    while True:
        views = [client.call("GET", f"/v1/games/{gid}/view", token=t)[1] for t in tokens]
        if views[0]["status"] == "finished":
            return plays, views[0]["version"]
        v = rng.choice([v for v in views if v["action"]])
        token = tokens[v["seat"]]
        if v["action"] == "pass":
            status, body = client.call(
                "POST", f"/v1/games/{gid}/pass", {"cards": rng.sample(v["legal"], 3)}, token
            )
        else:
            start = time.perf_counter()
            status, body = client.call(
                "POST", f"/v1/games/{gid}/play", {"card": rng.choice(v["legal"])}, token
            )
            plays.append(time.perf_counter() - start)
        assert status == 200, body


def summary(label: str, samples: list[float]) -> str:
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(len(ms) * 0.9) - 1] if len(ms) >= 10 else ms[-1]
    return f"{label:<28} n={len(ms):<5} median {statistics.median(ms):6.2f} ms   p90 {p90:6.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--variant", default="seven_followers")
    parser.add_argument("--scoring", default="advanced")
    parser.add_argument("--window", type=int, default=40, help="plays counted as early/late")
    parser.add_argument("--no-cache", action="store_true")
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()

    port = free_port()
    env = {**os.environ, "YOKAI_RATE_LIMIT": "", "YOKAI_WORKERS": "2"}
    if args.no_cache:
        env["YOKAI_STATE_CACHE_SIZE"] = "0"
    tmp = tempfile.mkdtemp(prefix="yokai-bench-")
    env.setdefault("YOKAI_DATA_DIR", tmp)
    server = subprocess.Popen(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if Client(port).call("GET", "/readyz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the server did not start")
            time.sleep(0.3)
        client = Client(port)
        rng = random.Random(args.seed)
        early: list[float] = []
        late: list[float] = []
        lengths = []
        for _ in range(args.games):
            plays, events = play_game(client, args.variant, args.scoring, rng)
            lengths.append(f"{len(plays)} plays/{events} events")
            early += plays[: args.window]
            late += plays[-args.window :]
        cache = "off" if args.no_cache else "on"
        print(
            f"{args.games} games, 4 players, {args.variant}/{args.scoring}, state cache {cache}; "
            f"games: {', '.join(lengths)}"
        )
        print(summary(f"first {args.window} plays", early))
        print(summary(f"last {args.window} plays", late))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
