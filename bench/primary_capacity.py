"""The capacity of one primary: commits per second with and without a NOTIFY in each
transaction (the service's fan-out: every command's transaction notifies), with pgbench,
on a single PostgreSQL and on scripts/ha.sh's cluster with synchronous replication
(docs/operations.md, "The road past one primary").

Each transaction is what a command's is in miniature: one row inserted into an
append-only table (an event), one row updated (the game's), and, in the NOTIFY variant,
one notification of the size a command's is. pgbench's own figure (tps, excluding
connection time) for each.

Run: ``.venv/bin/python -m bench.primary_capacity [--url URL] [--clients 8] [--seconds 15]``
(without --url: an embedded server in a temporary folder). Needs pgbench (the embedded
server's, else Debian's postgresql-client). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from service.adapters.embedded import EmbeddedPostgres

SETUP = """
DROP TABLE IF EXISTS bench_events, bench_games;
CREATE TABLE bench_games (id int PRIMARY KEY, version int NOT NULL);
INSERT INTO bench_games SELECT g, 0 FROM generate_series(1, 1000) AS g;
CREATE TABLE bench_events (id bigserial PRIMARY KEY, game int NOT NULL, data jsonb NOT NULL);
"""
COMMAND = """\\set g random(1, 1000)
BEGIN;
INSERT INTO bench_events (game, data) VALUES (:g, '{"seat": 1, "card": "blue-7"}');
UPDATE bench_games SET version = version + 1 WHERE id = :g;
{notify}COMMIT;
"""
NOTIFY = "SELECT pg_notify('yokai', :g || ' 1 ' || repeat('x', 200));\n"


def pgbench() -> str:
    try:
        import pgserver  # noqa: PLC0415 - only to find its programs

        bundled = Path(pgserver.__file__).parent / "pginstall" / "bin" / "pgbench"
        if bundled.exists():
            return str(bundled)
    except ImportError:
        pass
    found = shutil.which("pgbench")
    if found is None:
        raise SystemExit("pgbench is not installed (apt-get install postgresql-client)")
    return found


def tps(url: str, script: str, clients: int, seconds: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".sql") as f:
        f.write(script)
        f.flush()
        done = subprocess.run(
            [pgbench(), "-n", "-f", f.name, "-c", str(clients), "-j", "2", "-T", str(seconds), url],
            capture_output=True,
            text=True,
            check=True,
        )
    m = re.search(r"tps = ([\d.]+) \(without initial connection time\)", done.stdout)
    assert m, done.stdout
    return float(m.group(1))


def measure(url: str, clients: int, seconds: int) -> tuple[float, float]:
    subprocess.run(["psql", "-q", url, "-c", SETUP], check=True, capture_output=True)
    plain = tps(url, COMMAND.replace("{notify}", ""), clients, seconds)
    notified = tps(url, COMMAND.replace("{notify}", NOTIFY), clients, seconds)
    subprocess.run(
        ["psql", "-q", url, "-c", "DROP TABLE bench_events, bench_games"],
        check=True,
        capture_output=True,
    )
    return plain, notified


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", help="a PostgreSQL to measure (else an embedded one)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=15)
    args = parser.parse_args()
    if args.url:
        url, where = args.url, args.url.split("@")[-1]
        server = None
    else:
        folder = Path(tempfile.mkdtemp(prefix="yokai-capacity-"))
        server = EmbeddedPostgres(folder)
        url, where = server.start(), "an embedded PostgreSQL"
    try:
        plain, notified = measure(url, args.clients, args.seconds)
    finally:
        if server is not None:
            server.stop()
    print(
        f"{where}, {args.clients} clients, {args.seconds} s each: "
        f"{plain:.0f} commits/s without NOTIFY, {notified:.0f} with "
        f"({notified / plain:.2f} of it)"
    )


if __name__ == "__main__":
    main()
