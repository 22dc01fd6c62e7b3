"""Caching and security headers (issue 14, part 2): nothing a token opens may be kept by
a shared cache or a browser's history; public views are revalidated with their ETag."""

from __future__ import annotations

import pytest
from werkzeug.test import TestResponse

from tests.support.api import OPERATOR, Api, bearer


def check(r: TestResponse, cache_control: str) -> None:
    assert r.status_code < 500, r.get_json()
    assert r.headers["Cache-Control"] == cache_control
    assert "Authorization" in r.headers["Vary"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]


def test_what_a_token_opens_is_private_and_never_stored(api: Api) -> None:
    game = api.start(4)
    seat = game.seat_headers(0)
    for path, headers in [
        (f"/v1/games/{game.id}/view", seat),
        (f"/v1/games/{game.id}/events", seat),
        (f"/v1/games/{game.id}/state", OPERATOR),
        (f"/v1/games/{game.id}/audit", OPERATOR),
        ("/v1/games", OPERATOR),
    ]:
        check(api.get(path, **headers), "private, no-store")
    hand = api.view(game, 0)["legal"][:3]
    check(api.pass_cards(game, 0, hand), "private, no-store")  # a command answers a view
    player = api.post("/v1/players", {"name": "Mio"}).get_json()["token"]
    check(api.get("/v1/me/games", **bearer(player)), "private, no-store")
    check(api.get("/v1/me", **bearer(player)), "private, no-store")


def test_refusals_are_not_stored_either(api: Api) -> None:
    game = api.start(3)
    check(api.get(f"/v1/games/{game.id}/view"), "private, no-store")  # 401


@pytest.mark.parametrize("path", ["/healthz", "/v1/openapi.json"])
def test_public_documents_are_revalidated(api: Api, path: str) -> None:
    check(api.get(path), "no-cache")


def test_the_public_view_is_revalidated_with_its_etag(api: Api) -> None:
    game = api.start(3)
    r = api.get(f"/v1/games/{game.id}")
    check(r, "no-cache")
    again = api.get(f"/v1/games/{game.id}", **{"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
    assert again.headers["Cache-Control"] == "no-cache"


def test_streams_and_long_polls_are_private_and_never_stored(api: Api) -> None:
    game = api.start(3)
    player = api.post("/v1/players", {"name": "Mio"}).get_json()["token"]
    streams = [
        (f"/v1/games/{game.id}/stream", game.seat_headers(0)),  # a seat's hand
        (f"/v1/games/{game.id}/stream", {}),  # the public's: the same headers
        ("/v1/me/stream", bearer(player)),
    ]
    for path, headers in streams:
        r = api.client.get(path, headers=headers, buffered=False)
        try:
            assert r.mimetype == "text/event-stream"
            check(r, "private, no-store")
        finally:
            r.close()  # the stream ends, its place is given back
    version = api.public(game.id)["version"]
    waited = api.get(f"/v1/games/{game.id}/events?after={version}&wait=1", **game.seat_headers(0))
    check(waited, "private, no-store")
    inbox = api.get("/v1/me/games", **bearer(player))
    unchanged = api.get(
        "/v1/me/games?wait=1", **bearer(player), If_None_Match=inbox.headers["ETag"]
    )
    assert unchanged.status_code == 304
    check(unchanged, "private, no-store")
