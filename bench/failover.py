"""Failover under load: lose the database machine, lose no acknowledged command (issue 34).

What it does:
1. Starts a two-node Patroni cluster with one etcd member (scripts/ha.sh, synchronous
   replication that never acknowledges a commit the standby lacks), migrates it, and
   starts a real `yokai serve` (gunicorn and its embedded worker: bots, turn clocks,
   webhooks) on the cluster's multi-host DATABASE_URL.
2. Runs the load: 16 clients, each the one person of a four-seat game whose other seats
   are bots, with a turn clock; every command carries an Idempotency-Key and is sent
   again with the same key after a 503 or a broken connection, until it is answered.
   Four of the clients are slow (they let their clock play for them). Public streams
   of four games are read throughout, resuming with Last-Event-ID when cut. An operator
   webhook sends every game's events to a receiver here.
3. Makes three faults, one after the other, each after the load has settled: a planned
   switchover; kill -9 of the primary's PostgreSQL (its Patroni restarts it); kill -9 of
   the primary's PostgreSQL and Patroni (the machine lost: the standby is promoted when
   the leader key expires; the lost node comes back as the new standby once the
   promotion is seen, as a replaced machine would).
4. Stops the load and checks: every acknowledged command is in the database exactly
   once (its events carry its key's digest, one transaction); every game's seqs are
   contiguous and its history verifies (`yokai verify --all`); every stream saw every
   event of its game, in order, with no gap; every webhook delivery that the events
   committed when the load stopped call for (read once the clients stopped: bots and
   clocks play on) reached the receiver; no turn clock acted twice on one turn.
   Before each fault the harness waits for Patroni to name a synchronous standby.

Prints, per fault: the window in which requests failed (first failure to first success
after it, from the fault), how many requests failed, and the longest a command waited
to be answered. Figures, not assertions; tests/ha/test_failover.py asserts the checks.

Run: ``.venv/bin/python -m bench.failover``. Needs Debian's patroni, etcd-server and
postgresql (scripts/ha.sh installs them as root).
"""

from __future__ import annotations

import hashlib
import http.client
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.ports import free_port, port_free
from tests.support.processes import answers, running
from tests.support.sse import SseStream
from tests.support.webhook_receiver import Receiver, messages, receiving

ROOT = Path(__file__).resolve().parents[1]
OPERATOR_TOKEN = "failover-operator-token-of-32-characters"
# The service's keys, the same for `yokai serve` and the `yokai verify` that checks it.
KEYS = {"YOKAI_CHAIN_KEY": os.urandom(32).hex(), "YOKAI_FAIRNESS_KEY": os.urandom(32).hex()}
CLIENTS = 16
SLOW = 4  # clients that let their turn clock act for them
STREAMS = 4
TURN_SECONDS = 4


# --- the cluster -----------------------------------------------------------------------


class Cluster:
    """scripts/ha.sh on a folder and ports of its own."""

    def __init__(self, folder: Path, base: int) -> None:
        self.env = {**os.environ, "YOKAI_HA_DIR": str(folder), "YOKAI_HA_PORT": str(base)}
        self.url = ""

    def sh(self, *args: str, timeout: float = 300) -> str:
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "ha.sh"), *args],
            check=False,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"scripts/ha.sh {' '.join(args)}: {done.stderr}{done.stdout}")
        return done.stdout

    def up(self) -> str:
        out = self.sh("up")
        self.url = out.strip().splitlines()[-1].removeprefix("DATABASE_URL=")
        return self.url

    def members(self) -> dict[str, tuple[str, str]]:
        out = self.sh("status")
        rows = [line.split() for line in out.strip().splitlines()[1:-1]]
        return {r[0]: (r[1], r[2]) for r in rows}

    def leader(self) -> str | None:
        try:
            found = [n for n, (role, state) in self.members().items() if role == "leader"]
        except RuntimeError:
            return None
        return found[0] if found else None

    def wait_healthy(self, seconds: int) -> None:
        """Until a leader runs and Patroni names a synchronous standby (scripts/ha.sh
        wait-healthy). Commits going through is not enough: with strict synchronous mode
        Patroni promotes only the standby its state names, which it writes a loop (up
        to ``loop_wait``, 10 s) after the standby is back; a primary lost before that is
        not replaced until a person acts."""
        self.sh("wait-healthy", str(seconds), timeout=seconds + 30)

    def logs(self, lines: int = 30) -> str:
        """The last lines of each node's Patroni log."""
        folder = Path(self.env["YOKAI_HA_DIR"])
        out = []
        for log in sorted(folder.glob("node*/patroni.log")):
            try:
                tail = log.read_text(errors="replace").splitlines()[-lines:]
            except OSError as error:
                tail = [str(error)]
            out.append(f"--- {log.parent.name}\n" + "\n".join(tail))
        return "\n".join(out)


