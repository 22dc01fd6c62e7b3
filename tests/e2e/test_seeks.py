"""Quick play over HTTP (docs/api.md "Quick play", issue 29): a player's seek, made,
read, cancelled, with its refusals and its Idempotency-Key; and a pairing (the worker's
job source run by hand, on a database of the test's own, so no other test's seeks join
the pool): the seeks matched, each player seated in the started game, acting with the
player token, the game in their inbox with their turn to pass."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from service.application.jobs.pairing import Pairing
from tests.support.api import OPERATOR, Api, bearer
from tests.support.waiting import wait_for
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture: a database of the test's own

SEEK_FIELDS = {
    "id", "status", "players", "scoring", "variant", "rated", "clock", "rating_range",
    "bots_after_seconds", "created_at", "expires_at", "ended_at", "game_id", "seat",
    "min_reputation",
}  # fmt: skip


def new_player(api: Api, name: str = "Mio") -> dict[str, str]:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    made: dict[str, str] = r.get_json()
    return {"id": made["id"], **bearer(made["token"])}


def headers(player: dict[str, str]) -> dict[str, str]:
    return {"Authorization": player["Authorization"]}


def seek(api: Api, player: dict[str, str], **body: Any) -> dict[str, Any]:
    r = api.post("/v1/seeks", {"players": 4, **body}, **headers(player))
    assert r.status_code == 201, r.get_json()
    made: dict[str, Any] = r.get_json()
    return made


def read(api: Api, player: dict[str, str], seek_id: str) -> dict[str, Any]:
    r = api.get(f"/v1/seeks/{seek_id}", **headers(player))
    assert r.status_code == 200, r.get_json()
    found: dict[str, Any] = r.get_json()
    return found


def code(r: Any) -> tuple[int, str]:
    return r.status_code, r.get_json()["code"]


def test_a_player_seeks_reads_and_cancels(setup: Setup) -> None:
    api, mio = setup.api, new_player(setup.api)
    clock = {"turn_seconds": 300, "on_timeout": "forfeit"}
    r = api.post(
        "/v1/seeks",
        {"players": 3, "scoring": "advanced", "rated": True, "clock": clock,
         "rating_range": [-2, 2.5], "bots_after_seconds": 60},
        **headers(mio),
    )  # fmt: skip
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert r.headers["Location"] == f"/v1/seeks/{made['id']}"
    assert set(made) == SEEK_FIELDS
    assert (made["status"], made["players"], made["scoring"], made["variant"]) == (
        "open",
        3,
        "advanced",
        "standard",
    )
    assert (made["rated"], made["clock"], made["rating_range"]) == (True, clock, [-2.0, 2.5])
    assert (made["bots_after_seconds"], made["game_id"], made["seat"]) == (60, None, None)
    made_at, expires = (datetime.fromisoformat(made[k]) for k in ("created_at", "expires_at"))
    assert expires - made_at == timedelta(hours=24)  # YOKAI_SEEK_HOURS, by default
    assert read(api, mio, made["id"]) == made
    r = api.post("/v1/seeks", {"players": 4}, **headers(mio))
    assert code(r) == (409, "already_seeking")
    r = api.client.delete(f"/v1/seeks/{made['id']}", headers=headers(mio))
    assert r.status_code == 204
    cancelled = read(api, mio, made["id"])
    assert cancelled["status"] == "cancelled" and cancelled["ended_at"] is not None
    assert api.client.delete(f"/v1/seeks/{made['id']}", headers=headers(mio)).status_code == 204
    seek(api, mio)  # the player may seek again


def test_a_seek_is_its_player_s_alone(setup: Setup) -> None:
    api, mio, rin = setup.api, new_player(setup.api), new_player(setup.api, "Rin")
    made = seek(api, mio)
    assert code(api.get(f"/v1/seeks/{made['id']}", **headers(rin))) == (404, "seek_not_found")
    r = api.client.delete(f"/v1/seeks/{made['id']}", headers=headers(rin))
    assert code(r) == (404, "seek_not_found")
    assert code(api.get(f"/v1/seeks/{uuid.uuid4()}", **headers(mio))) == (404, "seek_not_found")
    assert code(api.get("/v1/seeks/not-a-uuid", **headers(mio))) == (404, "seek_not_found")
    assert code(api.get(f"/v1/seeks/{made['id']}", **OPERATOR)) == (403, "forbidden")
    assert code(api.get(f"/v1/seeks/{made['id']}")) == (401, "missing_token")
    assert code(api.post("/v1/seeks", {"players": 4}, **OPERATOR)) == (403, "forbidden")
    assert code(api.post("/v1/seeks", {"players": 4})) == (401, "missing_token")


def test_what_a_seek_may_ask_for(setup: Setup) -> None:
    api, mio = setup.api, new_player(setup.api)
    refused = [
        ({"players": 3, "variant": "seven_followers"}, "invalid_options"),
        ({"players": 3, "rated": True, "rating_range": [2, 1]}, "invalid_rating_range"),
        ({"players": 4, "bots_after_seconds": 4}, "invalid_request"),
        ({"players": 4, "bots_after_seconds": 601}, "invalid_request"),
        ({"players": 4, "rated": "true"}, "invalid_request"),
        ({"players": 4, "rating_range": [1]}, "invalid_request"),
        ({"players": 4, "rating_range": ["1", 2]}, "invalid_request"),
        ({"players": 5}, "invalid_request"),
        ({"players": 4, "bots": []}, "invalid_request"),
    ]
    for body, problem in refused:
        assert code(api.post("/v1/seeks", body, **headers(mio))) == (422, problem), body
    made = seek(api, mio, bots_after_seconds=5)
    assert (made["scoring"], made["variant"], made["rated"], made["clock"]) == (
        "basic",
        "standard",
        False,
        None,
    )


def test_a_seek_made_again_under_its_key_is_made_once(setup: Setup) -> None:
    api, mio = setup.api, new_player(setup.api)
    key = {**headers(mio), "Idempotency-Key": str(uuid.uuid4())}
    first = api.post("/v1/seeks", {"players": 4}, **key)
    again = api.post("/v1/seeks", {"players": 4}, **key)
    assert (first.status_code, again.status_code) == (201, 201)
    assert first.get_json() == again.get_json()
    assert code(api.post("/v1/seeks", {"players": 3}, **key)) == (422, "idempotency_key_reused")
    made = first.get_json()["id"]
    cancel = {**headers(mio), "Idempotency-Key": str(uuid.uuid4())}
    assert api.client.delete(f"/v1/seeks/{made}", headers=cancel).status_code == 204
    assert api.client.delete(f"/v1/seeks/{made}", headers=cancel).status_code == 204


def test_four_seeks_are_paired_into_a_started_game(setup: Setup) -> None:
    api = setup.api
    players = [new_player(api, f"P{n}") for n in range(4)]
    made = [seek(api, p) for p in players]
    assert Pairing().run_due(setup.deps) == 1  # the worker's job, run here
    found = [read(api, p, s["id"]) for p, s in zip(players, made, strict=True)]
    assert {f["status"] for f in found} == {"matched"}
    (game_id,) = {f["game_id"] for f in found}
    assert sorted(f["seat"] for f in found) == [0, 1, 2, 3]
    view = api.public(game_id)
    assert view["status"] == "passing" and view["visibility"] == "private"
    for player, mine in zip(players, found, strict=True):
        name = api.get("/v1/me", **headers(player)).get_json()["name"]
        assert view["seats"][mine["seat"]]["name"] == name
        r = api.get(f"/v1/games/{game_id}/view", **headers(player))  # the player's token
        assert r.status_code == 200 and r.get_json()["seat"] == mine["seat"]
        assert r.get_json()["action"] == "pass"
        (entry,) = api.get("/v1/me/games", **headers(player)).get_json()["games"]
        assert (entry["game_id"], entry["seat"], entry["my_turn"], entry["action"]) == (
            game_id,
            mine["seat"],
            True,
            "pass",
        )
    r = api.client.delete(f"/v1/seeks/{made[0]['id']}", headers=headers(players[0]))
    assert code(r) == (409, "seek_matched")
    joins = [
        e
        for e in api.get(f"/v1/games/{game_id}/events", **OPERATOR).get_json()["events"]
        if e["type"] == "SeatJoined"
    ]
    assert [e["actor"]["kind"] for e in joins] == ["player"] * 4
    assert sorted(e["data"]["seat"] for e in joins) == [0, 1, 2, 3]


def test_a_seek_left_alone_gets_bots_after_its_delay(setup: Setup) -> None:
    api, mio = setup.api, new_player(setup.api)
    made = seek(api, mio, players=3, bots_after_seconds=5)
    jobs = Pairing()
    assert jobs.run_due(setup.deps) == 0  # too early
    due = datetime.fromisoformat(made["created_at"]) + timedelta(seconds=5)
    assert jobs.next_due(setup.deps) == due
    wait_for(lambda: jobs.run_due(setup.deps) == 1, "the seek's bots to fall due", 30)
    found = read(api, mio, made["id"])
    view = api.public(found["game_id"])
    assert view["status"] == "passing"
    assert [s["bot"] for s in view["seats"]] == [
        None if seat == found["seat"] else "basic" for seat in range(3)
    ]
