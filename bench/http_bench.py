"""HTTP benchmark: the service beside a bare Flask endpoint and the write ceiling, in one
run, on one machine.

What it does:
1. Starts `yokai serve` (the product's gunicorn config, deploy/gunicorn.conf.py; on
   DATABASE_URL, else an embedded PostgreSQL in a temporary folder) and, beside it, a bare
   Flask JSON endpoint (bench/bare_app.py) under the same gunicorn config.
2. Creates games as an operator with a `seed` and joins every seat. Because the dealer's
   shuffle is a documented function of (seed, round), the benchmark knows every deal and
   plays each game through the rules engine first: every command of every game (passes
   and plays, all legal) is known before the load starts, so the load needs no reads.
   Then starts the write ceiling (bench/bare_app.py: a play's durable write and nothing
   else, one statement, one round trip) under the same gunicorn config, on the service's
   database, with tables of its own holding a copy of the games' rows.
3. Drives the servers with wrk (C, HTTP/1.1 keep-alive; `apt-get install wrk`): N
   connections (16 by default), one per wrk thread, each sending the commands of its own
   games one at a time, the next as soon as the previous is answered (a closed loop:
   throughput is what N clients waiting on their answers get). The bare endpoint and the
   write ceiling receive exactly the same requests; the service's rate is given over
   each. Then the read endpoints (GET /view, GET /v1/games/{id}, GET /events), again
   beside the bare endpoint. Under each of the service's phases, its CPU per request, by
   part (tests/support/cpu.py); with ``--profile DIR``, also the phase's budget table
   (bench/stages.py: py-spy on each web worker during the phase, stacks kept in DIR).
4. Plays long games one command at a time on one connection and reports the p50 latency
   of the first and last plays of each game (is a play's cost flat in game length?), with
   the state cache on and, restarting the service, off.

wrk measures from writing a request to reading its whole response, on an open
connection; p50/p99 are its latency percentiles over every request of the run.

Run: ``.venv/bin/python -m bench.http_bench [--connections 16] [--seconds 20]``.
Prints figures; asserts nothing. Rate limiting stays on (the product's limiter), with a
limit high enough that it never refuses the benchmark's clients.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

from bench import stages
from bench.bare_app import URL_VARIABLE as CEILING_URL
from bench.bare_app import prepare_ceiling
from bench.http_games import (
    OPERATOR_TOKEN,
    Client,
    command_lists,
    new_game,
    read_lists,
    setup_games,
    write_lists,
)
from service.adapters.embedded import EmbeddedPostgres
from service.rules import Scoring, Variant
from tests.support.cpu import Accounts, per_request, total_seconds
from tests.support.ports import free_port
from tests.support.processes import NotReadyError, answers, running

ROOT = Path(__file__).resolve().parents[1]
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
LUA = Path(__file__).with_name("wrk_requests.lua")


@contextmanager
def serving(command: list[str], env: dict[str, str], port: int) -> Iterator[int]:
    """Run a server process until the block ends; waits for /readyz first. Its output is
    appended to the file BENCH_SERVER_LOG names, else kept in a temporary file."""
    keep = os.environ.get("BENCH_SERVER_LOG")
    try:
        with running(
            command,
            Path(keep) if keep else None,
            ready=lambda: answers(f"http://127.0.0.1:{port}"),
            env={**os.environ, **env},
            cwd=ROOT,
            append=True,
        ):
            yield port
    except NotReadyError as error:
        raise SystemExit(str(error)) from None


def service(env: dict[str, str]) -> Any:
    port = free_port()
    return serving([sys.executable, "-m", "service.cli", "serve", "--port", str(port)], env, port)


def bare(env: dict[str, str]) -> Any:
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"]
    command += ["--config", str(GUNICORN_CONF), "bench.bare_app:app"]
    return serving(command, env, port)


def ceiling(env: dict[str, str], url: str) -> Any:
    """The write ceiling (bench/bare_app.py) on ``url``, its tables made afresh."""
    prepare_ceiling(url)
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"]
    command += ["--config", str(GUNICORN_CONF), "bench.bare_app:ceiling"]
    return serving(command, {**env, CEILING_URL: url}, port)


@contextmanager
def database(env: dict[str, str]) -> Iterator[str]:
    """A URL of the service's database for its owner: DATABASE_URL, or that of the
    embedded server `yokai serve` started in YOKAI_DATA_DIR (attached to here; it stops
    when the last process using it lets go)."""
    if os.environ.get("DATABASE_URL"):
        yield os.environ["DATABASE_URL"]
        return
    embedded = EmbeddedPostgres(Path(env["YOKAI_DATA_DIR"]).resolve())
    try:
        yield embedded.start()
    finally:
        embedded.stop()


def ceiling_accounts(port: int, data_markers: list[str]) -> Accounts:
    """The parts' CPU seconds as :meth:`Accounts.take` counts them, with the write
    ceiling's gunicorn processes (listening on ``port``) as the web part."""
    taken = Accounts.take(port, data_markers)  # no `yokai serve` there: no web part
    for process in psutil.process_iter(["cmdline"]):
        if f"127.0.0.1:{port}" in " ".join(process.info["cmdline"] or []):
            taken.seconds["web"] = total_seconds([process, *process.children(recursive=True)])
            break
    return taken


