"""Invitations over HTTP (docs/api.md "Invitations", issue 29): a player creates a game
keeping seats for other players; each invited player finds it in their inbox and on
their stream, alone may join their seat, or declines it and frees it for anyone."""

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


def inviting(api: Api, token: str, invite: list[Any], players: int = 3) -> dict[str, Any]:
    r = api.post("/v1/games", {"players": players, "invite": invite}, **bearer(token))
    assert r.status_code == 201, r.get_json()
    view: dict[str, Any] = r.get_json()
    return view


def inbox(api: Api, token: str) -> list[dict[str, Any]]:
    r = api.get("/v1/me/games?status=all", **bearer(token))
    assert r.status_code == 200, r.get_json()
    games: list[dict[str, Any]] = r.get_json()["games"]
    return games


def test_an_invited_player_finds_the_game_to_join_and_alone_may_take_the_seat(
    api: Api,
) -> None:
    _, mio = new_player(api, "Mio")
    ren_id, ren = new_player(api, "Ren")
    aiko_id, aiko = new_player(api, "Aiko")
    view = inviting(api, mio, [ren_id, {"player_id": aiko_id, "seat": 0}])
    game_id = view["id"]
    assert [s["reserved_for"] for s in view["seats"]] == [aiko_id, ren_id, None]
    (entry,) = inbox(api, ren)
    assert (entry["game_id"], entry["seat"], entry["status"]) == (game_id, 1, "waiting")
    assert (entry["invited"], entry["my_turn"], entry["action"]) == (True, True, "join")
    assert inbox(api, mio) == []

    for headers in ({}, bearer(mio)):  # anyone else: 403 seat_reserved
        r = api.post(f"/v1/games/{game_id}/seats/1", {"name": "Someone"}, **headers)
        assert (r.status_code, r.get_json()["code"]) == (403, "seat_reserved")
    r = api.post(f"/v1/games/{game_id}/seats/1", {}, **bearer(ren))
    assert r.status_code == 201, r.get_json()
    (entry,) = inbox(api, ren)
    assert (entry["invited"], entry["my_turn"], entry["action"]) == (False, False, None)
    assert api.public(game_id)["seats"][1]["reserved_for"] is None

    assert api.post(f"/v1/games/{game_id}/seats/2", {}, **bearer(mio)).status_code == 201
    assert api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(aiko)).status_code == 201
    assert api.public(game_id)["status"] == "passing"  # every seat joined: dealt


def test_a_declined_seat_is_free_for_anyone(api: Api) -> None:
    _, mio = new_player(api, "Mio")
    ren_id, ren = new_player(api, "Ren")
    game_id = inviting(api, mio, [ren_id])["id"]
    r = api.post(f"/v1/games/{game_id}/seats/1/decline", **bearer(mio))
    assert (r.status_code, r.get_json()["code"]) == (403, "seat_reserved")
    r = api.post(f"/v1/games/{game_id}/seats/2/decline", **bearer(ren))
    assert (r.status_code, r.get_json()["code"]) == (409, "seat_not_reserved")
    r = api.post(f"/v1/games/{game_id}/seats/1/decline")
    assert (r.status_code, r.get_json()["code"]) == (401, "missing_token")

    r = api.post(f"/v1/games/{game_id}/seats/1/decline", **bearer(ren))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["seats"][1]["reserved_for"] is None
    assert inbox(api, ren) == []
    api.join(game_id, 1, "Someone")
    r = api.post(f"/v1/games/{game_id}/seats/1/decline", **bearer(ren))
    assert (r.status_code, r.get_json()["code"]) == (409, "seat_not_reserved")


@pytest.mark.parametrize(
    ("invite", "status", "code"),
    [
        ([str(uuid4())], 422, "unknown_player"),
        (["not-a-uuid"], 422, "invalid_request"),
        ([{"seat": 1}], 422, "invalid_request"),
        ([{"player_id": "ME", "seat": 3}], 422, "unknown_seat"),
        (["ME", "ME"], 422, "invited_twice"),
        ([], 422, "invalid_request"),
    ],
)
def test_invitations_that_cannot_be_kept_are_refused(
    api: Api, invite: list[Any], status: int, code: str
) -> None:
    me, token = new_player(api, "Mio")

    def mine(item: Any) -> Any:  # "ME": the player making the game
        if isinstance(item, dict) and "player_id" in item:
            return {**item, "player_id": me}
        return me if item == "ME" else item

    invite = [mine(i) for i in invite]
    r = api.post("/v1/games", {"players": 3, "invite": invite}, **bearer(token))
    assert (r.status_code, r.get_json()["code"]) == (status, code), r.get_json()


def test_only_a_player_invites(api: Api) -> None:
    ren_id, _ = new_player(api, "Ren")
    r = api.post("/v1/games", {"players": 3, "invite": [ren_id]})
    assert (r.status_code, r.get_json()["code"]) == (401, "missing_token")


@pytest.fixture
def streaming(make_app: MakeApp) -> Iterator[tuple[AppUnderTest, str, Api]]:
    app = make_app(keepalive_seconds=1)
    with served(app.flask) as host:
        yield app, host, make_app().api()


