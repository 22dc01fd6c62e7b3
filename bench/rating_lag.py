"""Ratings' lag: how soon a finished rated game's update is made while workers run.

What it does:
1. Starts a PostgreSQL (DATABASE_URL, else an embedded server in a temporary folder),
   `yokai serve` on it (its embedded worker off, rate limits off) and ``--workers``
   `yokai worker` processes.
2. Makes ``--players`` players, then plays ``--games`` rated three-player games over
   HTTP from ``--clients`` connections, each ended by a resign at once (a rated game's
   update does not depend on how long it was), ``--seconds`` spread over the run.
3. Waits until every game is rated, then reads each game's times from the database (the
   server's clock): ``finished_at`` (the finishing command's time) and ``rated_at`` (the
   worker's, when it made the update), and prints the lag's quantiles and the workers'
   CPU per update.

Run: ``.venv/bin/python -m bench.rating_lag [--games 300] [--seconds 30] [--workers 2]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
import time
from pathlib import Path

import psycopg

from bench.http_games import Client
from bench.seek_bench import players, run_all, with_workers
from tests.support.cpu import total_seconds
from tests.support.figures import spread_ms


def play(port: int, tokens: list[str], games: int, seconds: float, clients: int) -> None:
    """``games`` rated games of three random players, each ended by a resign, the n-th
    started at ``n * seconds / games`` from the start."""
    start = time.monotonic()
    gap = seconds / games
    chance = random.Random(30)
    seated = [chance.sample(tokens, 3) for _ in range(games)]
    lock = threading.Lock()

    def run(k: int) -> None:
        client = Client(port)
        for n in range(k, games, clients):
            wait = start + n * gap - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # a benchmark: the games' pace
            status, made = client.call("POST", "/v1/games", {"players": 3, "rated": True})
            assert status == 201, made
            game = made["id"]
            for seat, token in enumerate(seated[n]):
                status, joined = client.call("POST", f"/v1/games/{game}/seats/{seat}", {}, token)
                assert status == 201, joined
            with lock:
                resigning = chance.choice(seated[n])
            status, done = client.call("POST", f"/v1/games/{game}/resign", None, resigning)
            assert status == 200, done

    run_all(run, clients)


def rated(url: str) -> list[tuple[float, bool]]:
    """Each rated game's lag in seconds (finished -> rated), and whether it is rated."""
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT finished_at, rated_at FROM rated_games").fetchall()
    return [((r[1] - r[0]).total_seconds() if r[1] else 0.0, r[1] is not None) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120, help="for the last updates")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="yokai-rating-bench-"))
    with with_workers(tmp, args.workers) as (url, port, rating):
        tokens = players(port, args.players, args.clients)
        before = total_seconds(rating)
        started = time.monotonic()
        play(port, tokens, args.games, args.seconds, args.clients)
        sent = time.monotonic() - started
        while time.monotonic() - started < sent + args.timeout:
            found = rated(url)
            if len(found) == args.games and all(done for _, done in found):
                break
            time.sleep(0.2)  # a benchmark: the last updates
        used = total_seconds(rating) - before
    lags = [lag for lag, done in found if done]
    print(
        f"{args.games} rated games finished in {sent:.1f} s from {args.clients} clients, "
        f"{len(lags)} rated by {args.workers} workers"
    )
    print(f"lag (finished -> rated): {spread_ms(lags)}")
    if lags:
        print(
            f"workers' CPU per update: {used * 1000 / len(lags):.2f} ms "
            f"(all their jobs: {used:.2f} s; they also play no bots here)"
        )


if __name__ == "__main__":
    main()
