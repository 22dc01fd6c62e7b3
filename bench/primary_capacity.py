"""The capacity of one primary: commits per second of a play's transaction on the
service's own tables, with PostgreSQL's NOTIFY in each (the service without Redis), and
without it while a relay reads the log and announces every commit on Redis (the service
with YOKAI_REDIS_URL: service/application/live/relay.py), with pgbench, on a single
PostgreSQL and on scripts/ha.sh's cluster with synchronous replication
(docs/operations.md, "The road past one primary").

Each transaction is a play's in miniature, on the migrated schema: the game's row moved
to its next version (``RETURNING`` it), one event row appended at that version (the
events table's own indexes, defaults and triggers), and, in the NOTIFY variant, one
notification of the size a play's carries. The variants, each pgbench's own figure (tps,
excluding connection time):

- ``bare``: the transaction alone (the ceiling: nobody hears of the commits);
- ``notify``: with the NOTIFY, and one idle LISTENing connection (as each web process
  and worker keeps one);
- ``relay``: without the NOTIFY, and the service's relay in this process (its
  SqlCommitLog on a connection of its own, polling every 10 ms, announcing on a
  redis-server this bench starts) reading and announcing every commit as they come;
  also printed: the commands it announced, and whether it kept up (its position at
  the log's end once pgbench stopped).

Variants alternate (``--rounds`` times each, the median kept): this machine's speed
drifts from minute to minute.

Run: ``.venv/bin/python -m bench.primary_capacity [--url URL] [--clients 8] [--seconds 15]
[--rounds 3]`` (without --url: an embedded server in a temporary folder; a URL must name
a scratch database: it is migrated and its games and events tables written). Needs
pgbench (the embedded server's, else Debian's postgresql-client) and redis-server
(scripts/test.sh installs it). Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import threading
from pathlib import Path

import psycopg

from service.adapters import migrate
from service.adapters.bus import RedisAnnouncer
from service.adapters.embedded import EmbeddedPostgres
from service.adapters.postgres.engine import libpq_conninfo
from service.adapters.postgres.events import announcement
from service.adapters.postgres.relay import SqlCommitLog
from service.application.live.relay import Relay
from tests.support.redis_server import running
from tests.support.waiting import WaitedTooLongError, wait_for

GAMES = 1000
GAME_ID = "('00000000-0000-0000-0000-' || lpad((:g)::text, 12, '0'))::uuid"
SETUP = f"""
INSERT INTO games (id, created_at, updated_at, players, scoring, variant, status, version)
SELECT ('00000000-0000-0000-0000-' || lpad(g::text, 12, '0'))::uuid, now(), now(), 4,
       'basic', 'standard', 'playing', 0