@contextmanager
def cluster() -> Iterator[Cluster]:
    folder = Path(tempfile.mkdtemp(prefix="yokai-ha-"))
    os.chmod(folder, 0o755)
    made = Cluster(folder / "cluster", base=_free_base())
    try:
        made.up()
        yield made
    finally:
        try:
            made.sh("down", timeout=120)
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def _free_base() -> int:
    """A first port whose next 22 are free (scripts/ha.sh's ports)."""
    for _ in range(50):
        base = random.randrange(20000, 40000)
        if all(port_free(base + i) for i in (1, 2, 11, 12, 20, 21)):
            return base
    raise RuntimeError("no free ports for the cluster")


# --- the service -----------------------------------------------------------------------


@contextmanager
def serving(url: str, folder: Path) -> Iterator[int]:
    port = free_port()
    env = {
        **os.environ,
        **KEYS,
        "DATABASE_URL": url,
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_DATA_DIR": str(folder),
        "YOKAI_WEBHOOK_ALLOW_PRIVATE": "1",
        "YOKAI_RATE_LIMIT": "",
        "YOKAI_WORKERS": "2",
        "YOKAI_KEEPALIVE_SECONDS": "1",
    }
    subprocess.run([sys.executable, "-m", "service.cli", "migrate"], env=env, check=True, cwd=ROOT)
    with running(
        [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
        folder / "serve.log",
        ready=lambda: answers(f"http://127.0.0.1:{port}"),
        env=env,
        cwd=ROOT,
        append=True,
        new_session=True,
        what="yokai serve",
    ):
        yield port


class Client:
    """A keep-alive connection, made again when it breaks."""

    def __init__(self, port: int, timeout: float = 30) -> None:
        self.port = port
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        key: str | None = None,
    ) -> tuple[int, Any, dict[str, str]]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if key:
            headers["Idempotency-Key"] = key
        if self.conn is None:
            self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            self.conn.request(method, path, json.dumps(body) if body is not None else None, headers)
            r = self.conn.getresponse()
            raw = r.read()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = None
            return 0, None, {}
        return r.status, json.loads(raw) if raw else None, dict(r.getheaders())


# --- the load --------------------------------------------------------------------------


@dataclass
class Failure:
    at: float
    status: int  # 0: the connection broke


