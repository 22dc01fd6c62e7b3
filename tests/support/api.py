"""A thin client over the HTTP API for tests: it speaks only HTTP (Flask test client)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from flask.testing import FlaskClient
from werkzeug.test import TestResponse

OPERATOR_TOKEN = "test-operator-token-of-32-characters"
OPERATOR = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Game:
    id: str
    players: int
    tokens: list[str] = field(default_factory=list)

    def seat_headers(self, seat: int) -> dict[str, str]:
        return bearer(self.tokens[seat])


class Api:
    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    # -- raw calls ----------------------------------------------------------------------

    def post(self, path: str, body: Any = None, **headers: str) -> TestResponse:
        return self.client.post(path, json=body, headers=_headers(headers))

    def get(self, path: str, **headers: str) -> TestResponse:
        return self.client.get(path, headers=_headers(headers))

    # -- conveniences -------------------------------------------------------------------

    def create(self, players: int = 4, *, operator: bool = False, **body: Any) -> dict[str, Any]:
        headers = OPERATOR if operator else {}
        r = self.client.post("/v1/games", json={"players": players, **body}, headers=headers)
        assert r.status_code == 201, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    def join(self, game_id: str, seat: int, name: str | None = None) -> str:
        r = self.client.post(
            f"/v1/games/{game_id}/seats/{seat}", json={"name": name or f"player {seat}"}
        )
        assert r.status_code == 201, r.get_json()
        token: str = r.get_json()["token"]
        return token

    def lift_ban(self, player_token: str) -> None:
        """An operator lifts the running ban of the player whose token this is (for tests
        that abandon rated games one after another: docs/api.md "Playing fair")."""
        me = self.client.get("/v1/me", headers=bearer(player_token)).get_json()["id"]
        r = self.client.post(f"/v1/players/{me}/unban", headers=OPERATOR)
        assert r.status_code == 200, r.get_json()

    def start(self, players: int = 4, **body: Any) -> Game:
        """Create a game (as operator when seed/deals are given) and fill every seat."""
        operator = "seed" in body or "deals" in body
        created = self.create(players, operator=operator, **body)
        game = Game(created["id"], players)
        game.tokens = [self.join(game.id, s) for s in range(players)]
        return game

    def view(self, game: Game, seat: int) -> dict[str, Any]:
        r = self.client.get(f"/v1/games/{game.id}/view", headers=game.seat_headers(seat))
        assert r.status_code == 200, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    def public(self, game_id: str) -> dict[str, Any]:
        r = self.client.get(f"/v1/games/{game_id}")
        assert r.status_code == 200, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    def pass_cards(self, game: Game, seat: int, cards: list[str], **headers: str) -> TestResponse:
        return self.client.post(
            f"/v1/games/{game.id}/pass",
            json={"cards": cards},
            headers={**game.seat_headers(seat), **_headers(headers)},
        )

    def play(self, game: Game, seat: int, card: str, **headers: str) -> TestResponse:
        return self.client.post(
            f"/v1/games/{game.id}/play",
            json={"card": card},
            headers={**game.seat_headers(seat), **_headers(headers)},
        )

    def feed(self, game: Game, seat: int | None, after: int = 0) -> list[dict[str, Any]]:
        """Every event after ``after`` as a seat (or the operator, seat None) sees it."""
        headers = OPERATOR if seat is None else game.seat_headers(seat)
        out: list[dict[str, Any]] = []
        while True:
            r = self.client.get(
                f"/v1/games/{game.id}/events?after={after}&limit=1000", headers=headers
            )
            assert r.status_code == 200, r.get_json()
            page = r.get_json()
            out.extend(page["events"])
            if page["next_after"] is None:
                return out
            after = page["next_after"]

    def state(self, game_id: str, at: int | None = None) -> dict[str, Any]:
        query = "" if at is None else f"?at={at}"
        r = self.client.get(f"/v1/games/{game_id}/state{query}", headers=OPERATOR)
        assert r.status_code == 200, r.get_json()
        data: dict[str, Any] = r.get_json()
        return data

    def random_move(
        self, game: Game, views: list[dict[str, Any]], rng: random.Random
    ) -> tuple[int, str, TestResponse] | None:
        """Given every seat's view, let one seat that may act do a random legal thing;
        None when nobody may act."""
        ready = [v for v in views if v["action"] is not None]
        if not ready:
            return None
        v = rng.choice(ready)
        seat = v["seat"]
        if v["action"] == "pass":
            r = self.pass_cards(game, seat, rng.sample(v["legal"], 3))
        else:
            r = self.play(game, seat, rng.choice(v["legal"]))
        assert r.status_code == 200, r.get_json()
        return seat, v["action"], r

    def act_randomly(self, game: Game, rng: random.Random) -> tuple[int, str] | None:
        """Let one seat that may act do a random legal thing; None when nobody may act."""
        moved = self.random_move(game, [self.view(game, s) for s in range(game.players)], rng)
        return None if moved is None else moved[:2]

    def play_out(
        self, game: Game, rng: random.Random, max_commands: int = 5000
    ) -> Iterator[tuple[int, str]]:
        """Play random legal commands until the game is finished, yielding each one."""
        for _ in range(max_commands):
            done = self.act_randomly(game, rng)
            if done is None:
                return
            yield done
        raise AssertionError("the game did not finish")


def _headers(extra: dict[str, str]) -> dict[str, str]:
    """Keyword-friendly header names: If_Match -> If-Match."""
    return {name.replace("_", "-"): value for name, value in extra.items()}
