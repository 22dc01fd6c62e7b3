"""The hot path's cost, counted and held to a checked-in budget (issue 42): what one
request of each kind that dominates the load costs, in numbers that do not depend on
the machine or on what else it is doing, so that the cost cannot creep back unseen
with the next capability. Never a clock: speed itself is measured by bench.http_bench.

Each request is made through the WSGI app (the Flask test client, so gunicorn is not
counted) against the suite's PostgreSQL, on a process that has already served the same
kind of request (warm caches: the game's state, the token, the names' keys), at the
same position of a game dealt in order. Counted:

- ``round_trips``: calls to PostgreSQL (service/adapters/postgres/session.py ``_run``);
- ``statements``: the statements they carry;
- ``calls``: Python function calls, as cProfile counts them (every call of Python and
  built-in functions in the request, ours and the libraries').

hot_path_budget.toml holds each figure's ceiling. A change that needs more says so by
raising the ceiling in the same commit, with the reason in its message; a change that
needs less lowers it (the test prints the figures, and says when a ceiling is loose).
"""

from __future__ import annotations

import cProfile
import pstats
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug.test import TestResponse

from service.adapters.postgres.session import Session, Statement
from tests.support.api import Api, bearer
from tests.support.deals import PASSES_4P, ordered_deal

BUDGET = tomllib.loads((Path(__file__).with_name("hot_path_budget.toml")).read_text())
LOOSE = 0.05
"""A ceiling more than this far above its figure is reported as loose (lower it)."""


@dataclass
class Cost:
    round_trips: int = 0
    statements: int = 0
    calls: int = 0

    def figures(self) -> dict[str, int]:
        return {"round_trips": self.round_trips, "statements": self.statements, "calls": self.calls}


@pytest.fixture
def counting(
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[Callable[[], TestResponse]], Cost]:
    """Counts what a request costs: ``measure(request)`` makes it and returns its cost."""
    current: list[Cost] = []
    run = Session._run

    def counted(self: Session, statements: list[Statement], **how: Any) -> Any:
        if current:
            current[-1].round_trips += 1
            current[-1].statements += len(statements)
        return run(self, statements, **how)

    monkeypatch.setattr(Session, "_run", counted)

    def measure(request: Callable[[], TestResponse]) -> Cost:
        cost = Cost()
        current.append(cost)
        profile = cProfile.Profile()
        try:
            profile.enable()
            response = request()
            profile.disable()
        finally:
            current.pop()
        assert response.status_code in (200, 201), response.get_json()
        cost.calls = pstats.Stats(profile).total_calls  # type: ignore[attr-defined]
        return cost

    return measure


@dataclass
class Table:
    """A four-player game of four players (their names sealed), dealt in order."""

    api: Api
    game_id: str
    tokens: list[str]

    def headers(self, seat: int) -> dict[str, str]:
        return bearer(self.tokens[seat])

    def play(self, seat: int, card: str) -> TestResponse:
        return self.api.client.post(
            f"/v1/games/{self.game_id}/play", json={"card": card}, headers=self.headers(seat)
        )

    def pass_cards(self, seat: int) -> TestResponse:
        return self.api.client.post(
            f"/v1/games/{self.game_id}/pass",
            json={"cards": PASSES_4P[seat]},
            headers=self.headers(seat),
        )

    def view(self, seat: int) -> TestResponse:
        return self.api.client.get(f"/v1/games/{self.game_id}/view", headers=self.headers(seat))

    def public(self) -> TestResponse:
        return self.api.client.get(f"/v1/games/{self.game_id}")

    def events(self, seat: int, after: int) -> TestResponse:
        return self.api.client.get(
            f"/v1/games/{self.game_id}/events?after={after}", headers=self.headers(seat)
        )

    def chat(self, seat: int | None, token: str | None = None) -> TestResponse:
        headers = bearer(token) if seat is None and token else self.headers(seat or 0)
        return self.api.client.post(
            f"/v1/games/{self.game_id}/chat", json={"text": "well played"}, headers=headers
        )

    def inbox(self, seat: int) -> TestResponse:
        return self.api.client.get("/v1/me/games", headers=self.headers(seat))

    def inbox_game(self, seat: int) -> TestResponse:
        """The player's entry of this game alone: what a game page asks first (issue 48)."""
        query = f"status=all&game={self.game_id}"
        return self.api.client.get(f"/v1/me/games?{query}", headers=self.headers(seat))


