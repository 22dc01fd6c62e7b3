"""Redis killed under load (issue 43): two `yokai serve` nodes on one database and one
Redis, the plays sent to the first, a stream of every game played held on the second,
and Redis stopped for ``--down`` seconds (5) in the middle of the load, then started
again. Then every stream is checked against the store: each game's events arrived once
each, in order, none missing, up to the game's last version.

What it does:
1. Starts a redis-server (tests/support/redis_server.py), `yokai serve` on an embedded
   PostgreSQL with YOKAI_REDIS_URL (its embedded worker runs the relay), and a second
   `yokai serve` on the same database (YOKAI_EMBEDDED_WORKER=0).
2. Creates ``--games`` games with every command planned (bench/http_games.py) and opens
   the public stream of each on the second node (a thread per stream keeps what comes).
3. Drives the plays with wrk (``--connections``, closed loop) for ``--seconds``; after
   ``--after`` seconds stops Redis (SIGTERM), and ``--down`` seconds later starts it on the
   same port.
4. Waits (up to 60 s) for every stream to reach its game's version (the first node's
   public view) and checks each stream's `game_event` ids: consecutive from the first,
   none twice, ending at the version.

Prints the commands answered and refused (wrk), the streams and events checked, the
missing, repeated and out-of-order events, and how long after the load ended the last
stream got its game's last view. Asserts nothing.

Run: ``.venv/bin/python -m bench.bus_fault_bench [--games 64] [--seconds 20] [--after 5]
[--down 5] [--connections 8]``. Needs wrk and redis-server.
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from bench.http_bench import service, wrk
from bench.http_games import OPERATOR_TOKEN, Client, command_lists, setup_games, write_lists
from service.rules import Variant
from tests.support.redis_server import running
from tests.support.sse import SseStream


class Held:
    """A stream read in a thread of its own: the ids of its game events, as they came."""

    def __init__(self, host: str, game_id: str) -> None:
        self.game_id = game_id
        self.seqs: list[int] = []
        self.last_view = 0
        self.ended = False
        self.error: str | None = None
        self.caught_up_at: float | None = None
        self._stream = SseStream(host, f"/v1/games/{game_id}/stream", timeout=120)
        assert self._stream.status == 200, self._stream.status
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            while (message := self._stream.next()) is not None:
                if message.event == "game_event" and message.id is not None:
                    self.seqs.append(message.id)
                elif message.event == "view" and message.id is not None:
                    self.last_view = message.id
                    self.caught_up_at = time.monotonic()
                elif message.event == "end":
                    self.ended = True
        except Exception as error:
            self.error = repr(error)

    def close(self) -> None:
        self._stream.close()


def check(held: Held, version: int) -> tuple[int, int, int]:
    """Missing, repeated and out-of-order events of a stream whose game is at ``version``."""
    seqs = held.seqs
    if not seqs:
        return 0, 0, 0
    expected = list(range(seqs[0], version + 1))
    missing = len(set(expected) - set(seqs))
    repeated = len(seqs) - len(set(seqs))
    out_of_order = sum(1 for a, b in itertools.pairwise(seqs) if b <= a)
    return missing, repeated, out_of_order


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--after", type=float, default=5)
    parser.add_argument("--down", type=float, default=5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    os.environ.pop("DATABASE_URL", None)
    tmp = Path(tempfile.mkdtemp(prefix="yokai-bus-fault-"))
    held: list[Held] = []
    try:
        with running() as bus:
            env = {
                "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
                "YOKAI_RATE_LIMIT": "1000000 per minute",
                "YOKAI_STREAMS_PER_TOKEN": "100000",
                "YOKAI_STREAMS_PER_ADDRESS": "100000",
                "YOKAI_DATA_DIR": str(tmp / "db"),
                "YOKAI_REDIS_URL": bus.url,
            }
            with (
                service(env) as port,
                service({**env, "YOKAI_EMBEDDED_WORKER": "0"}) as other,
            ):
                games = setup_games(port, args.games, args.seed, Variant.STANDARD)
                held = [Held(f"127.0.0.1:{other}", g.id) for g in games]
                folder = tmp / "commands"
                write_lists(folder, command_lists(games, args.connections))
                back_at: list[float] = []

                def fault() -> None:
                    time.sleep(args.after)
                    bus.stop()
                    time.sleep(args.down)
                    bus.start()
                    back_at.append(time.monotonic())

                faulting = threading.Thread(target=fault, daemon=True)
                faulting.start()
                run = wrk(port, folder, args.connections, args.seconds, cycle=False)
                load_end = time.monotonic()
                faulting.join()
                client = Client(port)
                versions = {}
                for g in games:
                    status, view = client.call("GET", f"/v1/games/{g.id}", None, None)
                    assert status == 200, view
                    versions[g.id] = view["version"]
                deadline = time.monotonic() + 60
                while time.monotonic() < deadline and any(
                    h.last_view < versions[h.game_id] and not h.error for h in held
                ):
                    time.sleep(0.1)
                behind = [h for h in held if h.last_view < versions[h.game_id]]
                totals = [check(h, versions[h.game_id]) for h in held]
                events = sum(len(h.seqs) for h in held)
                last = max((h.caught_up_at or 0) for h in held)
                print(
                    f"wrk: {run.requests} commands answered ({run.rate:.0f}/s), refused "
                    f"{run.refused}, socket errors {run.socket_errors}; Redis down "
                    f"{args.down:g} s from {args.after:g} s into the {args.seconds} s load"
                )
                print(
                    f"streams on the second node: {len(held)}, {events} events received; "
                    f"behind their game at the end: {len(behind)}; with errors: "
                    f"{sum(1 for h in held if h.error)}; ended with their game: "
                    f"{sum(h.ended for h in held)}"
                )
                print(
                    f"missing {sum(t[0] for t in totals)}, repeated {sum(t[1] for t in totals)}, "
                    f"out of order {sum(t[2] for t in totals)}; the last view of the last "
                    f"stream {max(0.0, last - load_end):.2f} s after the load ended (Redis "
                    f"back {load_end - back_at[0]:.1f} s before that)"
                )
    finally:
        for h in held:
            h.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
