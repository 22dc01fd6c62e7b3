"""Live-delivery benchmark: open Server-Sent Events streams beside the play load, on one
machine, in one run.

What it does:
1. Starts one `yokai serve` (the product's gunicorn config, deploy/gunicorn.conf.py: one
   gevent worker per core; on DATABASE_URL, else an embedded PostgreSQL in a temporary
   folder), with the per-process stream limits (YOKAI_STREAMS_PER_TOKEN,
   YOKAI_STREAMS_PER_ADDRESS) raised to 100,000, since every client here is 127.0.0.1, and
   the rate limit raised as bench/http_bench.py raises it.
2. Sets up, as bench/http_bench.py does (bench/http_games.py's functions, imported): for
   each load run its own fresh games, created as an operator with a `seed` and every
   command planned with the rules engine; plus "idle" games (joined, never played), whose
   seats are partly held by players (POST /v1/players, then each joins a seat with its
   player token).
3. Plays without streams: wrk, 16 connections (one per thread), closed loop, each sending
   its games' commands one at a time (bench/wrk_requests.lua), as http_bench's plays phase;
   prints req/s, p50, p99.
4. For each N of ``--streams`` (100 and 1,000): opens N streams (and checks that each
   answered 200 and sent its first `view` or `inbox` message), measures the gunicorn
   workers' memory, then runs the same play load on fresh games while the streams are
   held; prints req/s, p50, p99 and p99 over the no-stream p99, the commit-to-delivery
   latency, and how many streams were still open at the end. It then closes them and waits
   until the workers hold no client connection (a worker lets a stream whose client left
   go when a write to it fails, at a keep-alive: after up to two keep-alive periods).
5. Prints a summary table per N, with the goals beside the figures (it asserts nothing):
   1,000 concurrent streams held; delivery p99 <= 100 ms; play p99 with 1,000 streams
   <= 1.5x the p99 without. Then the server log's errors, warnings and refusals.

Every load run also prints the machine's CPU use (tests/support/cpu.py) and the share of
it taken by processes that are not the benchmark's (this process, its descendants, the
embedded PostgreSQL): the figures mean something only when that share is about 0.

The N streams of a run (printed at each run):
- probe streams, at most N/2: for each of the first N/4 games of the run's load (the
  first games of every wrk connection's list, so the ones played first), the stream of
  its seat 0 (seat token) and its public stream (no token). Probes whose game finishes
  get `event: end` and are closed by the server: counted as "ended", not as failures.
- player streams, a fifth of the rest: `GET /v1/me/stream` with the token of a player
  holding a seat of an idle game (first message `event: inbox`).
- idle streams, the rest: game streams of idle games, their public stream and the
  streams of their four seats (seat tokens), five per idle game.

Commit-to-delivery latency: for each `event: view` a probe stream receives after the
load starts, the client's wall clock when the chunk holding it was read (``time.time()``)
minus the `recorded_at` of the last `game_event` before it on that stream (the server's
wall clock, same machine). `recorded_at` is stamped when the command is decided, just
before its commit, so this slightly over-estimates. It includes the path through
PostgreSQL's NOTIFY when the stream is held by the other worker than the command's.

Memory per stream: VmRSS of the gunicorn workers (the children of the gunicorn master,
found in /proc) with the N streams open (before the load) minus before they were opened,
over N. Python seldom gives memory back, so for the second N "before" is after the first.
Beside it, the client connections each worker holds (its sockets that /proc/net/tcp lists
as accepted on the server's port): how the kernel spread the streams over the workers.

The stream client is an asyncio event loop (raw `asyncio.open_connection`, HTTP/1.1,
chunked transfer encoding and SSE parsed here) in a thread of this process; while wrk (a
process of its own) runs, this process's main thread only waits for wrk. The client shares
the machine's two cores with the server, PostgreSQL and wrk, as the load does.

Run: ``.venv/bin/python -m bench.stream_bench [--streams 100,1000] [--seconds 15]``.
``BENCH_SERVER_LOG=file`` keeps the server's output (otherwise it goes to a temporary
file); either way the log is scanned at the end and its errors and refusals are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import shutil
import signal
import tempfile
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import FrameType

from bench.http_bench import GUNICORN_CONF, ROOT, Run, service, wrk
from bench.http_games import OPERATOR_TOKEN, Client, Game, command_lists, setup_games, write_lists
from service.rules import Variant
from tests.support.cpu import MachineSample, MachineShare
from tests.support.figures import percentile
from tests.support.sse import Frame, SseParser

STREAM_LIMIT = "100000"
GOAL_STREAMS = 1000
GOAL_DELIVERY_P99_MS = 100.0
GOAL_P99_RATIO = 1.5

# --- the stream client ----------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """One stream to open: its path, its bearer token (None: public) and its kind."""

    path: str
    token: str | None
    kind: str  # "probe seat", "probe public", "idle seat", "idle public", "player"

    @property
    def probe(self) -> bool:
        return self.kind.startswith("probe")


@dataclass
class Held:
    """What one stream did."""

    spec: Spec
    status: int = 0
    opened: bool = False  # 200 and a first `view` / `inbox`
    ended: bool = False  # `event: end` (its game finished)
    closed: bool = False  # the connection ended (server side, or an error)
    open_at_stop: bool = False
    error: str = ""
    played: bool = False  # a game_event arrived after the load started
    deliveries: list[tuple[float, str]] = field(default_factory=list)  # (received, recorded_at)
    _pending: str | None = None
    _parser: SseParser = field(default_factory=SseParser)

    @property
    def keepalives(self) -> int:
        return self._parser.comments

    def feed(self, received: float, chunk: bytes, mark: float) -> None:
        for frame in self._parser.feed(chunk):
            self._dispatch(received, mark, frame)

    def _dispatch(self, received: float, mark: float, frame: Frame) -> None:
        event = frame.event
        if event in ("view", "inbox"):
            self.opened = True
        if event == "game_event":
            if self.spec.probe:
                self._pending = json.loads(frame.data)["recorded_at"]
                self.played = self.played or received >= mark
        elif event == "view" and self._pending is not None:
            if received >= mark:
                self.deliveries.append((received, self._pending))
            self._pending = None
        elif event == "end":
            self.ended = True


def _request(spec: Spec, port: int) -> bytes:
    lines = [f"GET {spec.path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Accept: text/event-stream"]
    if spec.token:
        lines.append(f"Authorization: Bearer {spec.token}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    status_line = await reader.readline()
    if not status_line:
        raise ConnectionError("closed before the status line")
    status = int(status_line.split()[1])
    headers: dict[str, str] = {}
    while True:
        line = (await reader.readline()).decode("latin-1").rstrip("\r\n")
        if not line:
            return status, headers
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()


async def _chunks(
    reader: asyncio.StreamReader, chunked: bool
) -> AsyncIterator[tuple[float, bytes]]:
    """The body's pieces as they arrive, each with the wall clock of its arrival."""
    while True:
        if chunked:
            size_line = await reader.readline()
            if not size_line:
                return
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                return
            data = (await reader.readexactly(size + 2))[:-2]
        else:
            data = await reader.read(65536)
            if not data:
                return
        yield time.time(), data


