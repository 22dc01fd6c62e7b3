"""Quick play benchmark: seeks arriving for a minute, paired by two `yokai worker`s.

What it does:
1. Starts a PostgreSQL (DATABASE_URL, else an embedded server in a temporary folder),
   migrated, with the service's own role; `yokai serve` on it (its embedded worker off,
   rate limits off) and two `yokai worker` processes.
2. Makes ``--seeks`` players beforehand (POST /v1/players), then sends one seek each
   (POST /v1/seeks), spread evenly over ``--seconds`` from ``--clients`` connections:
   four in five ask for a four-player standard game, one in five for a three-player
   advanced one (two pools, so the workers pair two pools at once).
3. Waits until no pool holds a full set any more (the few seeks left over stay open),
   then reads every seek's times from the database (the server's clock): ``created_at``
   and ``ended_at`` (when it was matched).
4. Prints time to match (a seek made → matched; this includes waiting for the other
   seeks of its game to arrive), the pairing lag (the last seek of a game's set made →
   matched: what the workers add), and the CPU the pairing cost per game made: the two
   worker processes' user + system seconds from the first seek to the last match, read
   from the kernel (tests/support/cpu.py's way: psutil), with PostgreSQL's and the API's beside.

Run: ``.venv/bin/python -m bench.seek_bench [--seeks 1000] [--seconds 60] [--clients 4]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
import psycopg

from bench.http_bench import ROOT, serving
from bench.http_games import OPERATOR_TOKEN, Client
from bench.scaleout_bench import database
from tests.support.cpu import Accounts, total_seconds
from tests.support.figures import spread_ms
from tests.support.ports import free_port
from tests.support.processes import running

POOLS = ({"players": 4}, {"players": 3, "scoring": "advanced"})


def pool_of(n: int) -> dict[str, Any]:
    """Four in five seeks ask for the four-player pool, one in five for the other."""
    return POOLS[1] if n % 5 == 4 else POOLS[0]


@contextmanager
def workers(env: dict[str, str], folder: Path, count: int) -> Iterator[list[psutil.Process]]:
    """``count`` `yokai worker` processes, each once it says it started (so that its
    start is not counted), stopped (SIGTERM) at the end."""
    with ExitStack() as stack:
        started = []
        for n in range(count):
            log = folder / f"worker-{n}.log"
            beat = {"YOKAI_WORKER_HEARTBEAT": str(folder / f"worker-{n}.heartbeat")}
            command = [sys.executable, "-m", "service.cli", "worker"]
            started.append(
                stack.enter_context(
                    running(
                        command,
                        log,
                        ready=partial(_says_started, log),
                        env={**os.environ, **env, **beat},
                        cwd=ROOT,
                        what=f"yokai worker {n}",
                    )
                )
            )
        yield [psutil.Process(s.process.pid) for s in started]


@contextmanager
def with_workers(tmp: Path, count: int) -> Iterator[tuple[str, int, list[psutil.Process]]]:
    """A PostgreSQL (DATABASE_URL, else an embedded one in ``tmp``), `yokai serve` on it
    (its embedded worker off, rate limits off) and ``count`` `yokai worker` processes:
    the database's URL, the service's port and the workers."""
    with database(tmp / "db") as url:
        env = {
            "DATABASE_URL": url,
            "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
            "YOKAI_RATE_LIMIT": "",
            "YOKAI_EMBEDDED_WORKER": "0",
            "YOKAI_DATA_DIR": str(tmp / "data"),
        }
        port = free_port()
        command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
        with serving(command, env, port), workers(env, tmp, count) as started:
            yield url, port, started


def _says_started(log: Path) -> bool:
    return b"started" in log.read_bytes()


def players(port: int, count: int, clients: int) -> list[str]:
    """``count`` new players' tokens, made from ``clients`` connections."""
    tokens: list[str] = [""] * count

    def make(k: int) -> None:
        client = Client(port)
        for n in range(k, count, clients):
            status, made = client.call("POST", "/v1/players", {"name": f"Seeker {n}"})
            assert status == 201, made
            tokens[n] = made["token"]

    run_all(make, clients)
    return tokens


def arrive(port: int, tokens: list[str], seconds: float, clients: int) -> None:
    """One seek a player, the n-th sent at ``n * seconds / len(tokens)`` from the start."""
    start = time.monotonic()
    gap = seconds / len(tokens)

    def send(k: int) -> None:
        client = Client(port)
        for n in range(k, len(tokens), clients):
            wait = start + n * gap - time.monotonic()
            if wait > 0:
                time.sleep(wait)  # a benchmark: the arrivals' pace
            status, made = client.call("POST", "/v1/seeks", pool_of(n), tokens[n])
            assert status == 201, made

    run_all(send, clients)


def run_all(job: Any, clients: int) -> None:
    threads = [threading.Thread(target=job, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def full_sets_left(url: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM (SELECT pool FROM seeks WHERE status = 'open' "
            "GROUP BY pool HAVING count(*) >= min(players)) AS p"
        ).fetchone()
    return int(row[0]) if row else 0


def seeks(url: str) -> list[tuple[datetime, datetime | None, Any, str]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT created_at, ended_at, game_id, status FROM seeks").fetchall()
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeks", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=4, help="connections sending seeks")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=120, help="for the last matches")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="yokai-seek-bench-"))
    with with_workers(tmp, args.workers) as (url, port, pairing):
        tokens = players(port, args.seeks, args.clients)
        before, accounts = total_seconds(pairing), Accounts.take(port, [str(tmp)])
        started = time.monotonic()
        arrive(port, tokens, args.seconds, args.clients)
        sent = time.monotonic() - started
        while full_sets_left(url) and time.monotonic() - started < sent + args.timeout:
            time.sleep(0.2)  # a benchmark: the last matches
        used = total_seconds(pairing) - before
        others = Accounts.take(port, [str(tmp)]).since(accounts)
        found = seeks(url)
    report(args, found, sent, used, others)


def report(
    args: argparse.Namespace,
    found: list[tuple[datetime, datetime | None, Any, str]],
    sent: float,
    used: float,
    others: dict[str, float],
) -> None:
    matched = [(c, e, g) for c, e, g, s in found if s == "matched" and e is not None]
    games: dict[Any, list[tuple[datetime, datetime]]] = defaultdict(list)
    for created, ended, game in matched:
        games[game].append((created, ended))
    to_match = [(e - c).total_seconds() for c, e, _ in matched]
    lag = [(max(e for _, e in s) - max(c for c, _ in s)).total_seconds() for s in games.values()]
    left = sum(s == "open" for *_, s in found)
    print(
        f"{len(found)} seeks sent in {sent:.1f} s ({len(found) / sent:.1f}/s) from "
        f"{args.clients} clients to {args.workers} workers: {len(matched)} matched into "
        f"{len(games)} games, {left} left open (no full set)"
    )
    print(f"time to match (seek made -> matched): {spread_ms(to_match)}")
    print(f"pairing lag (a game's last seek made -> matched): {spread_ms(lag)}")
    if games:
        print(
            f"CPU per game made: workers {used * 1000 / len(games):.2f} ms "
            f"({used:.2f} s for {len(games)} games, {used * 1000 / len(matched):.2f} ms a seek), "
            f"postgres {others['postgres'] * 1000 / len(games):.2f} ms, "
            f"API {others['web'] * 1000 / len(games):.2f} ms (its requests: the seeks)"
        )


if __name__ == "__main__":
    main()
