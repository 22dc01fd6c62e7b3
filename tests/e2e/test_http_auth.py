"""Who may call which endpoint (docs/api.md), as one table: every endpoint that needs a token,
crossed with every kind of caller.

A caller that may not call an endpoint gets a problem and changes nothing: 401
`missing_token` without a token, 401 `invalid_token` for a token that matches nothing or an
Authorization header that is no bearer token (both with a `WWW-Authenticate: Bearer`
challenge), 403 `forbidden` for a valid token that does not allow this. A caller that may
call it gets its answer. Anyone may create a game, but only operators may give its `seed`
or `deals`: there a caller without a token is forbidden (403), not unauthenticated.
"""

from __future__ import annotations

import enum
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from werkzeug.test import TestResponse

from tests.support.api import OPERATOR, Api, Game
from tests.support.deals import (
    PASSES_4P,
    assert_problem,
    ordered_deal,
    start_ordered,
    start_playing,
    version,
)

SEAT = 2
"""The seat of this game that calls (not seat 0, so a view of the wrong seat shows)."""


class Kind(enum.Enum):
    NO_TOKEN = "no token"
    BAD_TOKEN = "a token that matches nothing"
    OTHER_SEAT = "a seat of another game"
    SEAT = "a seat of this game"
    OPERATOR = "the operator"


@dataclass(frozen=True)
class Caller:
    name: str
    kind: Kind
    headers: Callable[[Api, Game], dict[str, str]]


def _authorization(value: str) -> Callable[[Api, Game], dict[str, str]]:
    return lambda api, game: {"Authorization": value}


CALLERS = [
    Caller("no-token", Kind.NO_TOKEN, lambda api, game: {}),
    Caller("unknown-token", Kind.BAD_TOKEN, _authorization("Bearer forged")),
    # Authorization headers that carry no usable bearer token: invalid, not missing.
    Caller("empty-bearer", Kind.BAD_TOKEN, _authorization("Bearer ")),
    Caller("basic-scheme", Kind.BAD_TOKEN, _authorization("Basic abc")),
    Caller("token-scheme", Kind.BAD_TOKEN, _authorization("Token xyz")),
    Caller("two-words", Kind.BAD_TOKEN, _authorization("Bearer a b")),
    Caller("other-game-seat", Kind.OTHER_SEAT, lambda api, game: api.start(3).seat_headers(0)),
    Caller("seat", Kind.SEAT, lambda api, game: game.seat_headers(SEAT)),
    # The auth scheme is case-insensitive (RFC 9110 11.1).
    Caller(
        "seat-lowercase-scheme",
        Kind.SEAT,
        lambda api, game: {"Authorization": f"bearer {game.tokens[SEAT]}"},
    ),
    Caller("operator", Kind.OPERATOR, lambda api, game: OPERATOR),
]

NO_BEARER = frozenset({"empty-bearer", "basic-scheme", "token-scheme"})
"""Callers whose Authorization header holds no bearer token at all: told how to send one."""

OPERATOR_ONLY = frozenset({Kind.OPERATOR})
SEAT_ONLY = frozenset({Kind.SEAT})
SEAT_OR_OPERATOR = frozenset({Kind.SEAT, Kind.OPERATOR})


def _seat_to_play(api: Api) -> Game:
    """A game in its first trick where it is ``SEAT``'s turn (it must follow purple)."""
    game = start_playing(api)
    for seat, card in [(0, "purple-2"), (1, "purple-8")]:
        r = api.play(game, seat, card)
        assert r.status_code == 200, r.get_json()
    return game


@dataclass(frozen=True)
class Endpoint:
    name: str
    method: str
    path: str  # "{game}" stands for this game's id
    allowed: frozenset[Kind]
    body: dict[str, Any] | None = None
    start: Callable[[Api], Game] = start_ordered
    ok: int = 200  # the status of an allowed caller
    seat_view: bool = False  # the answer is the calling seat's view
    anyone: bool = False  # open to callers without a token (what is reserved is the body)

    def call(self, api: Api, game: Game, headers: dict[str, str]) -> TestResponse:
        path = self.path.format(game=game.id)
        if self.method == "GET":
            return api.client.get(path, headers=headers)
        return api.client.post(path, json=self.body, headers=headers)

    def refusal(self, kind: Kind) -> tuple[int, str]:
        """The status and problem code a caller of ``kind`` is refused with."""
        if kind is Kind.NO_TOKEN and not self.anyone:
            return 401, "missing_token"
        if kind is Kind.BAD_TOKEN:
            return 401, "invalid_token"
        return 403, "forbidden"