FROM generate_series(1, {GAMES}) AS g
ON CONFLICT (id) DO NOTHING;
"""
COMMAND = f"""\\set g random(1, {GAMES})
BEGIN;
UPDATE games SET version = version + 1, updated_at = now() WHERE id = {GAME_ID}
RETURNING version AS v \\gset
INSERT INTO events (game_id, seq, type, schema_version, data, recorded_at, actor_kind,
actor_seat, prev_hash, hash) VALUES ({GAME_ID}, :v, 'CardPlayed', 1,
'{{"seat": 1, "card": "blue-7"}}', now(), 'seat', 1, repeat('0', 64), repeat('1', 64));
{{notify}}COMMIT;
"""
NOTIFY = "SELECT pg_notify('yokai', 'g ' || :g || ' 1 0 ' || repeat('x', 200));\n"


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
            check=False,
        )
    found = [
        line for line in done.stdout.splitlines() if "(without initial connection time)" in line
    ]
    if done.returncode != 0 or not found:
        raise SystemExit(f"pgbench failed:\n{done.stdout}\n{done.stderr}")
    return float(found[0].split("=")[1].split("(")[0])


def notify_round(url: str, clients: int, seconds: int) -> float:
    with psycopg.connect(libpq_conninfo(url), autocommit=True) as listening:
        listening.execute("LISTEN yokai")  # one listener, whom PostgreSQL wakes per commit
        return tps(url, COMMAND.replace("{notify}", NOTIFY), clients, seconds)


def relay_round(url: str, redis_url: str, clients: int, seconds: int) -> tuple[float, int, bool]:
    """The figure with a relay running, the commands it announced, and whether it had
    announced everything (its position at the log's end) within 10 s of pgbench's end."""
    with psycopg.connect(libpq_conninfo(url), autocommit=True) as conn:
        conn.execute("DELETE FROM relay_positions")  # from the log's end: this run's commits
    announcer = RedisAnnouncer(redis_url)
    log = SqlCommitLog(libpq_conninfo(url), application_name="bench-relay")
    relay = Relay(log, announcer, announcement, poll_seconds=0.01)
    thread = threading.Thread(target=relay.run, name="bench-relay", daemon=True)
    thread.start()
    try:
        figure = tps(url, COMMAND.replace("{notify}", ""), clients, seconds)
        with psycopg.connect(libpq_conninfo(url), autocommit=True) as conn:
            end = conn.execute(
                "SELECT transaction_id, position FROM events "
                "ORDER BY transaction_id DESC, position DESC LIMIT 1"
            ).fetchone()
        caught_up = _caught_up(relay, end, 10)
        return figure, relay.announced, caught_up
    finally:
        relay.stop()
        thread.join(10)
        announcer.close()


def _caught_up(relay: Relay, end: tuple[int, int] | None, seconds: float) -> bool:
    def there() -> bool:
        at = relay.position
        return end is None or (at is not None and (at.transaction, at.position) >= end)

    try:
        wait_for(there, "the relay to announce the last commit", seconds, every=0.05)
    except WaitedTooLongError:
        return False
    return True


def measure(
    url: str, redis_url: str, clients: int, seconds: int, rounds: int
) -> dict[str, list[float]]:
    migrate.upgrade(url)
    with psycopg.connect(libpq_conninfo(url), autocommit=True) as conn:
        conn.execute(SETUP)
    figures: dict[str, list[float]] = {"bare": [], "notify": [], "relay": []}
    for n in range(rounds):
        figures["bare"].append(tps(url, COMMAND.replace("{notify}", ""), clients, seconds))
        figures["notify"].append(notify_round(url, clients, seconds))
        relayed, announced, caught_up = relay_round(url, redis_url, clients, seconds)
        figures["relay"].append(relayed)
        print(
            f"round {n + 1}: bare {figures['bare'][-1]:.0f}, notify {figures['notify'][-1]:.0f}, "
            f"relay {relayed:.0f} commits/s (the relay announced {announced} commands; "
            f"{'caught up' if caught_up else 'NOT caught up within 10 s'})",
            flush=True,
        )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", help="a scratch PostgreSQL database (else an embedded one)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.url:
        url, where = args.url, args.url.split("@")[-1]
        server = None
    else:
        folder = Path(tempfile.mkdtemp(prefix="yokai-capacity-"))
        server = EmbeddedPostgres(folder)
        url, where = server.start(), "an embedded PostgreSQL"
    try:
        with running() as bus:
            figures = measure(url, bus.url, args.clients, args.seconds, args.rounds)
    finally:
        if server is not None:
            server.stop()
    bare, notify, relay = (statistics.median(figures[k]) for k in ("bare", "notify", "relay"))
    print(
        f"{where}, {args.clients} clients, {args.seconds} s a run, median of {args.rounds}: "
        f"{bare:.0f} commits/s bare, {notify:.0f} with NOTIFY ({notify / bare:.2f} of bare), "
        f"{relay:.0f} with the relay ({relay / bare:.2f} of bare, {relay / notify:.2f}x NOTIFY)"
    )


if __name__ == "__main__":
    main()
