"""Worker benchmark: how soon bots act, measured on a running service.

Creates ``--games`` four-bot games at once through the HTTP API (one request each: bots
on every seat), waits until every one has finished, then reads each game's audit (as an
operator) and prints, for every bot move, its latency: the recording time of the bot's
commit minus that of the commit that gave it its turn (both stamped by the server, so
client timing does not count). Also the games' total time and moves per second.

Run it against a running service with an operator token, e.g.:

    export OP=$(openssl rand -hex 32)
    YOKAI_OPERATOR_TOKEN=$OP bash scripts/serve.sh &
    .venv/bin/python -m bench.worker_bench --api http://127.0.0.1:8000 --token "$OP" --games 20

``--level`` chooses the bots' level (``basic`` by default; ``expert`` shows how many
games of search bots one worker carries within the turn goal).

With ``--clocks N`` it also creates N four-player games whose seats are joined and
never act, with a ``--turn-seconds`` autoplay clock, lets them run ``--clock-seconds``,
and prints how late each timeout was acted on: the recording time of the TurnTimedOut
commit minus the deadline (the commit that began the turn, plus turn_seconds).

Goals (docs/api.md Part 2): a bot acts within 1 s of its turn; a deadline is acted on within
2 s. It asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
import urllib.request
from datetime import datetime
from typing import Any

from tests.support.figures import spread_ms


def call(api: str, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(api + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def audit(api: str, token: str, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after = 0
    while True:
        page = call(api, "GET", f"/v1/games/{game_id}/audit?after={after}&limit=1000", token)
        events += page["events"]
        if page["next_after"] is None:
            return events
        after = page["next_after"]


def finished(api: str, token: str, wanted: set[str]) -> set[str]:
    """Which of ``wanted`` are finished: the operator's game list, newest first, paged
    (one request a page, not one a game: the rate limit counts them)."""
    found: set[str] = set()
    cursor = ""
    while True:
        page = call(api, "GET", f"/v1/games?status=finished&limit=100{cursor}", token)
        found |= {g["id"] for g in page["games"]} & wanted
        if found == wanted or page["next_cursor"] is None:
            return found
        cursor = f"&cursor={page['next_cursor']}"


def latencies(events: list[dict[str, Any]]) -> list[float]:
    """Seconds from the commit that gave a bot its turn to the bot's own commit."""
    commits: list[tuple[datetime, str]] = []  # (recorded_at, actor kind) per commit
    for e in events:
        at = datetime.fromisoformat(e["recorded_at"])
        if not commits or commits[-1][0] != at:
            commits.append((at, e["actor"]["kind"]))
    return [
        (at - before).total_seconds()
        for (before, _), (at, kind) in itertools.pairwise(commits)
        if kind == "bot"
    ]


def timeout_lags(events: list[dict[str, Any]], turn_seconds: int) -> list[float]:
    """Seconds from each deadline to the commit that acted on it (no seat acts by hand)."""
    commits: list[tuple[datetime, str]] = []  # (recorded_at, first event type) per commit
    for e in events:
        at = datetime.fromisoformat(e["recorded_at"])
        if not commits or commits[-1][0] != at:
            commits.append((at, e["type"]))
    return [
        (at - before).total_seconds() - turn_seconds
        for (before, _), (at, kind) in itertools.pairwise(commits)
        if kind == "TurnTimedOut"
    ]


def clocks(api: str, token: str, games: int, turn_seconds: int, seconds: float) -> None:
    clock = {"turn_seconds": turn_seconds, "on_timeout": "autoplay"}
    ids = []
    for _ in range(games):
        game_id = call(api, "POST", "/v1/games", token, {"players": 4, "clock": clock})["id"]
        for seat in range(4):
            call(api, "POST", f"/v1/games/{game_id}/seats/{seat}", token, {"name": f"s{seat}"})
        ids.append(game_id)
    time.sleep(seconds)  # a benchmark, not a test: it lets the clocks run
    lags = sorted(x for g in ids for x in timeout_lags(audit(api, token, g), turn_seconds))
    if len(lags) < 2:
        print("too few timeouts recorded")
        return
    print(
        f"clocks: {games} games, {turn_seconds} s autoplay clocks, {seconds:.0f} s: "
        f"{len(lags)} timeouts acted on, lateness {spread_ms(lags)} (goal: within 2 s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", default="http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="the operator token")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--clocks", type=int, default=0, help="games with turn clocks")
    parser.add_argument("--turn-seconds", type=int, default=2)
    parser.add_argument("--clock-seconds", type=float, default=30)
    parser.add_argument("--level", default="basic", choices=("random", "basic", "strong", "expert"))
    args = parser.parse_args()
    if args.clocks:
        clocks(args.api, args.token, args.clocks, args.turn_seconds, args.clock_seconds)

    bots = [{"seat": s, "level": args.level} for s in range(4)]
    started = time.monotonic()
    ids = [
        call(args.api, "POST", "/v1/games", args.token, {"players": 4, "bots": bots})["id"]
        for _ in range(args.games)
    ]
    pending = set(ids)
    while pending and time.monotonic() - started < args.timeout:
        time.sleep(1.0)
        pending -= finished(args.api, args.token, pending)
    elapsed = time.monotonic() - started
    if pending:
        print(f"{len(pending)} of {len(ids)} games unfinished after {args.timeout:.0f} s")
    lat = sorted(x for g in ids for x in latencies(audit(args.api, args.token, g)))
    if not lat:
        print("no bot moves recorded")
        return
    print(f"games: {len(ids)} four-bot games, finished in {elapsed:.1f} s (seen within 1 s)")
    print(f"bot moves: {len(lat)}, {len(lat) / elapsed:.0f} moves/s overall")
    print(f"turn-to-move latency: {spread_ms(lat)} (goal: within 1 s)")


if __name__ == "__main__":
    main()
