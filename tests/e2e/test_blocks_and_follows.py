"""Blocks and follows over HTTP (docs/api.md "Blocks and follows", issue 47): a player
blocks and follows others and lists them (paged, with an ETag; names revealed as they
leave); a block refuses invitations either way (403 ``blocked``); a follow lists the
friend's public games and whether they are online, and brings each public game they sit
at to the follower's stream (``event: follow``); an erasure removes the player's blocks
and follows, and everyone's of them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from uuid import uuid4

import pytest

from tests.support.api import Api, bearer
from tests.support.postgres import AppUnderTest, MakeApp
from tests.support.sse import SseStream, served


def new_player(api: Api, name: str) -> tuple[str, str]:
    """A player's (id, token)."""
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    return made["id"], made["token"]


def put(api: Api, path: str, token: str, key: str | None = None) -> Any:
    headers = {**bearer(token), "Idempotency-Key": key or str(uuid4())}
    return api.client.put(path, headers=headers)


def delete(api: Api, path: str, token: str) -> Any:
    return api.client.delete(path, headers={**bearer(token), "Idempotency-Key": str(uuid4())})


def listed(api: Api, path: str, token: str, **headers: str) -> Any:
    return api.client.get(path, headers={**bearer(token), **headers})


def test_a_player_blocks_lists_and_unblocks_players(api: Api) -> None:
    _, mio = new_player(api, "Mio")
    ren_id, _ = new_player(api, "Ren")
    aiko_id, _ = new_player(api, "Aiko")
    key = str(uuid4())
    assert put(api, f"/v1/me/blocks/{ren_id}", mio, key).status_code == 204
    assert put(api, f"/v1/me/blocks/{ren_id}", mio, key).status_code == 204  # replayed
    assert put(api, f"/v1/me/blocks/{aiko_id}", mio).status_code == 204
    r = listed(api, "/v1/me/blocks?limit=1", mio)
    assert r.status_code == 200, r.get_json()
    page = r.get_json()
    assert [(p["player_id"], p["name"]) for p in page["players"]] == [(ren_id, "Ren")]
    assert set(page["players"][0]) == {"player_id", "name", "since"}
    rest = listed(api, f"/v1/me/blocks?limit=1&cursor={page['next_cursor']}", mio).get_json()
    assert ([p["name"] for p in rest["players"]], rest["next_cursor"]) == (["Aiko"], None)
    tag = listed(api, "/v1/me/blocks", mio).headers["ETag"]
    assert listed(api, "/v1/me/blocks", mio, If_None_Match=tag).status_code == 304
    assert delete(api, f"/v1/me/blocks/{ren_id}", mio).status_code == 204
    after = listed(api, "/v1/me/blocks", mio, If_None_Match=tag)
    assert after.status_code == 200
    assert [p["name"] for p in after.get_json()["players"]] == ["Aiko"]


@pytest.mark.parametrize("kind", ["blocks", "follows"])
def test_what_cannot_be_blocked_or_followed_is_a_problem(api: Api, kind: str) -> None:
    mio_id, mio = new_player(api, "Mio")
    verb = kind[:-1]
    cases = [
        (put(api, f"/v1/me/{kind}/{uuid4()}", mio), 404, "player_not_found"),
        (put(api, f"/v1/me/{kind}/{mio_id}", mio), 422, f"cannot_{verb}_self"),
        (api.client.put(f"/v1/me/{kind}/{mio_id}"), 401, "missing_token"),
        (api.client.get(f"/v1/me/{kind}"), 401, "missing_token"),
    ]
    for r, status, code in cases:
        assert (r.status_code, r.get_json()["code"]) == (status, code)


def test_a_block_refuses_invitations_either_way(api: Api) -> None:
    mio_id, mio = new_player(api, "Mio")
    ren_id, ren = new_player(api, "Ren")
    aiko_id, _ = new_player(api, "Aiko")
    assert put(api, f"/v1/me/blocks/{ren_id}", mio).status_code == 204
    for token, invited in ((mio, ren_id), (ren, mio_id)):
        r = api.post("/v1/games", {"players": 3, "invite": [invited, aiko_id]}, **bearer(token))
        assert (r.status_code, r.get_json()["code"]) == (403, "blocked")
    r = api.post("/v1/games", {"players": 3, "invite": [aiko_id]}, **bearer(ren))
    assert r.status_code == 201, r.get_json()