@dataclass
class Log:
    """What every client saw: acknowledged commands, failed attempts, answer times."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acknowledged: list[tuple[str, str, float]] = field(default_factory=list)  # game, key, at
    successes: list[float] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    waits: list[tuple[float, float]] = field(default_factory=list)  # sent at, waited


def command(client: Client, log: Log, method: str, path: str, body: Any, token: str) -> int:
    """Send until answered (the same key each time); the final status."""
    key = str(uuid.uuid4())
    started = time.monotonic()
    while True:
        status, _, headers = client.call(method, path, body, token, key)
        now = time.monotonic()
        if status == 0 or status >= 500:
            with log.lock:
                log.failures.append(Failure(now, status))
            time.sleep(min(1.0, float(headers.get("Retry-After", "0.2") or 0.2)))
            continue
        with log.lock:
            log.successes.append(now)
            log.waits.append((started, now - started))
            if 200 <= status < 300:
                log.acknowledged.append((path.split("/")[3], key, now))
        return status


def player(
    port: int,
    log: Log,
    games: list[tuple[int, str]],
    stop: threading.Event,
    slow: bool,
    n: int,
) -> None:
    """One person: a game after another until stopped (each game's other seats bots)."""
    client = Client(port)
    game = _retrying(lambda: new_game(client, n), log, stop)
    if game is None:
        return
    with log.lock:
        games.append((n, game["id"]))
    rng = random.Random(game["id"])
    while not stop.is_set():
        gid, token = game["id"], game["token"]
        status, view, _ = client.call("GET", f"/v1/games/{gid}/view", None, token)
        if status == 0 or status >= 500:
            with log.lock:
                log.failures.append(Failure(time.monotonic(), status))
            time.sleep(0.2)
            continue
        with log.lock:
            log.successes.append(time.monotonic())
        if view["status"] == "finished":
            game = _retrying(lambda: new_game(client, n), log, stop)
            if game is None:
                return
            with log.lock:
                games.append((n, game["id"]))
            continue
        if view["action"] is None or slow:
            time.sleep(0.1)
            continue
        if view["action"] == "pass":
            body = {"cards": rng.sample(view["legal"], 3)}
            command(client, log, "POST", f"/v1/games/{gid}/pass", body, token)
        elif view["action"] == "play":
            body = {"card": rng.choice(view["legal"])}
            command(client, log, "POST", f"/v1/games/{gid}/play", body, token)


def _retrying(make: Any, log: Log, stop: threading.Event) -> Any:
    """``make()`` again until it stops failing for the store's sake (None: stopped)."""
    while not stop.is_set():
        try:
            return make()
        except Unavailable:
            with log.lock:
                log.failures.append(Failure(time.monotonic(), 503))
            time.sleep(0.5)
    return None


class Unavailable(Exception):
    """The service could not be reached, or answered 5xx."""


def new_game(client: Client, n: int) -> dict[str, Any]:
    """A game whose seat 0 is the person's and the others bots, with a turn clock. The
    store being unreachable midway leaves a game nobody plays (it expires): a new one is
    made, each step under its own Idempotency-Key."""
    body = {"players": 4, "clock": {"turn_seconds": TURN_SECONDS, "on_timeout": "autoplay"}}
    made = _ok(client.call("POST", "/v1/games", body, OPERATOR_TOKEN, str(uuid.uuid4())), 201)
    gid = made["id"]
    seat = {"name": f"person {n}"}
    joined = _ok(client.call("POST", f"/v1/games/{gid}/seats/0", seat, None, _long_key()), 201)
    for s in (1, 2, 3):
        path = f"/v1/games/{gid}/seats/{s}/bot"
        _ok(client.call("POST", path, {"level": "basic"}, OPERATOR_TOKEN, str(uuid.uuid4())), 200)
    return {"id": gid, "token": joined["token"]}


def _long_key() -> str:
    return uuid.uuid4().hex + uuid.uuid4().hex  # a tokenless join's key needs 32 characters


def _ok(answer: tuple[int, Any, dict[str, str]], *expected: int) -> Any:
    status, body, _ = answer
    if status == 0 or status >= 500:
        raise Unavailable(status)
    assert status in (*expected, 201), (status, body)
    return body


class Streamer(threading.Thread):
    """A game's public stream, read until stopped; resumes with Last-Event-ID."""

    def __init__(self, port: int, game_id: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.game_id, self.stop = port, game_id, stop
        self.seqs: list[int] = []
        self.reconnects = 0
        self.mark = 0  # the game's version a moment before the stream was stopped

    def run(self) -> None:
        while not self.stop.is_set():
            with suppress(OSError, http.client.HTTPException):
                self._read()
            self.reconnects += 1
            self.stop.wait(0.5)

    def _read(self) -> None:
        last = self.seqs[-1] if self.seqs else 0
        with SseStream(
            f"127.0.0.1:{self.port}",
            f"/v1/games/{self.game_id}/stream",
            {"Last-Event-ID": str(last)},
            timeout=5,  # keep-alives come every few seconds; none: cut
        ) as stream:
            if stream.status != 200:
                return
            for message in stream.events():
                if self.stop.is_set():
                    return
                if message is None:
                    continue  # a keep-alive
                if message.event == "game_event" and message.id is not None:
                    self.seqs.append(message.id)
                if message.event == "end":
                    self.stop.wait(1)


def delivered(receiver: Receiver) -> set[tuple[str, str, str]]:
    """The webhook deliveries that reached ``receiver``, by what they tell: (type, game,
    round)."""
    return {
        (body["type"], body["data"]["game_id"], str(body["data"].get("round", "")))
        for body in messages(list(receiver.received))
    }


# --- the run ---------------------------------------------------------------------------


@dataclass
class Fault:
    name: str
    at: float
    window: float | None = None  # first failure to the first success after it
    failed: int = 0
    by_status: dict[int, int] = field(default_factory=dict)  # 0: the connection broke
    longest_wait: float = 0.0
    recovered_in: float | None = None  # from the fault to the first success after a failure


@dataclass
class Result:
    faults: list[Fault]
    log: Log
    games: list[str]
    streams: list[Streamer]
    received: set[tuple[str, str, str]]
    database_url: str
    expected: set[tuple[str, str, str]] = field(default_factory=set)
    checks: dict[str, Any] = field(default_factory=dict)


def settle(log: Log, seconds: float) -> None:
    """Wait until the load has gone ``seconds`` with successes and no failure."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        now = time.monotonic()
        with log.lock:
            failed = [f.at for f in log.failures if f.at > now - seconds]
            ok = [s for s in log.successes if s > now - 1]
        if not failed and ok and now - _started(log) > seconds:
            return
        time.sleep(0.5)
    raise RuntimeError("the load did not settle in 300 s")


def _started(log: Log) -> float:
    with log.lock:
        return log.successes[0] if log.successes else time.monotonic()


def measure(fault: Fault, log: Log) -> None:
    with log.lock:
        failures = [f for f in log.failures if f.at >= fault.at]
        waits = [w for started, w in log.waits if started + w >= fault.at]
        successes = list(log.successes)
    fault.failed = len(failures)
    for f in failures:
        fault.by_status[f.status] = fault.by_status.get(f.status, 0) + 1
    fault.longest_wait = max(waits, default=0.0)
    if failures:
        first = failures[0].at
        after = [s for s in successes if s > failures[-1].at]
        if after:
            fault.window = after[0] - first
            fault.recovered_in = after[0] - fault.at


def run(out: Any = sys.stdout) -> Result:
    folder = Path(tempfile.mkdtemp(prefix="yokai-failover-"))
    try:
        with cluster() as ha, receiving() as receiver, serving(ha.url, folder) as port:
            return _load(ha, port, receiver, out)
    finally:
        _unhandled(folder / "serve.log", out)
        shutil.rmtree(folder, ignore_errors=True)


def _unhandled(log: Path, out: Any) -> None:
    """The service's unhandled errors (its 500s), with their tracebacks, before its log
    goes with the run's folder: what a failed run needs to be understood."""
    if not log.exists():
        return
    for line in log.read_text(errors="replace").splitlines():
        if '"unhandled error"' in line:
            print(f"server: {line[:4000]}", file=out, flush=True)


def _load(ha: Cluster, port: int, receiver: Receiver, out: Any) -> Result:
    setup = Client(port)
    log = Log()
    hook = {
        "url": receiver.url,
        "events": ["game_started", "turn", "round_finished", "game_finished"],
    }
    status, made, _ = setup.call("POST", "/v1/webhooks", hook, OPERATOR_TOKEN)
    assert status == 201, made
    games: list[tuple[int, str]] = []
    stop = threading.Event()
    threads = [
        threading.Thread(target=player, args=(port, log, games, stop, n < SLOW, n), daemon=True)
        for n in range(CLIENTS)
    ]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while len(games) < CLIENTS and time.monotonic() < deadline:
        time.sleep(0.1)
    with log.lock:  # the streams follow the slow clients' games: they last the run
        followed = [gid for n, gid in games if n < min(SLOW, STREAMS)]
    streams = [Streamer(port, g, stop) for g in followed]
    for s in streams:
        s.start()
    faults: list[Fault] = []
    try:
        settle(log, 5)
        ha.wait_healthy(120)
        print("load running; planned switchover", file=out, flush=True)
        fault = Fault("planned switchover", time.monotonic())
        ha.sh("switchover")
        settle(log, 5)
        measure(fault, log)
        faults.append(fault)

        ha.wait_healthy(120)
        print("kill -9 the primary's PostgreSQL", file=out, flush=True)
        fault = Fault("kill -9 PostgreSQL (Patroni restarts it)", time.monotonic())
        ha.sh("kill-primary")
        settle(log, 5)
        measure(fault, log)
        faults.append(fault)

        ha.wait_healthy(120)
        print("kill -9 the primary's PostgreSQL and Patroni", file=out, flush=True)
        lost = ha.leader()
        fault = Fault("kill -9 PostgreSQL and Patroni (machine lost)", time.monotonic())
        ha.sh("kill-primary", "--patroni")
        deadline = time.monotonic() + 120
        while ha.leader() in (None, lost):
            if time.monotonic() > deadline:
                try:
                    members: object = ha.members()
                except RuntimeError as error:
                    members = error
                raise RuntimeError(f"no promotion in 120 s; members {members}\n{ha.logs()}")
            time.sleep(0.5)
        promoted = time.monotonic() - fault.at
        ha.sh("up")  # the lost node comes back as the standby
        settle(log, 5)
        measure(fault, log)
        fault.name += f", promoted after {promoted:.1f} s"
        faults.append(fault)
        # The streams must have every event committed up to now: their games' versions,
        # waited for (the games go on after the load stops: bots and clocks play them).
        for s in streams:
            path = f"/v1/games/{s.game_id}"
            s.mark = _retrying(lambda p=path: _ok(Client(port).call("GET", p), 200), log, stop)[
                "version"
            ]
        deadline = time.monotonic() + 30
        while any(len(s.seqs) < s.mark for s in streams) and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
        for s in streams:
            s.join(timeout=30)
    result = Result(faults, log, [gid for _, gid in games], streams, set(), ha.url)
    # The games go on (bots and clocks), so the deliveries to expect are fixed first, by
    # what their events tell at one moment, and then waited for; an event committed after
    # that moment is not expected (its delivery could still be on its way).
    result.expected = _told(ha.url)
    result.checks["on_their_way"] = len(result.expected - delivered(receiver))
    told_at = time.monotonic()
    result.received = _wait_for_deliveries(receiver, result.expected, told_at + 120)
    result.checks["waited"] = time.monotonic() - told_at
    check(result)
    report(result, out)
    return result


def _sql(url: str, query: str) -> list[list[str]]:
    done = subprocess.run(
        [
            "psql",
            "-qtA",
            "-F",
            "\t",
            url.replace("?target_session_attrs=read-write", ""),
            "-c",
            query,
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PGTARGETSESSIONATTRS": "read-write"},
    )
    return [line.split("\t") for line in done.stdout.strip().splitlines() if line]


def _told(url: str) -> set[tuple[str, str, str]]:
    """The deliveries the games' events call for so far, as the receiver keys them:
    (type, game, round)."""
    told = _sql(
        url,
        "SELECT CASE type WHEN 'RoundDealt' THEN 'game_started' WHEN 'RoundEnded' "
        "THEN 'round_finished' ELSE 'game_finished' END, game_id, "
        "CASE type WHEN 'RoundEnded' THEN data->>'number' ELSE '' END FROM events "
        "WHERE (type = 'RoundDealt' AND data->>'number' = '1') "
        "OR type IN ('RoundEnded', 'GameEnded')",
    )
    return {(t, g, r) for t, g, *rest in told for r in (rest[0] if rest else "",)}


def _wait_for_deliveries(
    receiver: Receiver, expected: set[tuple[str, str, str]], deadline: float
) -> set[tuple[str, str, str]]:
    """What the receiver holds once it holds every expected delivery, or at the deadline."""
    while True:
        got = delivered(receiver)
        if expected <= got or time.monotonic() > deadline:
            return got
        time.sleep(0.5)


def check(result: Result) -> None:
    url = result.database_url
    checks = result.checks
    # Every acknowledged command exactly once: its events carry its key's digest, all in
    # one transaction.
    digests = {hashlib.sha256(k.encode()).hexdigest(): g for g, k, _ in result.log.acknowledged}
    rows = _sql(
        url,
        "SELECT idempotency_key, count(DISTINCT transaction_id) FROM events "
        "WHERE idempotency_key IS NOT NULL GROUP BY 1",
    )
    found = {d: int(n) for d, n in rows}
    checks["acknowledged"] = len(digests)
    checks["missing"] = [d for d in digests if d not in found]
    checks["duplicated"] = [d for d in digests if found.get(d, 1) != 1]
    # Every game's seqs contiguous, as long as its version.
    checks["gaps"] = _sql(
        url,
        "SELECT g.id FROM games AS g JOIN events AS e ON e.game_id = g.id GROUP BY g.id "
        "HAVING count(*) <> max(e.seq) OR max(e.seq) <> max(g.version)",
    )
    # Streams: every event of the game from 1, in order, up to the version it had a
    # moment before the streams stopped.
    checks["stream_gaps"] = [
        (s.game_id, len(s.seqs), _first_gap(s.seqs), s.mark)
        for s in result.streams
        if s.seqs != list(range(1, len(s.seqs) + 1)) or len(s.seqs) < s.mark
    ]
    checks["stream_reconnects"] = sum(s.reconnects for s in result.streams)
    # Webhooks: what the games' events told when the load stopped reached the receiver
    # (at least once).
    checks["deliveries"] = len(result.expected)
    checks["webhooks_lost"] = sorted(result.expected - result.received)
    # Clocks: no turn timed out twice (the seat acts between two timeouts of its own).
    timeouts = _sql(
        url,
        "SELECT game_id, seq, type, data->>'seat' FROM events WHERE type IN "
        "('TurnTimedOut', 'CardPlayed', 'CardsPassed') ORDER BY game_id, seq",
    )
    twice = []
    pending: dict[tuple[str, str], bool] = {}
    for gid, seq, kind, seat in timeouts:
        if kind == "TurnTimedOut":
            if pending.get((gid, seat)):
                twice.append((gid, seq))
            pending[(gid, seat)] = True
        else:
            pending[(gid, seat)] = False
    checks["timeouts"] = sum(1 for r in timeouts if r[2] == "TurnTimedOut")
    checks["clock_twice"] = twice
    env = {**os.environ, **KEYS, "DATABASE_URL": url}
    verified = subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", "--all"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    checks["verify"] = verified.returncode
    checks["verify_line"] = (verified.stdout.strip().splitlines() or [""])[-1]


def _first_gap(seqs: list[int]) -> tuple[int, int] | None:
    for a, b in itertools.pairwise(seqs):
        if b != a + 1:
            return a, b
    return None


def report(result: Result, out: Any) -> None:
    print(
        f"\n{CLIENTS} clients ({SLOW} slow, their turn clock of {TURN_SECONDS} s acting), "
        f"{STREAMS} streams, an operator webhook",
        file=out,
    )
    for f in result.faults:
        window = "none" if f.window is None else f"{f.window:.1f} s"
        recovered = "-" if f.recovered_in is None else f"{f.recovered_in:.1f} s"
        print(
            f"{f.name}: failed requests {f.failed} {dict(sorted(f.by_status.items()))}, "
            f"failing window {window}, "
            f"recovered {recovered} after the fault, longest command wait {f.longest_wait:.1f} s",
            file=out,
        )
    c = result.checks
    for gap in c["stream_gaps"]:
        print(f"stream with a gap: {gap}", file=out)
    print(
        f"acknowledged commands {c['acknowledged']}: missing {len(c['missing'])}, "
        f"duplicated {len(c['duplicated'])}; games with gaps {len(c['gaps'])}; "
        f"streams with gaps {len(c['stream_gaps'])} ({c['stream_reconnects']} reconnects); "
        f"webhook deliveries {c['deliveries']} ({c['on_their_way']} on their way as the load "
        f"stopped, waited {c['waited']:.1f} s), lost {len(c['webhooks_lost'])}; "
        f"turn timeouts {c['timeouts']}, acted twice {len(c['clock_twice'])}; "
        f"yokai verify --all: exit {c['verify']} ({c['verify_line']})",
        file=out,
    )


if __name__ == "__main__":
    run()