@dataclass
class Phase:
    """How the service's phases are measured: wrk, the CPU of each part over it and,
    with --profile, py-spy on the web workers."""

    port: int
    args: argparse.Namespace
    markers: list[str]

    def measure(
        self, name: str, folder: Path, seconds: int, cycle: bool
    ) -> tuple[Run, dict[str, float]]:
        profile: Path | None = self.args.profile
        before = Accounts.take(self.port, self.markers)
        with stages.recording(profile, name, stages.web_workers(self.port) if profile else []):
            run = wrk(self.port, folder, self.args.connections, seconds, cycle)
            used = Accounts.take(self.port, self.markers).since(before)
        return run, used

    def report(self, name: str, run: Run, used: dict[str, float]) -> None:
        print(f"  {per_request(used, run.requests)}")
        profile: Path | None = self.args.profile
        if profile is not None:
            stages.save(profile, name, used, run.requests)
            for text in stages.report(profile, name):
                print(f"  {text}")


@dataclass
class Run:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    refused: int
    socket_errors: int
    exhausted: int
    sample: str

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


def wrk(
    port: int, folder: Path, connections: int, seconds: int, cycle: bool, think_ms: int = 0
) -> Run:
    """``think_ms``: each connection waits that long before each request (else a closed
    loop)."""
    command = ["wrk", f"-t{connections}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    command += ["-s", str(LUA), f"http://127.0.0.1:{port}", "--", str(folder)]
    command.append("cycle" if cycle else "once")
    if think_ms:
        command.append(str(think_ms))
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    result = next(line for line in out.splitlines() if line.startswith("RESULT "))
    sample = next((line for line in out.splitlines() if line.startswith("SAMPLE ")), "")
    n, duration, p50, p99, refused, errors, exhausted, _ = (int(x) for x in result.split()[1:])
    return Run(n, duration / 1e6, p50 / 1e3, p99 / 1e3, refused, errors, exhausted, sample[7:])


def line(label: str, run: Run, base: Run | None = None) -> str:
    ratio = f"  ratio {run.rate / base.rate:5.3f}" if base else ""
    problems = ""
    if run.refused or run.socket_errors or run.exhausted:
        problems = (
            f"  [refused {run.refused}, socket errors {run.socket_errors}, "
            f"threads out of requests {run.exhausted}] {run.sample}"
        )
    return (
        f"{label:<34} {run.rate:8.1f} req/s  p50 {run.p50_ms:7.2f} ms  p99 {run.p99_ms:7.2f} ms"
        f"{ratio}{problems}"
    )


# --- the phases -----------------------------------------------------------------------


def growth(port: int, games: int, seed: int, window: int) -> tuple[list[float], list[float], str]:
    """Long games played one command at a time: latencies (ms) of the first and last
    ``window`` plays of each."""
    client = Client(port)
    early: list[float] = []
    late: list[float] = []
    sizes = []
    for i in range(games):
        game = new_game(client, seed + i, Variant.SEVEN_FOLLOWERS, Scoring.ADVANCED)
        plays: list[float] = []
        for method, path, token, body in game.commands:
            start = time.perf_counter()
            status, answer = client.call(method, path, body, token)
            elapsed = (time.perf_counter() - start) * 1000
            assert status == 200, answer
            if path.endswith("/play"):
                plays.append(elapsed)
        sizes.append(f"{len(plays)} plays/{answer['version']} events")
        early += plays[:window]
        late += plays[-window:]
    return early, late, ", ".join(sizes)


def main() -> None:
    args = arguments()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    if args.profile:
        stages.clear(args.profile)

    tmp = Path(tempfile.mkdtemp(prefix="yokai-http-bench-"))
    env = {
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_RATE_LIMIT": os.environ.get("BENCH_RATE_LIMIT", "1000000 per minute"),
    }
    if not os.environ.get("DATABASE_URL"):
        env["YOKAI_DATA_DIR"] = str(tmp / "db")
    connections = args.connections
    games_count = args.games or 20 * connections
    try:
        with service(env) as service_port, bare(env) as bare_port, database(env) as url:
            print(
                f"wrk: {connections} connections (one per thread), closed loop; "
                f"gunicorn config {GUNICORN_CONF.relative_to(ROOT)} for all three servers"
            )
            t0 = time.perf_counter()
            games = setup_games(
                service_port, games_count, args.seed, Variant(args.variant), players=args.players
            )
            commands = sum(len(g.commands) for g in games)
            plays = sum(g.plays for g in games)
            print(
                f"setup: {len(games)} four-player {args.variant}/advanced games, "
                f"{commands} commands ({plays} plays, {commands - plays} passes) planned "
                f"in {time.perf_counter() - t0:.1f} s"
            )
            phase = Phase(service_port, args, [str(tmp)])
            folder = tmp / "commands"
            write_lists(folder, command_lists(games, connections))
            with ceiling(env, url) as ceiling_port:
                # The bare endpoint keeps no state, and the write ceiling's events only
                # add up: both may go round their lists again.
                base = wrk(bare_port, folder, connections, args.seconds, cycle=True)
                before = ceiling_accounts(ceiling_port, phase.markers)
                top = wrk(ceiling_port, folder, connections, args.seconds, cycle=True)
                top_used = ceiling_accounts(ceiling_port, phase.markers).since(before)
            run, used = phase.measure("play", folder, args.seconds, cycle=False)
            print(line("bare Flask, same requests", base))
            print(line("write ceiling, same requests", top, base))
            print(f"  {per_request(top_used, top.requests)}")
            print(line("POST /play and /pass", run, base))
            print(f"  ratio to the write ceiling {run.rate / top.rate:5.3f}")
            phase.report("play", run, used)
            for kind, label in (
                []
                if args.skip_reads
                else [
                    ("view", "GET /v1/games/{id}/view"),
                    ("public", "GET /v1/games/{id}"),
                    ("events", "GET /v1/games/{id}/events"),
                ]
            ):
                folder = tmp / kind
                write_lists(folder, read_lists(games, connections, kind))
                base = wrk(bare_port, folder, connections, args.read_seconds, cycle=True)
                run, used = phase.measure(kind, folder, args.read_seconds, cycle=True)
                print(line(f"bare Flask, {kind} requests", base))
                print(line(label, run, base))
                phase.report(kind, run, used)
        if args.skip_growth:
            return
        for cache, extra in [("on", {}), ("off", {"YOKAI_STATE_CACHE_SIZE": "0"})]:
            with service({**env, **extra}) as port:
                early, late, sizes = growth(
                    port, args.growth_games, args.seed + 10_000, args.window
                )
            p_early, p_late = statistics.median(early), statistics.median(late)
            print(
                f"growth, state cache {cache}: Seven Followers games ({sizes}); p50 of the "
                f"first {args.window} plays {p_early:.2f} ms, last {args.window} {p_late:.2f} ms, "
                f"ratio {p_late / p_early:.2f}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--read-seconds", type=int, default=10)
    parser.add_argument("--games", type=int, default=0, help="default: 20 per connection")
    parser.add_argument("--variant", default="standard", choices=[v.value for v in Variant])
    parser.add_argument("--growth-games", type=int, default=3)
    parser.add_argument("--window", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--skip-growth", action="store_true")
    parser.add_argument("--skip-reads", action="store_true")
    parser.add_argument(
        "--players",
        action="store_true",
        help="seats held by players (their names sealed: every answer opens them)",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        metavar="DIR",
        help="py-spy on the service's web workers in each phase: their raw stacks go to DIR "
        "(its earlier ones removed) and each phase's budget table is printed "
        "(bench/stages.py; py-spy needs ptrace, e.g. root)",
    )
    return parser.parse_args()


if __name__ == "__main__":
    main()
