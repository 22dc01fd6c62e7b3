"""Web Push benchmark: how soon after the commit that makes it a player's turn does the
push reach the push service, with many games at once?

1. Starts `yokai serve` (the product's gunicorn config and its embedded worker; an
   embedded PostgreSQL unless DATABASE_URL is set) with YOKAI_PUSH_ALLOW_HTTP=1, and the
   tests' push service in this process (tests/support/push_service.py: it verifies each
   VAPID signature and decrypts each message, as a real one would not need to).
2. Makes ``--games`` four-player games whose every seat is held by a player of its own
   with one push subscription, and plays them with wrk as bench/http_bench.py does (every
   command planned with the rules engine first), one connection per game by default, so
   all the games are under way at once (``--think-ms``: each player pauses that long
   before each command, as people do; else a closed loop, which saturates this machine
   with plays alone); the worker meanwhile sends every push (and runs its usual jobs).
3. Prints the plays' rate and latency, then, once no push has arrived for 5 s, how many
   arrived and their lag: arrival time minus the commit time of the version each push
   names (the event's ``recorded_at`` read from the database afterwards; one clock).

    .venv/bin/python -m bench.push_bench --games 100 --seconds 20 --think-ms 500

Goal (issue 45): p99 <= 1 s with 100 games at once. It asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from datetime import datetime
from pathlib import Path

from bench.http_bench import line, service, wrk
from bench.http_games import OPERATOR_TOKEN, Client, Game, command_lists, plan, write_lists
from service.rules import Scoring, Variant
from tests.support.figures import spread_ms
from tests.support.push_service import PushService, Received
from tests.support.waiting import WaitedTooLongError


def pushed_game(client: Client, seed: int, push: PushService, key: str, n: int) -> Game:
    """A game whose four seats are held by players, each subscribed once."""
    status, created = client.call(
        "POST", "/v1/games", {"players": 4, "scoring": "basic", "seed": seed}, OPERATOR_TOKEN
    )
    assert status == 201, created
    tokens = []
    for seat in range(4):
        status, player = client.call("POST", "/v1/players", {"name": f"p{n}-{seat}"})
        assert status == 201, player
        sub = push.subscribe(key).subscription
        status, made = client.call("POST", "/v1/me/push-subscriptions", sub, player["token"])
        assert status == 201, made
        status, joined = client.call(
            "POST", f"/v1/games/{created['id']}/seats/{seat}", {}, player["token"]
        )
        assert status == 201, joined
        tokens.append(joined["token"])
    game = Game(created["id"], tokens, seed, Variant.STANDARD, Scoring.BASIC)
    plan(game)
    return game


def commit_times(games: list[Game], client: Client) -> dict[tuple[str, int], float]:
    """Each version's commit time (Unix seconds), from the games' audit feeds."""
    times: dict[tuple[str, int], float] = {}
    for game in games:
        after = 0
        while True:
            path = f"/v1/games/{game.id}/audit?after={after}&limit=500"
            status, page = client.call("GET", path, None, OPERATOR_TOKEN)
            assert status == 200, page
            for event in page["events"]:
                at = datetime.fromisoformat(event["recorded_at"]).timestamp()
                times[(game.id, event["seq"])] = at
            if not page["events"] or page.get("next_after") is None:
                break
            after = page["next_after"]
    return times


def drain(push: PushService, quiet: float = 5.0, most: float = 600.0) -> bool:
    """Wait until no push has arrived for ``quiet`` seconds; False after ``most``."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        seen = len(push.received)

        def more(got: list[Received], seen: int = seen) -> bool:
            return len(got) > seen

        try:
            push.wait_for(more, timeout=quiet)
        except WaitedTooLongError:
            return True
    return False


def lags(received: list[Received], times: dict[tuple[str, int], float]) -> list[float]:
    out = []
    for r in received:
        message = r.json()
        at = times.get((message["game_id"], message["version"]))
        if at is not None:
            out.append(r.at - at)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--connections", type=int, default=0, help="default: one per game")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=4545)
    parser.add_argument(
        "--think-ms", type=int, default=0, help="each player's pause before a command (0: none)"
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")
    tmp = Path(tempfile.mkdtemp(prefix="yokai-push-bench-"))
    env = {
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_RATE_LIMIT": "1000000 per minute",
        "YOKAI_PUSH_ALLOW_HTTP": "1",
    }
    if not os.environ.get("DATABASE_URL"):
        env["YOKAI_DATA_DIR"] = str(tmp / "db")
    connections = args.connections or args.games
    try:
        with PushService() as push, service(env) as port:
            client = Client(port)
            status, body = client.call("GET", "/v1/push/key", None, "")
            assert status == 200, body
            key = body["public_key"]
            games = [pushed_game(client, args.seed + i, push, key, i) for i in range(args.games)]
            push.wait_for(lambda got: len(got) >= 4 * args.games, timeout=120)  # the deals
            before = len(push.received)
            write_lists(tmp / "plays", command_lists(games, connections))
            run = wrk(port, tmp / "plays", connections, args.seconds, False, args.think_ms)
            quiet = drain(push)
            times = commit_times(games, Client(port))  # the first idled out meanwhile
        during = push.received[before:]
        pause = f", {args.think_ms} ms before each command" if args.think_ms else ", closed loop"
        print(
            f"{args.games} four-player games, {min(connections, args.games)} at once{pause}; "
            "every seat a subscribed player"
        )
        print(line("plays", run))
        print(f"pushes: {len(during)} after the deals ({len(push.rejections)} refused)")
        print(f"lag, commit to the push service: {spread_ms(lags(during, times))} "
              "(goal p99 <= 1 s)")  # fmt: skip
        if not quiet:
            print("pushes were still arriving after 10 minutes")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