class StreamClient:
    """Holds many SSE streams on one asyncio loop, in a thread of its own."""

    def __init__(self, port: int, specs: list[Spec], concurrency: int = 64) -> None:
        self.port = port
        self.streams = [Held(spec) for spec in specs]
        self.mark = math.inf  # deliveries count from this wall-clock time (the load's start)
        self._concurrency = concurrency
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="stream-client", daemon=True
        )
        self._tasks: list[asyncio.Task[None]] = []
        self._stopped = False
        self._cpu_at_mark = 0.0
        self.cpu_seconds = math.nan  # the client thread's CPU time from the mark to stop
        self.wall_seconds = math.nan

    def open(self, timeout: float) -> float:
        """Open every stream (``concurrency`` at a time); seconds until each has sent its
        first message or failed (or ``timeout`` passed)."""
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(self._open_all(timeout), self._loop)
        return future.result(timeout + 30)

    def start_load(self) -> None:
        """Deliveries count from now."""
        self._cpu_at_mark = asyncio.run_coroutine_threadsafe(self._cpu(), self._loop).result(30)
        self.mark = time.time()

    async def _cpu(self) -> float:
        return time.thread_time()

    def stop(self) -> None:
        """Note which streams are still open, then close them all and end the thread."""
        if self._stopped:
            return
        self._stopped = True
        if self._thread.is_alive():
            future = asyncio.run_coroutine_threadsafe(self._close_all(), self._loop)
            with contextlib.suppress(Exception):
                future.result(30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(30)
        if not self._thread.is_alive():
            self._loop.close()

    async def _open_all(self, timeout: float) -> float:
        start = time.perf_counter()
        gate = asyncio.Semaphore(self._concurrency)
        firsts: list[asyncio.Future[None]] = []
        for held in self.streams:
            first: asyncio.Future[None] = self._loop.create_future()
            firsts.append(first)
            self._tasks.append(asyncio.create_task(self._hold(held, gate, first)))
        await asyncio.wait(firsts, timeout=timeout)
        return time.perf_counter() - start

    async def _close_all(self) -> None:
        if self.mark != math.inf:
            self.cpu_seconds = time.thread_time() - self._cpu_at_mark
            self.wall_seconds = time.time() - self.mark
        for held in self.streams:
            held.open_at_stop = held.opened and not held.closed
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _hold(self, held: Held, gate: asyncio.Semaphore, first: asyncio.Future[None]) -> None:
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                gate.release()
            if not first.done():
                first.set_result(None)

        await gate.acquire()
        writer: asyncio.StreamWriter | None = None
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 22)
            writer.write(_request(held.spec, self.port))
            held.status, headers = await _head(reader)
            if held.status != 200:
                length = int(headers.get("content-length", "0") or 0)
                body = await reader.read(min(length, 400)) if length else b""
                code = re.search(rb'"code":\s*"([^"]+)"', body)
                held.error = f"{held.status} {code.group(1).decode() if code else body[:80]!r}"
                held.closed = True
                return
            chunked = "chunked" in headers.get("transfer-encoding", "").lower()
            async for received, data in _chunks(reader, chunked):
                held.feed(received, data, self.mark)
                if held.opened:
                    release()
            held.closed = True
            if not held.ended:
                held.error = "closed by the server without `end`"
        except asyncio.CancelledError:
            raise
        except Exception as error:
            held.closed = True
            held.error = f"{type(error).__name__}: {error}"
        finally:
            release()
            if writer is not None:
                writer.close()


