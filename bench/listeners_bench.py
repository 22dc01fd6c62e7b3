"""PostgreSQL's CPU per play as web processes are added, with streams open in each: the
NOTIFY fan-out (every web process with a stream keeps a LISTENing backend, which
PostgreSQL wakes for every commit) against the relay (YOKAI_REDIS_URL: no command
notifies, no web process listens; one relay reads the log and announces on Redis).

For each mode and each count of gunicorn workers W (``--workers``, default 1,8):
1. starts `yokai serve` (the product's gunicorn config, YOKAI_WORKERS=W, its embedded
   worker on, which runs the relay in the relay mode) on an embedded PostgreSQL, with a
   redis-server this bench starts in the relay mode;
2. creates games to play (bench/http_games.py: every command planned) and as many idle
   games, and opens public streams on the idle ones until every web process listens
   (the NOTIFY mode: W backends named ``yokai-listener`` in pg_stat_activity), or as
   many streams as that took (the relay mode: ``4 W`` at least);
3. drives the plays with wrk (``--connections``, closed loop) for ``--seconds`` and prints
   the CPU per play of each part (tests/support/cpu.py: PostgreSQL is every backend of
   the server, the relay's included; web is `yokai serve`'s process tree, the embedded
   worker and its relay included).

Run: ``.venv/bin/python -m bench.listeners_bench [--workers 1,8] [--seconds 20]
[--connections 16]``. Needs wrk and redis-server. Prints figures; asserts nothing. The
figures are the mean of one run each: run it twice and compare.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import psycopg

from bench.http_bench import database, service, wrk
from bench.http_games import (
    OPERATOR_TOKEN,
    Client,
    command_lists,
    new_game,
    setup_games,
    write_lists,
)
from service.adapters.postgres.engine import libpq_conninfo
from service.rules import Scoring, Variant
from tests.support.cpu import Accounts, per_request
from tests.support.redis_server import running
from tests.support.sse import SseStream

STREAM_LIMIT = "100000"


def listeners(url: str) -> int:
    with psycopg.connect(libpq_conninfo(url), autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'yokai-listener'"
        ).fetchone()
    return int(row[0]) if row else 0


def one(mode: str, workers: int, args: argparse.Namespace, redis_url: str | None) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="yokai-listeners-bench-"))
    env = {
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_RATE_LIMIT": "1000000 per minute",
        "YOKAI_STREAMS_PER_TOKEN": STREAM_LIMIT,
        "YOKAI_STREAMS_PER_ADDRESS": STREAM_LIMIT,
        "YOKAI_WORKERS": str(workers),
        "YOKAI_DATA_DIR": str(tmp / "db"),
    }
    if redis_url is not None:
        env["YOKAI_REDIS_URL"] = redis_url
    streams: list[SseStream] = []
    try:
        with service(env) as port, database(env) as url:
            games = setup_games(port, 20 * args.connections, args.seed, Variant.STANDARD)
            client = Client(port)
            idle = [
                new_game(client, args.seed + 50_000 + i, Variant.STANDARD, Scoring.BASIC).id
                for i in range(8 * workers)
            ]
            host = f"127.0.0.1:{port}"
            wanted = workers if redis_url is None else 0
            while len(streams) < len(idle) and (
                listeners(url) < wanted or len(streams) < 4 * workers
            ):
                stream = SseStream(host, f"/v1/games/{idle[len(streams)]}/stream")
                assert stream.status == 200, stream.status
                streams.append(stream)
                time.sleep(0.05)
            time.sleep(1)  # the last listeners connect
            heard = listeners(url)
            folder = tmp / "commands"
            write_lists(folder, command_lists(games, args.connections))
            before = Accounts.take(port, [str(tmp)])
            run = wrk(port, folder, args.connections, args.seconds, cycle=False)
            used = Accounts.take(port, [str(tmp)]).since(before)
            print(
                f"{mode:6} W={workers}: {len(streams)} streams open, {heard} LISTENing "
                f"backends; {run.rate:.0f} plays/s, p99 {run.p99_ms:.1f} ms; "
                f"PostgreSQL CPU per play {used['postgres'] * 1e3 / run.requests:.3f} ms",
                flush=True,
            )
            print(f"  {per_request(used, run.requests)}", flush=True)
    finally:
        for stream in streams:
            stream.conn.close()
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--workers", default="1,8", help="comma-separated gunicorn workers")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    os.environ.pop("DATABASE_URL", None)  # an embedded server per run: comparable runs
    counts = [int(w) for w in args.workers.split(",") if w.strip()]
    with running() as bus:
        for workers in counts:
            for mode, url in (("notify", None), ("relay", bus.url)):
                one(mode, workers, args, url)


if __name__ == "__main__":
    main()