def test_the_invited_players_stream_brings_the_invitation(
    streaming: tuple[AppUnderTest, str, Api],
) -> None:
    app, host, other = streaming
    _, mio = new_player(other, "Mio")
    ren_id, ren = new_player(other, "Ren")
    stream = SseStream(host, "/v1/me/stream", bearer(ren))
    try:
        assert stream.status == 200
        first = stream.next()
        assert first is not None and first.event == "inbox"
        assert app.container.listener.listening.wait(10)
        game_id = inviting(other, mio, [ren_id])["id"]  # another process
        deadline = time.monotonic() + 10
        while (message := stream.next(deadline)) is not None and message.event != "game":
            pass
        assert message is not None, "the invitation never came"
        assert (message.data["game_id"], message.data["invited"]) == (game_id, True)
    finally:
        stream.close()


# --- rematch ------------------------------------------------------------------------------


def test_a_finished_game_is_played_again_once(api: Api) -> None:
    mio_id, mio = new_player(api, "Mio")
    _, ren = new_player(api, "Ren")
    game_id = api.create(3, visibility="public", clock={"turn_seconds": 60})["id"]
    seat_tokens = []
    for seat, token in enumerate((mio, ren)):
        r = api.post(f"/v1/games/{game_id}/seats/{seat}", {}, **bearer(token))
        assert r.status_code == 201, r.get_json()
        seat_tokens.append(r.get_json()["token"])
    seat_tokens.append(api.join(game_id, 2, "Aiko"))
    r = api.post(f"/v1/games/{game_id}/rematch", **bearer(mio))
    assert (r.status_code, r.get_json()["code"]) == (409, "game_not_finished")
    assert api.post(f"/v1/games/{game_id}/resign", **bearer(seat_tokens[2])).status_code == 200
    assert api.public(game_id)["rematch"] is None
    _, stranger = new_player(api, "Bo")
    r = api.post(f"/v1/games/{game_id}/rematch", **bearer(stranger))
    assert (r.status_code, r.get_json()["code"]) == (403, "forbidden")

    r = api.post(f"/v1/games/{game_id}/rematch", **bearer(ren))
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert r.headers["Location"] == f"/v1/games/{made['id']}"
    assert r.headers["ETag"] == f'"{made["version"]}"'
    assert (made["players"], made["visibility"], made["clock"]["turn_seconds"]) == (
        3,
        "public",
        60,
    )
    assert [(s["name"], s["reserved_for"]) for s in made["seats"]] == [
        (None, None),  # Aiko's seat 2 moves to seat 0: she joined without a player
        (None, mio_id),  # Mio, invited to seat 1
        ("Ren", None),  # Ren, who asked, seated at seat 2
    ]
    assert api.public(game_id)["rematch"] == made["id"]
    (entry,) = [g for g in inbox(api, mio) if g["game_id"] == made["id"]]
    assert (entry["seat"], entry["invited"], entry["action"]) == (1, True, "join")

    for headers in (bearer(mio), bearer(seat_tokens[2]), {}):  # later: the same game
        r = api.post(f"/v1/games/{game_id}/rematch", **headers)
        assert (r.status_code, r.get_json()["id"]) == (200, made["id"]), r.get_json()
        assert r.headers["Location"] == f"/v1/games/{made['id']}"
    assert api.post(f"/v1/games/{made['id']}/seats/1", {}, **bearer(mio)).status_code == 201


def test_a_rematch_asked_by_a_seat_token_seats_the_caller_and_hands_out_its_token(
    api: Api,
) -> None:
    """Issue 44 (docs/api.md "Rematch"): asked with a seat token, the rematch seats the
    caller too and answers with the new seat's token under `joined`; that token plays in
    the new game. A retry under the same key hands out the same token."""
    mio_id, mio = new_player(api, "Mio")
    game_id = api.create(3)["id"]
    assert api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(mio)).status_code == 201
    aiko, _ = api.join(game_id, 1, "Aiko"), api.join(game_id, 2, "Ren")
    assert api.post(f"/v1/games/{game_id}/resign", **bearer(aiko)).status_code == 200

    key = str(uuid4())
    r = api.post(f"/v1/games/{game_id}/rematch", **bearer(aiko), Idempotency_Key=key)
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert made["joined"]["seat"] == 2 and made["joined"]["token"]
    assert [(s["name"], s["reserved_for"]) for s in made["seats"]] == [
        (None, None),  # Ren's anonymous seat 2 moves to seat 0: free
        (None, mio_id),  # Mio, invited to seat 1
        ("Aiko", None),  # Aiko, who asked, seated at seat 2 under her name
    ]
    again = api.post(f"/v1/games/{game_id}/rematch", **bearer(aiko), Idempotency_Key=key)
    assert (again.status_code, again.get_json()) == (201, made)

    new_id, token = made["id"], made["joined"]["token"]
    assert api.post(f"/v1/games/{new_id}/seats/1", {}, **bearer(mio)).status_code == 201
    api.join(new_id, 0, "Ren")
    r = api.get(f"/v1/games/{new_id}/view", **bearer(token))
    assert r.status_code == 200, r.get_json()
    view = r.get_json()
    assert (view["seat"], view["action"]) == (2, "pass")
    r = api.post(f"/v1/games/{new_id}/pass", {"cards": view["hand"][:3]}, **bearer(token))
    assert r.status_code == 200, r.get_json()

    # Later, by anyone: the same game, and no token.
    r = api.post(f"/v1/games/{game_id}/rematch", **bearer(mio))
    assert (r.status_code, r.get_json()["id"]) == (200, new_id) and "joined" not in r.get_json()
