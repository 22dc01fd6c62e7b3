"""Scale-out benchmark: two `yokai serve` instances on one database against one.

What it does:
1. Starts one PostgreSQL for every configuration (DATABASE_URL, else an embedded server
   in a temporary folder), migrated, with the service's own role, as `yokai serve` sets
   up its embedded one.
2. For each configuration, starts the instances (`yokai serve`, the product's gunicorn
   config, embedded worker off: there are no bots or clocks here) on that database,
   creates fresh games as an operator with a `seed` and plans all their commands with
   the rules engine (bench/http_games.py), then drives every instance at once with wrk:
   the connections split evenly between the instances, each sending the commands of its
   own games one at a time (a closed loop). A connection keeps to one instance, as HTTP
   keep-alive through a load balancer does, so each game's commands reach one
   instance's state cache.
3. Prints, per configuration, the plays per second of all instances together, each
   instance's p50/p99 (wrk's, from writing a request to reading its whole answer), and
   the CPU time the instances' processes (`yokai serve`, gunicorn's master and workers)
   spent per play: on a machine shared with other work, throughput says how much CPU
   the benchmark got; CPU per play says what a play costs, and whether a second
   instance adds to it. PostgreSQL's CPU is not in it (shared by every configuration).

Configurations: one instance of W gunicorn workers; two instances of W/2 workers each
(the same processes, split in two); two instances of W workers each.

Run: ``.venv/bin/python -m bench.scaleout_bench [--workers 2] [--connections 16]
[--seconds 20] [--repeat 1]``. Needs wrk (`apt-get install wrk`). Prints figures;
asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

from bench.http_bench import Run, service, wrk
from bench.http_games import OPERATOR_TOKEN, command_lists, setup_games, write_lists
from service.adapters import migrate
from service.adapters.embedded import EmbeddedPostgres
from service.adapters.postgres import roles
from service.rules import Variant
from tests.support.cpu import Accounts


@contextmanager
def database(folder: Path) -> Iterator[str]:
    """DATABASE_URL, or an embedded server's, migrated, as the service's own role."""
    if os.environ.get("DATABASE_URL"):
        yield os.environ["DATABASE_URL"]
        return
    embedded = EmbeddedPostgres(folder)
    owner = embedded.start()
    try:
        migrate.upgrade(owner)
        yield roles.grant_app_role(owner, "yokai_app")
    finally:
        embedded.stop()


def _tree_cpu(ports: list[int]) -> float:
    """CPU seconds (user + system) used so far by the `yokai serve` instances listening on
    ``ports``: each one's process, gunicorn's master and workers."""
    taken = [Accounts.take(port).seconds for port in ports]
    return sum(seconds["web"] + seconds["worker"] for seconds in taken)


def measure(
    url: str,
    instances: int,
    workers: int,
    connections: int,
    seconds: int,
    seed: int,
    folder: Path,
) -> tuple[list[Run], float]:
    """``instances`` instances of ``workers`` workers on ``url``, driven at once; their
    runs, and the CPU seconds their processes spent meanwhile."""
    env = {
        "DATABASE_URL": url,
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_RATE_LIMIT": os.environ.get("BENCH_RATE_LIMIT", "1000000 per minute"),
        "YOKAI_EMBEDDED_WORKER": "0",
        "YOKAI_WORKERS": str(workers),
        "YOKAI_LOG_LEVEL": "WARNING",
    }
    each = connections // instances
    with ExitStack() as stack:
        ports = [stack.enter_context(service(env)) for _ in range(instances)]
        games = setup_games(ports[0], 20 * connections, seed, Variant.STANDARD)
        lists = command_lists(games, connections)
        folders = []
        for n in range(instances):
            path = folder / f"instance-{n}"
            write_lists(path, lists[n * each : (n + 1) * each])
            folders.append(path)
        cpu = _tree_cpu(ports)
        with ThreadPoolExecutor(instances) as pool:
            runs = list(
                pool.map(
                    lambda args: wrk(args[0], args[1], each, seconds, cycle=False),
                    zip(ports, folders, strict=True),
                )
            )
        return runs, _tree_cpu(ports) - cpu


def report(label: str, runs: list[Run], cpu: float) -> str:
    rate = sum(r.rate for r in runs)
    requests = sum(r.requests for r in runs)
    each = ", ".join(f"p50 {r.p50_ms:.1f} ms p99 {r.p99_ms:.1f} ms" for r in runs)
    problems = sum(r.refused + r.socket_errors + r.exhausted for r in runs)
    warn = f"  [refused, errors or exhausted: {problems}]" if problems else ""
    per_play = 1000 * cpu / requests if requests else float("nan")
    return f"{label:<26} {rate:7.1f} req/s  CPU {per_play:5.2f} ms/play  ({each}){warn}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (W)")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=1, help="runs of every configuration")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    if args.connections % 2 or args.workers % 2:
        raise SystemExit("--connections and --workers must be even (split in two)")
    configurations = [
        (f"1 instance x {args.workers} workers", 1, args.workers),
        (f"2 instances x {args.workers // 2} workers", 2, args.workers // 2),
        (f"2 instances x {args.workers} workers", 2, args.workers),
    ]
    tmp = Path(tempfile.mkdtemp(prefix="yokai-scaleout-bench-"))
    try:
        with database(tmp / "db") as url:
            print(
                f"wrk: {args.connections} connections split between the instances, closed "
                f"loop, {args.seconds} s; POST /play and /pass of four-player games; "
                f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start"
            )
            seed = args.seed
            for repeat in range(args.repeat):
                for label, instances, workers in configurations:
                    seed += 10_000
                    started = time.perf_counter()
                    runs, cpu = measure(
                        url,
                        instances,
                        workers,
                        args.connections,
                        args.seconds,
                        seed,
                        tmp / f"run-{repeat}-{instances}-{workers}",
                    )
                    load = os.getloadavg()[0]
                    print(
                        report(label, runs, cpu)
                        + f"  load {load:.2f}, {time.perf_counter() - started:.0f} s",
                        flush=True,
                    )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