def _create_with(name: str, **extra: Any) -> Endpoint:
    """Anyone may create a game, but only operators may give its seed or deals."""
    body = {"players": 4, **extra}
    return Endpoint(
        f"create-with-{name}", "POST", "/v1/games", OPERATOR_ONLY, body, ok=201, anyone=True
    )


ENDPOINTS = [
    Endpoint("list", "GET", "/v1/games", OPERATOR_ONLY),
    Endpoint("state", "GET", "/v1/games/{game}/state", OPERATOR_ONLY),
    Endpoint("audit", "GET", "/v1/games/{game}/audit", OPERATOR_ONLY),
    Endpoint("view", "GET", "/v1/games/{game}/view", SEAT_ONLY, seat_view=True),
    Endpoint(
        "pass",
        "POST",
        "/v1/games/{game}/pass",
        SEAT_ONLY,
        {"cards": PASSES_4P[SEAT]},
        seat_view=True,
    ),
    Endpoint(
        "play",
        "POST",
        "/v1/games/{game}/play",
        SEAT_ONLY,
        {"card": "purple-4"},
        start=_seat_to_play,
        seat_view=True,
    ),
    Endpoint("events", "GET", "/v1/games/{game}/events", SEAT_OR_OPERATOR),
    _create_with("seed", seed=7),
    _create_with("deals", deals=[ordered_deal(4)]),
    _create_with("seed-and-deals", seed=7, deals=[ordered_deal(4)]),
]


@pytest.mark.parametrize("caller", CALLERS, ids=[c.name for c in CALLERS])
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=[e.name for e in ENDPOINTS])
def test_who_may_call_each_endpoint(api: Api, endpoint: Endpoint, caller: Caller) -> None:
    game = endpoint.start(api)
    headers = caller.headers(api, game)
    before = _traces(api, game)
    r = endpoint.call(api, game, headers)
    if caller.kind in endpoint.allowed:
        assert r.status_code == endpoint.ok, r.get_json()
        if endpoint.seat_view:
            assert r.get_json()["seat"] == SEAT
        return
    status, code = endpoint.refusal(caller.kind)
    body = assert_problem(r, status, code)
    if status == 401:
        assert r.headers.get("WWW-Authenticate", "").lower().startswith("bearer")
    if code == "invalid_token":
        hint = "use Authorization: Bearer <token>"
        assert (hint in body["detail"]) == (caller.name in NO_BEARER), body["detail"]
    assert _traces(api, game) == before  # a refused command changed nothing


def _traces(api: Api, game: Game) -> tuple[int, str]:
    """What a refused call leaves as it was: this game's version and the newest game."""
    newest: str = api.get("/v1/games?limit=1", **OPERATOR).get_json()["games"][0]["id"]
    return version(api, game), newest


TOKEN_GETS = [e for e in ENDPOINTS if e.method == "GET" and "{game}" in e.path]


@pytest.mark.parametrize("endpoint", TOKEN_GETS, ids=[e.name for e in TOKEN_GETS])
def test_if_none_match_does_not_skip_authentication(api: Api, endpoint: Endpoint) -> None:
    game = start_ordered(api)
    etag = api.get(f"/v1/games/{game.id}").headers["ETag"]
    r = endpoint.call(api, game, {"If-None-Match": etag})
    assert_problem(r, 401, "missing_token")


OPERATOR_GAME_READS = [e for e in TOKEN_GETS if Kind.OPERATOR in e.allowed]


@pytest.mark.parametrize("endpoint", OPERATOR_GAME_READS, ids=[e.name for e in OPERATOR_GAME_READS])
def test_the_operator_asking_about_an_unknown_game_gets_404(api: Api, endpoint: Endpoint) -> None:
    unknown = Game(str(uuid.uuid4()), 4)
    assert_problem(endpoint.call(api, unknown, OPERATOR), 404)