# --- the server's processes -----------------------------------------------------------


def _processes() -> Iterator[tuple[int, int, list[str]]]:
    """(pid, parent pid, argv) of every process we may read."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            status = (entry / "status").read_text()
        except OSError:
            continue
        found = re.search(r"^PPid:\s+(\d+)", status, re.MULTILINE)
        if found:
            yield int(entry.name), int(found.group(1)), [a for a in argv if a]


def gunicorn(port: int) -> tuple[int | None, list[int]]:
    """The gunicorn master serving ``port`` and its workers."""
    bind = f"127.0.0.1:{port}"
    parents = {pid: ppid for pid, ppid, argv in _processes() if "gunicorn" in argv and bind in argv}
    masters = [pid for pid, ppid in parents.items() if ppid not in parents]
    if not masters:
        return None, []
    return masters[0], sorted(pid for pid, ppid in parents.items() if ppid == masters[0])


def _status_kib(pid: int, name: str) -> int:
    with contextlib.suppress(OSError):
        found = re.search(rf"^{name}:\s+(\d+) kB", Path(f"/proc/{pid}/status").read_text(), re.M)
        if found:
            return int(found.group(1))
    return 0


def _accepted(port: int) -> set[str]:
    """The socket inodes of the TCP connections accepted on ``port`` (not the listening
    socket, not the database's connections)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for row in Path(table).read_text().splitlines()[1:]:
                cells = row.split()
                if int(cells[1].rsplit(":", 1)[1], 16) == port and cells[3] != "0A":  # LISTEN
                    inodes.add(cells[9])
    return inodes


def _connections(pid: int, accepted: set[str]) -> int:
    count = 0
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                link = os.readlink(fd)
                count += link.startswith("socket:[") and link[8:-1] in accepted
    return count


@dataclass(frozen=True)
class Workers:
    """The workers' VmRSS (KiB) and the client connections each holds, by pid."""

    rss: dict[int, int]
    connections: dict[int, int]

    @classmethod
    def measure(cls, port: int) -> Workers:
        _, pids = gunicorn(port)
        accepted = _accepted(port)
        rss = {p: _status_kib(p, "VmRSS") for p in pids}
        return cls(rss, {p: _connections(p, accepted) for p in pids})

    @property
    def total_rss(self) -> int:
        return sum(self.rss.values())

    @property
    def total_connections(self) -> int:
        return sum(self.connections.values())


def wait_released(port: int, seconds: float) -> tuple[float, int]:
    """Wait until the workers hold no client connection (a stream its client closed is
    let go when the server's writes to it fail: at a keep-alive), or ``seconds`` pass;
    the seconds waited and the connections still held then."""
    start = time.monotonic()
    while True:
        held = Workers.measure(port).total_connections
        if held == 0 or time.monotonic() - start >= seconds:
            return time.monotonic() - start, held
        time.sleep(0.5)


def sweep(port: int | None, data_dir: Path | None) -> list[str]:
    """End what the server left behind (normally nothing): gunicorn processes on our port,
    PostgreSQL processes on our data folder. What it ended, as text."""
    ended: list[str] = []
    for pid, _, argv in _processes():
        ours = port is not None and "gunicorn" in argv and f"127.0.0.1:{port}" in argv
        ours = ours or (data_dir is not None and any(str(data_dir) in a for a in argv))
        if ours and pid != os.getpid():
            with contextlib.suppress(OSError):
                # SIGINT: PostgreSQL's fast shutdown; gunicorn stops too.
                os.kill(pid, signal.SIGINT)
                ended.append(f"{pid} {' '.join(argv)[:80]}")
    if ended:
        time.sleep(3)
        for line in ended:
            with contextlib.suppress(OSError):
                os.kill(int(line.split()[0]), signal.SIGKILL)
    return ended


# --- games, players and the streams of a run ------------------------------------------


@dataclass
class Idle:
    """An idle game: joined, never played; ``players`` maps seat -> player token."""

    id: str
    tokens: list[str]
    players: dict[int, str]


def idle_games(port: int, games: int, players: int) -> list[Idle]:
    """``games`` games, all four seats joined; ``players`` new players each join one seat
    (player k: game k mod games, seat k div games), with their player token."""
    client = Client(port)
    made: list[Idle] = []
    for _ in range(games):
        status, created = client.call("POST", "/v1/games", {"players": 4}, OPERATOR_TOKEN)
        assert status == 201, created
        made.append(Idle(created["id"], ["" for _ in range(4)], {}))
    for k in range(players):
        status, player = client.call("POST", "/v1/players", {"name": f"bench player {k}"})
        assert status == 201, player
        game, seat = made[k % games], k // games
        game.players[seat] = player["token"]
    for game in made:
        for seat in range(4):
            token = game.players.get(seat)
            body = {} if token else {"name": f"idle {seat}"}
            status, joined = client.call("POST", f"/v1/games/{game.id}/seats/{seat}", body, token)
            assert status == 201, joined
            game.tokens[seat] = joined["token"]
    return made


@dataclass(frozen=True)
class Plan:
    probes: int
    players: int
    idle: int

    @classmethod
    def of(cls, n: int, run_games: int) -> Plan:
        probes = 2 * min(n // 4, run_games)
        players = (n - probes) // 5
        return cls(probes, players, n - probes - players)

    @property
    def idle_games(self) -> int:
        return max(math.ceil(self.idle / 5), math.ceil(self.players / 4))


def stream_specs(n: int, load: list[Game], idle: list[Idle]) -> list[Spec]:
    plan = Plan.of(n, len(load))
    specs: list[Spec] = []
    for game in load[: plan.probes // 2]:
        path = f"/v1/games/{game.id}/stream"
        specs += [Spec(path, game.tokens[0], "probe seat"), Spec(path, None, "probe public")]
    tokens = [t for g in idle for t in g.players.values()]
    specs += [Spec("/v1/me/stream", t, "player") for t in tokens[: plan.players]]
    for i in range(plan.idle):
        watched, which = idle[(i // 5) % len(idle)], i % 5
        path = f"/v1/games/{watched.id}/stream"
        if which == 0:
            specs.append(Spec(path, None, "idle public"))
        else:
            specs.append(Spec(path, watched.tokens[which - 1], "idle seat"))
    return specs


# --- figures --------------------------------------------------------------------------


def delivery_ms(streams: list[Held]) -> list[float]:
    return [
        (received - datetime.fromisoformat(recorded).timestamp()) * 1000
        for held in streams
        for received, recorded in held.deliveries
    ]


@dataclass
class Result:
    n: int
    run: Run
    opened: int = 0
    open_seconds: float = 0.0
    open_at_stop: int = 0
    ended: int = 0
    unexpected: int = 0
    delivery: list[float] = field(default_factory=list)
    rss_before: int = 0
    rss_during: int = 0
    cpu: MachineShare = field(default_factory=lambda: MachineShare(math.nan, math.nan))

    @property
    def kib_per_stream(self) -> float:
        return (self.rss_during - self.rss_before) / self.n if self.n else math.nan


def play_line(label: str, run: Run, base: Run | None = None) -> str:
    ratio = f"  p99/no-stream p99 {run.p99_ms / base.p99_ms:5.2f}" if base else ""
    problems = ""
    if run.refused or run.socket_errors or run.exhausted:
        problems = (
            f"  [refused {run.refused}, socket errors {run.socket_errors}, "
            f"wrk threads out of commands {run.exhausted}] {run.sample}"
        )
    return (
        f"{label:<24} {run.requests:6d} requests  {run.rate:7.1f} req/s  "
        f"p50 {run.p50_ms:6.2f} ms  p99 {run.p99_ms:6.2f} ms{ratio}{problems}"
    )


def memory_line(label: str, workers: Workers, base: Workers | None = None) -> str:
    parts = []
    for pid in sorted(workers.rss):
        rss, held = workers.rss[pid], workers.connections[pid]
        if base is not None and pid in base.rss:
            parts.append(
                f"{pid}: {rss / 1024:.1f} MiB ({(rss - base.rss[pid]) / 1024:+.1f}), "
                f"{held} connections ({held - base.connections[pid]:+d})"
            )
        else:
            parts.append(f"{pid}: {rss / 1024:.1f} MiB, {held} connections")
    return f"{label:<24} workers' VmRSS {workers.total_rss / 1024:.1f} MiB; " + "; ".join(parts)


def scan_log(path: Path, offset: int) -> list[str]:
    """The server log's problems from ``offset``: refusals and errors in the access log
    (status >= 400, by status and path), gunicorn's ERROR / WARNING / CRITICAL lines and
    the exceptions that end its tracebacks, each counted once per distinct text."""
    if not path.exists():
        return [f"(no server log at {path})"]
    found: Counter[str] = Counter()
    access = re.compile(r'"(GET|POST|PUT|DELETE|PATCH|HEAD) (\S+) HTTP/[\d.]+" (\d{3}) ')
    stamp = re.compile(r"^\[[^]]*\] \[\d+\] ")
    in_traceback = False
    with path.open("rb") as f:
        f.seek(offset)
        for raw in f:
            text = raw.decode(errors="replace").rstrip()
            if in_traceback and not text.startswith("Traceback"):
                if text.startswith((" ", "\t")) or not text:
                    continue
                in_traceback = False
                found[f"traceback ending in: {text[:160]}"] += 1
                continue
            if text.startswith("Traceback"):
                in_traceback = True
                continue
            hit = access.search(text)
            if hit:
                if int(hit.group(3)) >= 400:
                    path_text = re.sub(r"[0-9a-f-]{36}", "{id}", hit.group(2).split("?")[0])
                    found[f"HTTP {hit.group(3)} {hit.group(1)} {path_text}"] += 1
                continue
            if any(w in text for w in ("[ERROR]", "[CRITICAL]", "[WARNING]", "WORKER TIMEOUT")):
                message = re.sub(r"\d+", "N", stamp.sub("", text))
                found[message[:160]] += 1
            elif re.search(r"\b(ERROR|CRITICAL|WARNING)\b", text):
                found[text[:160]] += 1
    return [f"{count} x {key}" for key, count in found.most_common()]


def summary(base: Run, base_cpu: MachineShare, results: list[Result]) -> list[str]:
    def fmt(value: float, digits: int = 1) -> str:
        return "-" if math.isnan(value) else f"{value:,.{digits}f}"

    columns = ["no streams", *(f"N={r.n}" for r in results)]
    rows: list[tuple[str, list[str], str]] = [
        (
            "streams opened",
            ["-", *(f"{r.opened}/{r.n}" for r in results)],
            f"{GOAL_STREAMS:,} held",
        ),
        ("seconds to open them all", ["-", *(fmt(r.open_seconds, 2) for r in results)], ""),
        ("open at the end", ["-", *(str(r.open_at_stop) for r in results)], ""),
        ("ended with their game", ["-", *(str(r.ended) for r in results)], ""),
        ("closed unexpectedly", ["-", *(str(r.unexpected) for r in results)], "0"),
        ("play req/s", [fmt(x.rate) for x in [base, *(r.run for r in results)]], ""),
        ("play p50 ms", [fmt(x.p50_ms, 2) for x in [base, *(r.run for r in results)]], ""),
        ("play p99 ms", [fmt(x.p99_ms, 2) for x in [base, *(r.run for r in results)]], ""),
        (
            "play p99 / no-stream p99",
            ["1.00", *(fmt(r.run.p99_ms / base.p99_ms, 2) for r in results)],
            f"<= {GOAL_P99_RATIO} with {GOAL_STREAMS:,}",
        ),
        ("deliveries (probe views)", ["-", *(str(len(r.delivery)) for r in results)], ""),
        ("delivery p50 ms", ["-", *(fmt(percentile(r.delivery, 50)) for r in results)], ""),
        (
            "delivery p99 ms",
            ["-", *(fmt(percentile(r.delivery, 99)) for r in results)],
            f"<= {GOAL_DELIVERY_P99_MS:.0f}",
        ),
        ("delivery max ms", ["-", *(fmt(max(r.delivery, default=math.nan)) for r in results)], ""),
        ("worker RSS KiB/stream", ["-", *(fmt(r.kib_per_stream) for r in results)], ""),
        (
            "machine CPU busy, load %",
            [fmt(100 * c.busy, 0) for c in [base_cpu, *(r.cpu for r in results)]],
            "",
        ),
        (
            "other processes' CPU %",
            [fmt(100 * c.others, 0) for c in [base_cpu, *(r.cpu for r in results)]],
            "~0 (else the figures are skewed)",
        ),
    ]
    width = max(len(c) for c in columns) + 2
    out = [f"{'':<26}" + "".join(f"{c:>{max(width, 12)}}" for c in columns) + "   goal"]
    for label, values, goal in rows:
        cells = "".join(f"{v:>{max(width, 12)}}" for v in values)
        out.append(f"{label:<26}{cells}   {goal}".rstrip())
    return out


def verdicts(base: Run, results: list[Result]) -> list[str]:
    """The goals, each met or missed, for the largest N that reached 1,000 (else the
    largest N)."""
    if not results:
        return []
    r = max(results, key=lambda x: x.n)
    held = r.n >= GOAL_STREAMS and r.opened == r.n and r.unexpected == 0
    p99 = percentile(r.delivery, 99)
    ratio = r.run.p99_ms / base.p99_ms

    def word(ok: bool) -> str:
        return "met" if ok else "MISSED"

    return [
        f"goal {GOAL_STREAMS:,} concurrent streams held: {word(held)} "
        f"({r.opened}/{r.n} opened together, {r.unexpected} closed unexpectedly)",
        f"goal delivery p99 <= {GOAL_DELIVERY_P99_MS:.0f} ms: "
        f"{word(not math.isnan(p99) and p99 <= GOAL_DELIVERY_P99_MS)} (N={r.n}: {p99:.1f} ms)",
        f"goal play p99 with {GOAL_STREAMS:,} streams <= {GOAL_P99_RATIO}x without: "
        f"{word(r.n >= GOAL_STREAMS and ratio <= GOAL_P99_RATIO)} (N={r.n}: {ratio:.2f}x)",
    ]


# --- the phases -----------------------------------------------------------------------


def play(
    port: int, folder: Path, games: list[Game], args: argparse.Namespace, data_dir: Path | None
) -> tuple[Run, MachineShare]:
    """The play load on ``games``; wrk's figures and the machine's CPU meanwhile."""
    write_lists(folder, command_lists(games, args.connections))
    start = MachineSample.take([str(data_dir)] if data_dir else [])
    run = wrk(port, folder, args.connections, args.seconds, cycle=False)
    return run, MachineShare.between(start, MachineSample.take([str(data_dir)] if data_dir else []))


def with_streams(
    port: int,
    stream_port: int,
    n: int,
    load: list[Game],
    idle: list[Idle],
    folder: Path,
    args: argparse.Namespace,
    base: Run,
    data_dir: Path | None,
) -> Result:
    specs = stream_specs(n, load, idle)
    kinds = Counter(s.kind for s in specs)
    probe_games = len({s.path for s in specs if s.probe})
    idle_used = len({s.path for s in specs if s.kind.startswith("idle")})
    print(
        f"\nN={n}: {kinds['probe seat'] + kinds['probe public']} probe streams (seat 0 + "
        f"public of the first {probe_games} of the {len(load)} games the load plays), "
        f"{kinds['player']} player streams (/v1/me/stream), "
        f"{kinds['idle public'] + kinds['idle seat']} idle streams ({kinds['idle public']} "
        f"public, {kinds['idle seat']} seat, over {idle_used} idle games)"
    )
    wait_released(port, 10)  # wrk's connections
    before = Workers.measure(stream_port)
    print(memory_line("  before opening", before))
    client = StreamClient(stream_port, specs)
    try:
        seconds = client.open(timeout=120)
        opened = sum(h.opened for h in client.streams)
        failures = Counter(h.error or "no first message" for h in client.streams if not h.opened)
        print(
            f"  opened {opened}/{n} (200 and a first view/inbox) in {seconds:.2f} s"
            + (f"; failed: {dict(failures)}" if failures else "")
        )
        time.sleep(2)  # let the workers settle before measuring
        during = Workers.measure(stream_port)
        print(memory_line("  streams open", during, before))
        print(
            f"  memory per stream: {(during.total_rss - before.total_rss) / n:.1f} KiB "
            f"(workers' VmRSS {(during.total_rss - before.total_rss) / 1024:+.1f} MiB over {n})"
        )
        client.start_load()
        run, cpu = play(port, folder, load, args, data_dir)
        time.sleep(1)  # the last commits' deliveries
    finally:
        client.stop()
    streams = client.streams
    ended = sum(h.ended for h in streams)
    unexpected = [h for h in streams if h.opened and h.closed and not h.ended]
    delivery = delivery_ms([h for h in streams if h.spec.probe])
    played = {h.spec.path for h in streams if h.played}
    result = Result(
        n,
        run,
        opened=opened,
        open_seconds=seconds,
        open_at_stop=sum(h.open_at_stop for h in streams),
        ended=ended,
        unexpected=len(unexpected),
        delivery=delivery,
        rss_before=before.total_rss,
        rss_during=during.total_rss,
        cpu=cpu,
    )
    print(play_line(f"  plays, {n} streams", run, base))
    print(f"    {cpu.text()}")
    print(
        f"  delivery: {len(delivery)} views on probe streams of {len(played)} games the load "
        f"reached; p50 {percentile(delivery, 50):.1f} ms, p99 {percentile(delivery, 99):.1f} "
        f"ms, max {max(delivery, default=math.nan):.1f} ms"
    )
    print(
        f"  stream client: {client.cpu_seconds:.2f} s of CPU over the {client.wall_seconds:.1f}"
        f" s from the load's start to closing ({client.cpu_seconds / client.wall_seconds:.0%}"
        " of a core)"
    )
    keepalives = sum(h.keepalives for h in streams)
    print(
        f"  at the end: {result.open_at_stop} still open, {ended} ended with their game "
        f"(`end`), {len(unexpected)} closed unexpectedly; {keepalives} keep-alives received"
    )
    for reason, count in Counter(h.error for h in unexpected).most_common(5):
        print(f"    {count} x {reason}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--streams", default="100,1000", help="comma-separated Ns")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument(
        "--games", type=int, default=0, help="games per load run; default: 20 per connection"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--second-node",
        action="store_true",
        help="the streams on a second `yokai serve` on the same database (its embedded "
        "worker off), the plays on the first: every delivery crosses between the nodes "
        "(PostgreSQL's NOTIFY, or Redis with YOKAI_REDIS_URL in the environment)",
    )
    args = parser.parse_args()
    ns = [int(n) for n in args.streams.split(",") if n.strip()]
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")

    def stop(signum: int, _: FrameType | None) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)  # clean up as on Ctrl-C

    tmp = Path(tempfile.mkdtemp(prefix="yokai-stream-bench-"))
    kept = bool(os.environ.get("BENCH_SERVER_LOG"))
    log = Path(os.environ.get("BENCH_SERVER_LOG") or tmp / "server.log")
    os.environ["BENCH_SERVER_LOG"] = str(log)  # http_bench.serving keeps the output there
    offset = log.stat().st_size if log.exists() else 0
    env = {
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_RATE_LIMIT": os.environ.get("BENCH_RATE_LIMIT", "1000000 per minute"),
        "YOKAI_STREAMS_PER_TOKEN": STREAM_LIMIT,
        "YOKAI_STREAMS_PER_ADDRESS": STREAM_LIMIT,
    }
    data_dir = None if os.environ.get("DATABASE_URL") else tmp / "db"
    if data_dir is not None:
        env["YOKAI_DATA_DIR"] = str(data_dir)
    per_run = args.games or max(20, args.seconds) * args.connections
    port: int | None = None
    try:
        with (
            service(env) as port,
            service({**env, "YOKAI_EMBEDDED_WORKER": "0"})
            if args.second_node
            else contextlib.nullcontext(port) as stream_port,
        ):
            master, pids = gunicorn(port)
            if stream_port != port:
                print(
                    f"second node: yokai serve on 127.0.0.1:{stream_port} (its workers "
                    f"{gunicorn(stream_port)[1]}) holds the streams; "
                    + (
                        "Redis: " + os.environ["YOKAI_REDIS_URL"]
                        if os.environ.get("YOKAI_REDIS_URL")
                        else "through NOTIFY"
                    )
                )
            keepalive = os.environ.get("YOKAI_KEEPALIVE_SECONDS", "15")
            print(
                f"server: yokai serve on 127.0.0.1:{port}, gunicorn config "
                f"{GUNICORN_CONF.relative_to(ROOT)}: master {master}, {len(pids)} workers "
                f"{pids}; {'DATABASE_URL' if data_dir is None else 'embedded PostgreSQL'}; "
                f"stream limits {STREAM_LIMIT} per token and per address; keep-alive "
                f"{keepalive} s"
            )
            print(
                f"wrk: {args.connections} connections (one per thread), closed loop, "
                f"{args.seconds} s a run, fresh games each run"
            )
            t0 = time.perf_counter()
            plans = [Plan.of(n, per_run) for n in ns]
            idle_count = max([p.idle_games for p in plans], default=0)
            player_count = max([p.players for p in plans], default=0)
            with ThreadPoolExecutor(len(ns) + 2) as pool:
                runs = [
                    pool.submit(
                        setup_games, port, per_run, args.seed + 100_000 * r, Variant.STANDARD
                    )
                    for r in range(len(ns) + 1)
                ]
                idle_future = pool.submit(idle_games, port, idle_count, player_count)
                loads = [f.result() for f in runs]
                idle = idle_future.result()
            commands = sum(len(g.commands) for games in loads for g in games)
            print(
                f"setup: {len(loads)} x {per_run} four-player standard/advanced games to play "
                f"({commands} commands planned), {len(idle)} idle games (all seats joined), "
                f"{player_count} players holding seats in them; {time.perf_counter() - t0:.1f} s"
            )
            base, base_cpu = play(port, tmp / "run0", loads[0], args, data_dir)
            print(play_line("plays, no streams", base))
            print(f"  {base_cpu.text()}")
            results: list[Result] = []
            for i, n in enumerate(ns, start=1):
                folder = tmp / f"run{i}"
                results.append(
                    with_streams(port, stream_port, n, loads[i], idle, folder, args, base, data_dir)
                )
                waited, remaining = wait_released(stream_port, 45)
                print(
                    f"  closed by the client; the workers let them go in {waited:.1f} s "
                    f"({remaining} connections still held)"
                )
            print("\nsummary (goals beside; nothing is asserted)")
            for text in summary(base, base_cpu, results):
                print(text)
            for text in verdicts(base, results):
                print(text)
    finally:
        left = sweep(port, data_dir)
        if left:
            print(f"ended processes the server left behind: {left}")
        problems = scan_log(log, offset)
        print(f"\nserver log ({log if kept else 'not kept: set BENCH_SERVER_LOG to keep it'}):")
        for text in problems or ["no errors, warnings or refusals"]:
            print(f"  {text}")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
