"""HTTP benchmark: the service beside a bare Flask endpoint, in one run, on one machine.

What it does:
1. Starts `yokai serve` (the product's gunicorn config, deploy/gunicorn.conf.py; on
   DATABASE_URL, else an embedded PostgreSQL in a temporary folder) and, beside it, a bare
   Flask JSON endpoint (bench/bare_app.py) under the same gunicorn config.
2. Creates games as an operator with a `seed` and joins every seat. Because the dealer's
   shuffle is a documented function of (seed, round), the benchmark knows every deal and
   plays each game through the rules engine first: every command of every game (passes
   and plays, all legal) is known before the load starts, so the load needs no reads.
3. Drives both servers with wrk (C, HTTP/1.1 keep-alive; `apt-get install wrk`): N
   connections (16 by default), one per wrk thread, each sending the commands of its own
   games one at a time, the next as soon as the previous is answered (a closed loop:
   throughput is what N clients waiting on their answers get). The bare endpoint receives
   exactly the same requests. Then the read endpoints (GET /view, GET /v1/games/{id},
   GET /events), again beside the bare endpoint.
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
import http.client
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.adapters.dealing.dealer import ShufflingDealer
from service.bots.random_bot import random_move
from service.bots.selfplay import bot_command
from service.rules import (
    INITIAL,
    Command,
    CreateGame,
    GameState,
    JoinSeat,
    PassCards,
    PlayCard,
    Scoring,
    Variant,
    deal_due,
    decide,
    fold,
)
from tests.support.cpu import Accounts, per_request
from tests.support.ports import free_port
from tests.support.processes import NotReadyError, answers, running

ROOT = Path(__file__).resolve().parents[1]
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
LUA = Path(__file__).with_name("wrk_requests.lua")
OPERATOR_TOKEN = "bench-operator-token-of-32-characters"


class Client:
    """One keep-alive connection, JSON in and out."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        r = self.conn.getresponse()
        return r.status, json.loads(r.read() or b"null")


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


# --- games and their commands ---------------------------------------------------------


@dataclass
class Game:
    id: str
    tokens: list[str]
    seed: int
    variant: Variant
    scoring: Scoring
    commands: list[tuple[str, str, str, Any]] = field(
        default_factory=list
    )  # method, path, token, body
    plays: int = 0


def new_game(
    client: Client,
    seed: int,
    variant: Variant,
    scoring: Scoring,
    players: Sequence[str | None] = (None,) * 4,
) -> Game:
    """A game whose seats are joined anonymously, or, where ``players`` gives a player
    token, by that player (their name then sealed, as every player's is)."""
    body = {"players": 4, "scoring": scoring.value, "variant": variant.value, "seed": seed}
    status, created = client.call("POST", "/v1/games", body, OPERATOR_TOKEN)
    assert status == 201, created
    gid = created["id"]
    tokens = []
    for seat in range(4):
        path = f"/v1/games/{gid}/seats/{seat}"
        status, joined = client.call("POST", path, {"name": f"p{seat}"}, players[seat])
        assert status == 201, joined
        tokens.append(joined["token"])
    game = Game(gid, tokens, seed, variant, scoring)
    plan(game)
    return game


def plan(game: Game) -> None:
    """Every command of the game, decided here with the engine and the service's own
    dealer (seeded: the deals the service will make), random legal moves."""
    dealer = ShufflingDealer()
    rng = random.Random(game.seed)
    state: GameState = INITIAL
    setup: list[Command] = [CreateGame(4, game.scoring, game.variant, game.seed)]
    for command in setup + [JoinSeat(s, f"p{s}") for s in range(4)]:
        state = fold(decide(state, command), state)
    while True:
        number = deal_due(state)
        if number is not None:
            assert state.config is not None
            state = fold(decide(state, dealer.deal(state.config, game.seed, number)), state)
            continue
        move = bot_command(state, random_move, rng)
        if move is None:
            return
        state = fold(decide(state, move), state)
        path = f"/v1/games/{game.id}"
        assert isinstance(move, PassCards | PlayCard)
        token = game.tokens[move.seat]
        command = move
        if isinstance(command, PassCards):
            game.commands.append(
                ("POST", f"{path}/pass", token, {"cards": [c.id for c in command.cards]})
            )
        elif isinstance(command, PlayCard):
            game.commands.append(("POST", f"{path}/play", token, {"card": command.card.id}))
            game.plays += 1


def write_lists(folder: Path, lists: list[list[tuple[str, str, str, Any]]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i, requests in enumerate(lists):
        with (folder / f"{i}.tsv").open("w") as f:
            for method, path, token, body in requests:
                text = "-" if body is None else json.dumps(body, separators=(",", ":"))
                f.write(f"{method}\t{path}\t{token or '-'}\t{text}\n")


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


def wrk(port: int, folder: Path, connections: int, seconds: int, cycle: bool) -> Run:
    command = ["wrk", f"-t{connections}", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s"]
    command += ["-s", str(LUA), f"http://127.0.0.1:{port}", "--", str(folder)]
    if cycle:
        command.append("cycle")
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


def setup_games(
    port: int, count: int, seed: int, variant: Variant, *, players: bool = False
) -> list[Game]:
    """``players``: every seat is held by one of four players (a player per seat
    number), so views carry sealed names to open, as games of signed-in people do."""
    client = Client(port)
    tokens: list[str | None] = [None] * 4
    if players:
        for seat in range(4):
            status, made = client.call("POST", "/v1/players", {"name": f"player {seat}"})
            assert status == 201, made
            tokens[seat] = made["token"]
    return [new_game(client, seed + i, variant, Scoring.ADVANCED, tokens) for i in range(count)]


def command_lists(games: list[Game], connections: int) -> list[list[tuple[str, str, str, Any]]]:
    lists: list[list[tuple[str, str, str, Any]]] = [[] for _ in range(connections)]
    for i, game in enumerate(games):
        lists[i % connections].extend(game.commands)
    return lists


def read_lists(
    games: list[Game], connections: int, kind: str
) -> list[list[tuple[str, str, str, Any]]]:
    lists: list[list[tuple[str, str, str, Any]]] = [[] for _ in range(connections)]
    for i, game in enumerate(games):
        seat = i % 4
        token = game.tokens[seat]
        if kind == "view":
            request = ("GET", f"/v1/games/{game.id}/view", token, None)
        elif kind == "public":
            request = ("GET", f"/v1/games/{game.id}", "", None)
        else:
            request = ("GET", f"/v1/games/{game.id}/events?after=0&limit=20", token, None)
        lists[i % connections].append(request)
    return lists


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
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is needed: apt-get install wrk")

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
        with service(env) as service_port, bare(env) as bare_port:
            print(
                f"wrk: {connections} connections (one per thread), closed loop; "
                f"gunicorn config {GUNICORN_CONF.relative_to(ROOT)} for both"
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
            folder = tmp / "commands"
            write_lists(folder, command_lists(games, connections))
            # The bare endpoint keeps no state: it may go round its lists again.
            base = wrk(bare_port, folder, connections, args.seconds, cycle=True)
            before = Accounts.take(service_port, [str(tmp)])
            run = wrk(service_port, folder, connections, args.seconds, cycle=False)
            used = Accounts.take(service_port, [str(tmp)]).since(before)
            print(line("bare Flask, same requests", base))
            print(line("POST /play and /pass", run, base))
            print(f"  {per_request(used, run.requests)}")
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
                run = wrk(service_port, folder, connections, args.read_seconds, cycle=True)
                print(line(f"bare Flask, {kind} requests", base))
                print(line(label, run, base))
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


if __name__ == "__main__":
    main()
