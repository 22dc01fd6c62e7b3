"""Accounts over HTTP (docs/api.md "Accounts", issue 28): a player's tokens, listed and
revoked, and a rename. A revoked token opens nothing from its next request on, in every
process (each "process" here is an app on a container of its own, with its own token
cache), and the streams it opened end."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import pytest

from tests.support.api import OPERATOR, Api, bearer
from tests.support.postgres import AppUnderTest, MakeApp
from tests.support.sse import SseStream, served


def new_player(api: Api, name: str = "Mio") -> str:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    token: str = r.get_json()["token"]
    return token


def tokens(api: Api, token: str) -> list[dict[str, Any]]:
    r = api.get("/v1/me/tokens", **bearer(token))
    assert r.status_code == 200, r.get_json()
    listed: list[dict[str, Any]] = r.get_json()["tokens"]
    return listed


def test_a_players_tokens_say_how_and_when_each_was_made_and_used(api: Api) -> None:
    token = new_player(api)
    (only,) = tokens(api, token)
    assert only["via"] == "created" and only["current"] is True
    assert only["last_used_at"] is not None  # this very request used it
    r = api.get("/v1/me/tokens", **bearer(token))
    etag = r.headers["ETag"]
    again = api.get("/v1/me/tokens", If_None_Match=etag, **bearer(token))
    assert again.status_code == 304 and again.headers["ETag"] == etag
    other = new_player(api, "Bo")
    assert [t["id"] for t in tokens(api, other)] != [only["id"]]
    r = api.get("/v1/me/tokens?limit=0", **bearer(token))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_request")
    r = api.get("/v1/me/tokens?cursor=bm90LWEtY3Vyc29y", **bearer(token))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_cursor")
    assert api.get("/v1/me/tokens").status_code == 401


def test_a_renamed_player_keeps_the_names_its_games_were_played_under(api: Api) -> None:
    token = new_player(api, "Mio")
    game_id = api.create(3)["id"]
    r = api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(token))
    assert r.status_code == 201, r.get_json()
    r = api.client.patch("/v1/me", json={"name": "Mio Two"}, headers=bearer(token))
    assert r.status_code == 200 and r.get_json()["name"] == "Mio Two"
    assert api.get("/v1/me", **bearer(token)).get_json()["name"] == "Mio Two"
    assert api.public(game_id)["seats"][0]["name"] == "Mio"
    for bad in ["", "   ", "x" * 41, "tab\there"]:
        r = api.client.patch("/v1/me", json={"name": bad}, headers=bearer(token))
        assert (r.status_code, r.get_json()["code"]) == (422, "invalid_request"), bad
    assert api.client.patch("/v1/me", json={"name": "Anyone"}).status_code == 401


@pytest.fixture
def two(make_app: MakeApp) -> Iterator[tuple[AppUnderTest, str, Api, Api]]:
    """Two processes, each with its own token cache; the first also serves streams on a
    socket (its host)."""
    first, second = make_app(keepalive_seconds=1), make_app()
    with served(first.flask) as host:
        yield first, host, first.api(), second.api()


def test_a_revoked_token_is_refused_on_its_next_request_in_every_process(
    two: tuple[AppUnderTest, str, Api, Api],
) -> None:
    _, _, here, there = two
    token = new_player(here)
    game_id = here.create(3)["id"]
    assert here.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(token)).status_code == 201
    # Both processes know the token (each has it in its cache).
    for api in (here, there):
        assert api.get("/v1/me", **bearer(token)).status_code == 200
        assert api.get(f"/v1/games/{game_id}/view", **bearer(token)).status_code == 200
    (mine,) = tokens(here, token)
    key = {"Idempotency-Key": str(uuid4())}
    gone = f"/v1/me/tokens/{mine['id']}"
    assert here.client.delete(gone, headers={**bearer(token), **key}).status_code == 204
    for api in (there, here):
        for path in ("/v1/me", "/v1/me/games", "/v1/me/tokens", f"/v1/games/{game_id}/view"):
            r = api.get(path, **bearer(token))
            assert (r.status_code, r.get_json()["code"]) == (401, "invalid_token"), path
        r = api.client.patch("/v1/me", json={"name": "Thief"}, headers=bearer(token))
        assert r.status_code == 401
    # The same revocation sent again: the token it was sent with opens nothing now.
    assert here.client.delete(gone, headers={**bearer(token), **key}).status_code == 401


def test_a_token_revokes_only_its_players_tokens(api: Api) -> None:
    mio, bo = new_player(api), new_player(api, "Bo")
    (bos,) = tokens(api, bo)
    r = api.client.delete(f"/v1/me/tokens/{bos['id']}", headers=bearer(mio))
    assert (r.status_code, r.get_json()["code"]) == (404, "token_not_found")
    r = api.client.delete(f"/v1/me/tokens/{uuid4()}", headers=bearer(mio))
    assert (r.status_code, r.get_json()["code"]) == (404, "token_not_found")
    assert api.get("/v1/me", **bearer(bo)).status_code == 200
    assert api.client.delete(f"/v1/me/tokens/{bos['id']}").status_code == 401


def test_the_streams_a_revoked_token_opened_end(
    two: tuple[AppUnderTest, str, Api, Api],
) -> None:
    streaming, host, _, there = two
    token = new_player(there)
    game_id = there.create(3)["id"]
    assert there.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(token)).status_code == 201
    (mine,) = tokens(there, token)
    streams = [
        SseStream(host, "/v1/me/stream", bearer(token)),
        SseStream(host, f"/v1/games/{game_id}/stream", bearer(token)),
    ]
    try:
        for stream in streams:
            assert stream.status == 200
            assert stream.next() is not None  # the inbox, the seat's view
        assert streaming.container.listener.listening.wait(10)
        r = there.client.delete(f"/v1/me/tokens/{mine['id']}", headers=bearer(token))
        assert r.status_code == 204
        deadline = time.monotonic() + 10
        for stream in streams:
            # Keep-alives come every second: the stream must end, not merely go quiet.
            while (message := stream.next(deadline)) is not None:
                assert message.event != "view", "a revoked token was sent a view"
        reopened = SseStream(host, "/v1/me/stream", bearer(token))
        assert reopened.status == 401
        reopened.close()
    finally:
        for stream in streams:
            stream.close()


# --- suspensions --------------------------------------------------------------------------


def test_a_suspended_player_can_do_nothing_until_it_is_lifted(
    two: tuple[AppUnderTest, str, Api, Api],
) -> None:
    streaming, host, here, there = two
    token = new_player(here, "Troll")
    me = here.get("/v1/me", **bearer(token)).get_json()
    game_id = here.create(3)["id"]
    assert here.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(token)).status_code == 201
    stream = SseStream(host, "/v1/me/stream", bearer(token))
    try:
        assert stream.status == 200 and stream.next() is not None
        assert streaming.container.listener.listening.wait(10)
        r = there.post(f"/v1/players/{me['id']}/suspend", {"reason": "abuse in chat"}, **OPERATOR)
        assert r.status_code == 200, r.get_json()
        assert r.get_json() == {"id": me["id"], "name": "Troll", "suspended": True}
        while stream.next(time.monotonic() + 10) is not None:  # the stream ends
            pass
    finally:
        stream.close()
    for api in (here, there):  # every process, whatever it had cached
        for path in ("/v1/me", "/v1/me/games", "/v1/me/tokens", f"/v1/games/{game_id}/view"):
            r = api.get(path, **bearer(token))
            assert (r.status_code, r.get_json()["code"]) == (403, "player_suspended"), path
        r = api.client.post("/v1/me/link-codes", headers=bearer(token))
        assert (r.status_code, r.get_json()["code"]) == (403, "player_suspended")
    # Lifted: the same tokens work again.
    r = there.post(f"/v1/players/{me['id']}/unsuspend", None, **OPERATOR)
    assert r.status_code == 200 and r.get_json()["suspended"] is False
    assert here.get("/v1/me", **bearer(token)).status_code == 200
    entries = here.get(f"/v1/players/{me['id']}/audit", **OPERATOR).get_json()["entries"]
    assert [(e["action"], e["actor"], e["reason"]) for e in entries] == [
        ("suspended", {"kind": "operator", "id": "operator"}, "abuse in chat"),
        ("unsuspended", {"kind": "operator", "id": "operator"}, None),
    ]
    assert all(e["request_id"] for e in entries)


def test_suspensions_are_for_operators_and_name_a_player(api: Api) -> None:
    token = new_player(api)
    me = api.get("/v1/me", **bearer(token)).get_json()
    r = api.post(f"/v1/players/{me['id']}/suspend", {"reason": "x"}, **bearer(token))
    assert (r.status_code, r.get_json()["code"]) == (403, "forbidden")
    r = api.post(f"/v1/players/{uuid4()}/suspend", {"reason": "x"}, **OPERATOR)
    assert (r.status_code, r.get_json()["code"]) == (404, "player_not_found")
    r = api.post(f"/v1/players/{me['id']}/suspend", {}, **OPERATOR)
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_request")
    assert api.get(f"/v1/players/{me['id']}/audit", **bearer(token)).status_code == 403
    r = api.client.patch("/v1/me", json={"name": "Mio Two"}, headers=bearer(token))
    entries = api.get(f"/v1/players/{me['id']}/audit", **OPERATOR).get_json()["entries"]
    assert [(e["action"], e["actor"]["kind"]) for e in entries] == [("renamed", "player")]
