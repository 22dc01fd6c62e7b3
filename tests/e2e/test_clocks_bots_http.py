"""Turn clocks, bots, leave and resign over HTTP (docs/api.md: Turn clocks, Bots):
the request shapes, the views, and the refusals with their stable codes. (The worker
that acts on them runs as a real process in tests/e2e/test_worker_process.py.)"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.support.api import OPERATOR, Api, bearer


def problem(r: Any, status: int, code: str) -> None:
    assert r.status_code == status, r.get_json()
    assert r.get_json()["code"] == code


@pytest.mark.parametrize(
    ("clock", "field"),
    [
        ({"turn_seconds": 0}, "turn_seconds"),
        ({"turn_seconds": 1209601}, "turn_seconds"),
        ({"turn_seconds": "60"}, "turn_seconds"),
        ({"turn_seconds": 60, "on_timeout": "nap"}, "on_timeout"),
        ({"on_timeout": "forfeit"}, "turn_seconds"),
    ],
)
def test_a_bad_clock_is_refused_with_422(api: Api, clock: dict[str, Any], field: str) -> None:
    r = api.post("/v1/games", {"players": 4, "clock": clock})
    assert r.status_code == 422, r.get_json()
    assert field in r.get_json()["errors"]["json"]["clock"]


@pytest.mark.parametrize(
    ("bots", "code"),
    [
        ([{"seat": 0, "level": "genius"}], "invalid_request"),
        ([{"seat": 7, "level": "basic"}], "invalid_request"),
        ([{"seat": 3, "level": "basic"}], "unknown_seat"),  # a three-player game
        ([{"seat": 1, "level": "basic"}, {"seat": 1, "level": "random"}], "seat_taken"),
    ],
)
def test_bad_bots_are_refused_with_422(api: Api, bots: list[dict[str, Any]], code: str) -> None:
    r = api.post("/v1/games", {"players": 3, "bots": bots})
    assert r.status_code == 422, r.get_json()
    if code != "invalid_request":
        assert r.get_json()["code"] == code


def test_views_show_the_clock_bots_and_deadlines(api: Api) -> None:
    before = datetime.now().astimezone()
    created = api.create(
        4,
        clock={"turn_seconds": 600, "on_timeout": "forfeit"},
        bots=[{"seat": 1, "level": "random"}],
    )
    assert created["clock"] == {"turn_seconds": 600, "on_timeout": "forfeit"}
    assert [s["bot"] for s in created["seats"]] == [None, "random", None, None]
    assert created["seats"][1]["joined"] and created["seats"][1]["name"]
    assert all(s["deadline"] is None for s in created["seats"])  # nobody must act yet
    tokens = {seat: api.join(created["id"], seat) for seat in (0, 2, 3)}
    view = api.client.get(f"/v1/games/{created['id']}/view", headers=bearer(tokens[0])).get_json()
    assert view["status"] == "passing"
    deadline = datetime.fromisoformat(view["seats"][0]["deadline"])
    assert (
        before + timedelta(seconds=600)
        <= deadline
        <= datetime.now().astimezone() + timedelta(seconds=600)
    )


def test_a_game_without_a_clock_has_no_deadlines(api: Api) -> None:
    game = api.start(3)
    view = api.public(game.id)
    assert view["clock"] is None
    assert all(s["deadline"] is None and s["bot"] is None for s in view["seats"])


def test_an_operator_seats_a_bot_and_nobody_else_may(api: Api) -> None:
    game_id = api.create(4)["id"]
    r = api.post(f"/v1/games/{game_id}/seats/2/bot", {"level": "basic"}, **OPERATOR)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["seats"][2]["bot"] == "basic"
    problem(api.post(f"/v1/games/{game_id}/seats/2/bot", {}, **OPERATOR), 409, "seat_taken")
    problem(api.post(f"/v1/games/{game_id}/seats/9/bot", {}, **OPERATOR), 404, "unknown_seat")
    problem(api.post(f"/v1/games/{game_id}/seats/3/bot", {"level": "basic"}), 401, "missing_token")
    r = api.post(f"/v1/games/{game_id}/seats/3/bot", {"level": "clever"}, **OPERATOR)
    assert r.status_code == 422
    seat_token = api.join(game_id, 0)
    r = api.post(f"/v1/games/{game_id}/seats/3/bot", {"level": "basic"}, **bearer(seat_token))
    assert r.status_code == 403


def test_leaving_hands_the_seat_to_a_bot_and_the_token_stops_acting(api: Api) -> None:
    game = api.start(4)
    r = api.post(f"/v1/games/{game.id}/leave", **game.seat_headers(2))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["seats"][2]["bot"] == "basic"
    assert "hand" not in r.get_json()
    headers = game.seat_headers(2)
    problem(api.get(f"/v1/games/{game.id}/view", **headers), 403, "seat_left")
    problem(api.get(f"/v1/games/{game.id}/events", **headers), 403, "seat_left")
    problem(api.post(f"/v1/games/{game.id}/leave", **headers), 403, "seat_left")
    problem(api.post(f"/v1/games/{game.id}/resign", **headers), 403, "seat_left")
    r = api.pass_cards(game, 2, ["green-1", "green-2", "green-3"])
    problem(r, 403, "seat_left")
    leave = [e for e in api.feed(game, 0) if e["type"] == "SeatLeft"]
    assert [(e["data"], e["actor"]["kind"]) for e in leave] == [
        ({"seat": 2, "bot": "basic"}, "seat")
    ]


def test_resigning_ends_the_game(api: Api) -> None:
    game = api.start(3)
    r = api.post(f"/v1/games/{game.id}/resign", **game.seat_headers(1))
    assert r.status_code == 200, r.get_json()
    view = r.get_json()
    assert view["status"] == "finished" and view["winner"] == [0, 2]
    assert view["rounds"][-1]["reason"] == "resign" and view["seat"] == 1
    problem(api.post(f"/v1/games/{game.id}/resign", **game.seat_headers(0)), 409, "game_over")
    problem(api.post(f"/v1/games/{game.id}/leave", **game.seat_headers(0)), 409, "game_over")


def test_leave_and_resign_need_a_seat_of_the_game(api: Api) -> None:
    game = api.start(4)
    other = api.start(4)
    problem(api.post(f"/v1/games/{game.id}/leave"), 401, "missing_token")
    assert api.post(f"/v1/games/{game.id}/resign", **other.seat_headers(0)).status_code == 403
    assert api.post(f"/v1/games/{game.id}/resign", **OPERATOR).status_code == 403


def test_nobody_resigns_before_the_game_starts(api: Api) -> None:
    game_id = api.create(4)["id"]
    token = api.join(game_id, 0)
    problem(api.post(f"/v1/games/{game_id}/resign", **bearer(token)), 409, "game_not_started")


def test_bots_are_named_as_people_number_seats_in_the_view_and_the_record(api: Api) -> None:
    """Issue 48 (3): the table said "Expert bot 2" where the hand record said `Seat1
    "Expert bot 1"`. A bot's name counts seats from 1, as the page does."""
    bots = [{"seat": 1, "level": "expert"}, {"seat": 3, "level": "random"}]
    created = api.post("/v1/games", {"players": 4, "bots": bots})
    assert created.status_code == 201, created.get_json()
    game = created.get_json()
    names = {s["seat"]: s["name"] for s in game["seats"] if s["bot"]}
    assert names == {1: "Expert bot 2", 3: "Random bot 4"}
    joined = api.post(f"/v1/games/{game['id']}/seats/2/bot", {"level": "basic"}, **OPERATOR)
    assert joined.status_code == 201, joined.get_json()
    assert joined.get_json()["seats"][2]["name"] == "Basic bot 3"
    record = api.get(f"/v1/games/{game['id']}/record").get_data(as_text=True)
    assert '[Seat1 "Expert bot 2"]' in record and '[Seat2 "Basic bot 3"]' in record