def test_a_follow_lists_the_friends_public_games_and_whether_they_are_online(
    api: Api, sql: Any
) -> None:
    _, mio = new_player(api, "Mio")
    ren_id, ren = new_player(api, "Ren")
    assert put(api, f"/v1/me/follows/{ren_id}", mio).status_code == 204
    friends = listed(api, "/v1/me/follows", mio).get_json()
    assert friends == {
        "players": [
            {
                "player_id": ren_id,
                "name": "Ren",
                "since": friends["players"][0]["since"],
                "online": False,
                "playing": [],
            }
        ],
        "next_cursor": None,
    }
    tag = listed(api, "/v1/me/follows", mio).headers["ETag"]
    public = api.post("/v1/games", {"players": 3, "visibility": "public"}).get_json()["id"]
    private = api.create(3)["id"]
    for game_id in (public, private):
        r = api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(ren))
        assert r.status_code == 201, r.get_json()
    # Online: a stream of theirs was seen lately (the watchers' rows).
    sql(
        "INSERT INTO watchers (stream_id, player_id, game_id, seen_at) "
        "VALUES (:s, :p, NULL, now())",
        s=str(uuid4()),
        p=ren_id,
    )
    r = listed(api, "/v1/me/follows", mio, If_None_Match=tag)
    assert r.status_code == 200
    (friend,) = r.get_json()["players"]
    assert (friend["online"], friend["playing"]) == (True, [public])
    sql("UPDATE watchers SET seen_at = now() - interval '1 hour' WHERE player_id = :p", p=ren_id)
    (friend,) = listed(api, "/v1/me/follows", mio).get_json()["players"]
    assert friend["online"] is False
    assert delete(api, f"/v1/me/follows/{ren_id}", mio).status_code == 204
    assert listed(api, "/v1/me/follows", mio).get_json()["players"] == []


def test_an_erasure_removes_the_players_blocks_and_follows_and_others_of_them(
    api: Api, sql: Any
) -> None:
    _, mio = new_player(api, "Mio")
    ren_id, ren = new_player(api, "Ren")
    aiko_id, _ = new_player(api, "Aiko")
    for kind in ("blocks", "follows"):
        assert put(api, f"/v1/me/{kind}/{ren_id}", mio).status_code == 204
        assert put(api, f"/v1/me/{kind}/{aiko_id}", ren).status_code == 204
    assert api.client.delete("/v1/me", headers=bearer(ren)).status_code == 204
    for kind in ("blocks", "follows"):
        rows = sql(f"SELECT 1 FROM {kind} WHERE :p IN (player_id, other_id)", p=ren_id)
        assert rows == []
        assert listed(api, f"/v1/me/{kind}", mio).get_json()["players"] == []
        r = put(api, f"/v1/me/{kind}/{ren_id}", mio)  # an erased player is no more
        assert (r.status_code, r.get_json()["code"]) == (404, "player_not_found")


@pytest.fixture
def streaming(make_app: MakeApp) -> Iterator[tuple[AppUnderTest, str, Api]]:
    app = make_app(keepalive_seconds=1)
    with served(app.flask) as host:
        yield app, host, make_app().api()


def test_a_public_game_a_followed_player_joins_reaches_the_followers_stream(
    streaming: tuple[AppUnderTest, str, Api],
) -> None:
    app, host, other = streaming
    _, mio = new_player(other, "Mio")
    ren_id, ren = new_player(other, "Ren")
    assert put(other, f"/v1/me/follows/{ren_id}", mio).status_code == 204
    stream = SseStream(host, "/v1/me/stream", bearer(mio))
    try:
        assert stream.status == 200
        first = stream.next()
        assert first is not None and first.event == "inbox"
        assert app.container.listener.listening.wait(10)
        private = other.create(3)["id"]
        assert other.post(f"/v1/games/{private}/seats/0", {}, **bearer(ren)).status_code == 201
        made = other.post("/v1/games", {"players": 3, "visibility": "public"}, **bearer(ren))
        game_id = made.get_json()["id"]
        r = other.post(f"/v1/games/{game_id}/seats/2", {}, **bearer(ren))  # another process
        assert r.status_code == 201, r.get_json()
        deadline = time.monotonic() + 10
        while (message := stream.next(deadline)) is not None and message.event != "follow":
            pass
        assert message is not None, "the follow never came"
        assert message.data == {"game_id": game_id, "player_id": ren_id}
    finally:
        stream.close()
