"""What a command's NOTIFY costs PostgreSQL in CPU: at the committing backend, and at
each backend that LISTENs in the same database.

PostgreSQL wakes every backend that listens in the database for each notification,
whatever channel it listens on (async.c, SignalBackends), and each reads the queue to
find out whether the notification is for it. So the service pays per commit once at the
committer and once per listening connection: the worker's, each web process's key cache
(service/adapters/postgres/keycache.py) and, while streams wait, each web process's
streams listener.

The transactions are a command's in miniature: one statement that inserts an event row
and, in the notifying variant, notifies with a payload of the size a play's carries
(events.py appends and notifies in the command's one statement too); the other variant
computes the payload's length instead, so both send the same bytes. The idle listeners
listen on another channel, as the key cache does. Variants alternate, six times each,
and each figure is the median: CPU per transaction from the kernel's accounting
(psutil) of the committing backend and of the listeners' backends.

The CPU is read from the backends' processes, so ``--url`` must name a server on this
machine. The kernel counts CPU in ticks of 10 ms: with the default 6,000 transactions a
run a tick is 1.7 µs per transaction, and differences of a few µs are below what it
can tell. What a streams listener costs beyond a wake-up (its backend sends it the
payload; the process reads and folds it) is not measured here.

Run: ``.venv/bin/python -m bench.notify_cost [--url URL] [--transactions 6000]``
(without --url: an embedded server in a temporary folder). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
import psycopg

from service.adapters.embedded import EmbeddedPostgres
from service.adapters.postgres.engine import libpq_conninfo
from tests.support.cpu import cpu_seconds

EVENT = '{"seq": 1, "type": "CardPlayed", "data": {"seat": 1, "card": "blue-7"}}'
PAYLOAD = ("g 0f6b8f1e-3f0b-4a54-9f1e-1c2d3e4f5a6b 123 x [" + ",".join([EVENT] * 20))[:1500]
WITH = "WITH e AS (INSERT INTO notify_bench (data) VALUES (%s::jsonb) RETURNING id) "
NOTIFYING = WITH + "SELECT pg_notify('yokai', %s) FROM e"
SILENT = WITH + "SELECT length(%s) FROM e"
ROUNDS = 6


def _backend(conn: psycopg.Connection[Any]) -> psutil.Process:
    """The process of ``conn``'s backend, which must run on this machine."""
    row = conn.execute("SELECT pg_backend_pid()").fetchone()
    assert row is not None
    try:
        process = psutil.Process(int(row[0]))
        if "postgres" in process.name():
            return process
    except psutil.NoSuchProcess:
        pass
    raise SystemExit("the server's backends are not processes of this machine: use a local one")


def measure(conninfo: str, listeners: int, transactions: int) -> dict[bool, tuple[float, float]]:
    """Median µs of CPU per transaction (committer, all listeners), by whether it
    notifies."""
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS notify_bench")
        conn.execute("CREATE TABLE notify_bench (id bigserial PRIMARY KEY, data jsonb)")
        idle: list[psycopg.Connection[Any]] = []
        try:
            for _ in range(listeners):
                idle.append(psycopg.connect(conninfo, autocommit=True))
                idle[-1].execute("LISTEN elsewhere")
            committer = _backend(conn)
            listening = [_backend(other) for other in idle]
            found: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
            for _ in range(ROUNDS):
                for notify in (False, True):
                    statement = NOTIFYING if notify else SILENT
                    before = cpu_seconds(committer), sum(cpu_seconds(p) for p in listening)
                    for _ in range(transactions):
                        conn.execute(statement, (EVENT, PAYLOAD))
                    time.sleep(0.2)  # the listeners' backends catch up
                    after = cpu_seconds(committer), sum(cpu_seconds(p) for p in listening)
                    found[notify].append(
                        (
                            (after[0] - before[0]) / transactions * 1e6,
                            (after[1] - before[1]) / transactions * 1e6,
                        )
                    )
        finally:
            for other in idle:
                other.close()
        conn.execute("DROP TABLE notify_bench")
    return {
        notify: (
            statistics.median(c for c, _ in runs),
            statistics.median(listened for _, listened in runs),
        )
        for notify, runs in found.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", help="a PostgreSQL to measure (else an embedded one)")
    parser.add_argument("--transactions", type=int, default=6000)
    args = parser.parse_args()
    server = None
    if args.url:
        url, where = args.url, args.url.split("@")[-1]
    else:
        server = EmbeddedPostgres(Path(tempfile.mkdtemp(prefix="yokai-notify-")))
        url, where = server.start(), "an embedded PostgreSQL"
    try:
        print(f"{where}, {args.transactions} transactions a run, median of {ROUNDS} runs")
        print("µs of CPU per transaction; a listener's is with NOTIFY less without")
        print("idle listeners | committer without / with NOTIFY | each listener")
        for listeners in (0, 1, 3):
            found = measure(libpq_conninfo(url), listeners, args.transactions)
            (quiet, unheard), (notifying, listened) = found[False], found[True]
            each = f"{(listened - unheard) / listeners:.1f}" if listeners else "-"
            print(f"{listeners:14d} | {quiet:6.1f} / {notifying:6.1f} | {each}")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
