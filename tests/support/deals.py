"""Deterministic deals and small table helpers for the HTTP contract tests.

``ordered_deal`` cuts the deck in its canonical order (green-1 … blue-13): seat 0 gets
the first cards, seat 1 the next ones, and so on; the last card is the trump card.
With four players that gives (standard deck, trump blue-13, so blue is trump):

    seat 0: green-1 … green-7, purple-2 … purple-6
    seat 1: purple-7, purple-8, pink-3 … pink-9, yellow-4, yellow-5, yellow-6
    seat 2: yellow-7 … yellow-10, black-5 … black-11, red-6
    seat 3: red-7 … red-12, blue-7 … blue-12

``PASSES_4P`` are passes to the partner (R-3.2) after which the hands are
``HANDS_AFTER_PASS_4P``; seat 0 holds the A (green-1) and leads (R-3.3).
"""

from __future__ import annotations

from typing import Any

from werkzeug.test import TestResponse

from service.rules import SEVEN_FOLLOWERS_DECK, STANDARD_DECK
from service.web.problems.catalogue import PROBLEM_TYPES
from tests.support.api import Api, Game

PROBLEM_JSON = "application/problem+json"


def ordered_deal(players: int = 4, *, seven_followers: bool = False) -> dict[str, Any]:
    """One round's deal (docs/api.md `deals` entry) with the deck cut in canonical order."""
    deck = [c.id for c in (SEVEN_FOLLOWERS_DECK if seven_followers else STANDARD_DECK)]
    size = len(deck) // players
    hands = [deck[i * size : (i + 1) * size] for i in range(players)]
    trump = None if seven_followers else deck[players * size]
    return {"hands": hands, "trump": trump}


PASSES_4P: dict[int, list[str]] = {
    0: ["purple-4", "purple-5", "purple-6"],
    1: ["yellow-4", "yellow-5", "yellow-6"],
    2: ["red-6", "black-10", "black-11"],
    3: ["red-10", "red-11", "red-12"],
}

HANDS_AFTER_PASS_4P: list[set[str]] = [
    {f"green-{r}" for r in range(1, 8)} | {"purple-2", "purple-3", "black-10", "black-11", "red-6"},
    {"purple-7", "purple-8"} | {f"pink-{r}" for r in range(3, 10)} | {"red-10", "red-11", "red-12"},
    {f"yellow-{r}" for r in range(7, 11)}
    | {f"black-{r}" for r in range(5, 10)}
    | {"purple-4", "purple-5", "purple-6"},
    {"red-7", "red-8", "red-9"}
    | {f"blue-{r}" for r in range(7, 13)}
    | {"yellow-4", "yellow-5", "yellow-6"},
]


def start_ordered(api: Api, players: int = 4, **body: Any) -> Game:
    """A game (created by the operator) dealt with ``ordered_deal``, every seat joined."""
    return api.start(players, deals=[ordered_deal(players)], **body)


def start_playing(api: Api) -> Game:
    """A four-player game dealt in order, after the passes of ``PASSES_4P``: seat 0 leads."""
    game = start_ordered(api)
    for seat, cards in PASSES_4P.items():
        r = api.pass_cards(game, seat, cards)
        assert r.status_code == 200, r.get_json()
    return game


def version(api: Api, game: Game) -> int:
    found: int = api.public(game.id)["version"]
    return found


def event_count(api: Api, game: Game) -> int:
    return len(api.feed(game, None))


def assert_problem(r: TestResponse, status: int, code: str | None = None) -> dict[str, Any]:
    """An RFC 9457 problem details response with a stable ``code`` (docs/api.md conventions)."""
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True))
    assert r.mimetype == PROBLEM_JSON, r.content_type
    body: dict[str, Any] = r.get_json(force=True)
    for name in ("type", "title", "detail", "code"):
        assert isinstance(body.get(name), str), (name, body)
        assert body[name], (name, body)
    assert body["status"] == status, body
    if code is not None:
        assert body["code"] == code, body
    # Its type is the code's page, and its title the code's own (GET /problems/<code>).
    assert body["type"] == f"/problems/{body['code']}", body
    assert body["title"] == PROBLEM_TYPES[body["code"]].title, body
    return body
