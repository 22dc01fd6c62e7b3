"""The games the HTTP benchmarks play, and the JSON client that makes them.

Games are created as an operator with a ``seed`` and every seat joined. Because the
dealer's shuffle is a documented function of (seed, round), every command of every game
(passes and plays, all legal, random moves) is decided here with the rules engine before
any load starts, and written as wrk's request lists (bench/wrk_requests.lua), one file per
connection. bench/http_bench.py, bench/stream_bench.py, bench/webhook_bench.py and
bench/scaleout_bench.py drive them.
"""

from __future__ import annotations

import http.client
import json
import random
from collections.abc import Sequence
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