def new_table(api: Api) -> Table:
    tokens = []
    for seat in range(4):
        r = api.post("/v1/players", {"name": f"Player {seat}"})
        assert r.status_code == 201, r.get_json()
        tokens.append(r.get_json()["token"])
    game = api.create(4, operator=True, deals=[ordered_deal(4)])
    for seat, token in enumerate(tokens):
        r = api.client.post(
            f"/v1/games/{game['id']}/seats/{seat}",
            json={"name": f"Player {seat}"},
            headers=bearer(token),
        )
        assert r.status_code == 201, r.get_json()
    return Table(api, game["id"], tokens)


# The first trick after PASSES_4P (tests/support/deals.py): seat 0 leads a green card,
# which nobody else holds, so each of the others may play any card.
FIRST_TRICK = [(0, "green-2"), (1, "pink-3"), (2, "black-5"), (3, "blue-7")]


def costs(table: Table, measure: Callable[[Callable[[], TestResponse]], Cost]) -> dict[str, Cost]:
    """Each kind of request at the same position of ``table``'s game, once each seat's
    token and its players' names have been seen (a view each)."""
    for seat in range(4):
        assert table.view(seat).status_code == 200
    found = {"pass": measure(lambda: table.pass_cards(0))}
    for seat in (1, 2, 3):
        assert table.pass_cards(seat).status_code == 200
    found["view"] = measure(lambda: table.view(0))
    found["public_view"] = measure(table.public)
    found["events_after"] = measure(lambda: table.events(0, 8))
    found["inbox"] = measure(lambda: table.inbox(0))
    found["inbox_game"] = measure(lambda: table.inbox_game(0))
    (first, *middle, last) = FIRST_TRICK
    assert table.play(*first).status_code == 200
    found["play"] = measure(lambda: table.play(*middle[0]))
    for seat, card in middle[1:]:
        assert table.play(seat, card).status_code == 200
    found["play_ending_a_trick"] = measure(lambda: table.play(*last))
    # Table talk (issue 47): a seat's message, and a spectator's (a player with no seat),
    # each once the same kind of message was posted before.
    assert table.chat(1).status_code == 201
    found["chat"] = measure(lambda: table.chat(2))
    watcher = table.api.post("/v1/players", {"name": "Watcher"}).get_json()["token"]
    assert table.chat(None, watcher).status_code == 201
    found["spectator_chat"] = measure(lambda: table.chat(None, watcher))
    return found


def test_each_hot_request_costs_no_more_than_its_budget(
    api: Api, counting: Callable[[Callable[[], TestResponse]], Cost]
) -> None:
    costs(new_table(api), counting)  # warms the process: caches, keys, the first imports
    measured = costs(new_table(api), counting)

    over, loose = [], []
    for kind, cost in measured.items():
        for figure, value in cost.figures().items():
            ceiling = BUDGET[kind][figure]
            print(f"{kind:20} {figure:12} {value:6} (ceiling {ceiling})")
            if value > ceiling:
                over.append(f"{kind} {figure}: {value} > {ceiling}")
            elif value < ceiling * (1 - LOOSE):
                loose.append(f"{kind} {figure}: {value}, ceiling {ceiling}")
    if loose:
        print("loose ceilings (lower them in hot_path_budget.toml):", *loose, sep="\n  ")
    assert not over, (
        "past the hot path's budget (tests/integration/hot_path_budget.toml):\n" + "\n".join(over)
    )
