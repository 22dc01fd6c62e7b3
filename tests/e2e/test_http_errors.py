"""Cross-cutting HTTP conventions of docs/api.md: problem details for malformed requests,
body size, unknown routes and methods, rate limiting, probes and the OpenAPI document.
No request gets a 5xx because of what the client sent."""

from __future__ import annotations

import re
import uuid

import pytest
from flask.testing import FlaskClient

from tests.support.api import OPERATOR, Api, Game
from tests.support.deals import assert_problem, start_ordered, start_playing
from tests.support.postgres import MakeApp, new_database


def _command_paths(api: Api) -> list[tuple[str, dict[str, str]]]:
    game = start_playing(api)
    waiting = api.create(4)["id"]
    seat = game.seat_headers(0)
    return [
        ("/v1/games", {}),
        (f"/v1/games/{waiting}/seats/0", {}),
        (f"/v1/games/{game.id}/pass", seat),
        (f"/v1/games/{game.id}/play", seat),
    ]


@pytest.mark.parametrize(
    "raw",
    [b"{", b'{"players": 4', b"{'players': 4}", b"players=4", b'{"players": 4,}',
     b"\xff\xfe\x00", b'{"players": NaN-}', b"[" * 10 + b"]"],
)  # fmt: skip
def test_a_body_that_is_not_json_is_400_malformed_json(api: Api, raw: bytes) -> None:
    for path, headers in _command_paths(api):
        r = api.client.post(path, data=raw, content_type="application/json", headers=headers)
        assert_problem(r, 400, "malformed_json")


def test_a_huge_integer_in_a_body_is_refused_without_a_5xx(api: Api) -> None:
    huge = "1" * 4301
    for path, headers in _command_paths(api):
        for field in ("players", "name", "cards", "card"):
            raw = '{"' + field + '": ' + huge + "}"
            r = api.client.post(path, data=raw, content_type="application/json", headers=headers)
            assert r.status_code in (400, 422), (path, r.status_code)
            assert_problem(r, r.status_code)


def test_a_malformed_body_changes_nothing(api: Api) -> None:
    game = start_playing(api)
    before = api.public(game.id)["version"]
    r = api.client.post(
        f"/v1/games/{game.id}/play",
        data=b'{"card": "purple-2"',
        content_type="application/json",
        headers=game.seat_headers(0),
    )
    assert_problem(r, 400, "malformed_json")
    assert api.public(game.id)["version"] == before


@pytest.mark.parametrize("depth", [100, 5000, 30000])
def test_deeply_nested_json_is_refused_without_a_5xx(api: Api, depth: int) -> None:
    raw = b'{"players": ' + b"[" * depth + b"]" * depth + b"}"
    r = api.client.post("/v1/games", data=raw, content_type="application/json")
    assert r.status_code in (400, 422), r.status_code
    assert_problem(r, r.status_code)


def test_a_body_over_64_kib_is_413(api: Api) -> None:
    game = start_playing(api)
    before = api.public(game.id)["version"]
    padding = "x" * (64 * 1024)
    big = ('{"players": 4, "pad": "' + padding + '"}').encode()
    assert_problem(api.client.post("/v1/games", data=big, content_type="application/json"), 413)
    big_play = ('{"card": "purple-2", "pad": "' + padding + '"}').encode()
    r = api.client.post(
        f"/v1/games/{game.id}/play",
        data=big_play,
        content_type="application/json",
        headers=game.seat_headers(0),
    )
    assert_problem(r, 413)
    assert api.public(game.id)["version"] == before


def test_a_body_just_under_64_kib_is_read(api: Api) -> None:
    name = "n" * 10
    body = '{"name": "' + name + '"}' + " " * (64 * 1024 - 30)
    game_id = api.create(3)["id"]
    r = api.client.post(
        f"/v1/games/{game_id}/seats/0", data=body.encode(), content_type="application/json"
    )
    assert r.status_code == 201, r.get_json()


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/v1/nothing"), ("GET", "/v2/games"), ("POST", "/v1/games/x/y/z"),
     ("GET", "/nothing"), ("GET", "/v1/games/" + "0" * 36 + "/seats")],
)  # fmt: skip
def test_an_unknown_route_is_404_problem_json(api: Api, method: str, path: str) -> None:
    assert_problem(api.client.open(path, method=method), 404)


@pytest.mark.parametrize(
    ("method", "path"),
    [("DELETE", "/v1/games/{id}"), ("PUT", "/v1/games"), ("PATCH", "/v1/games/{id}"),
     ("GET", "/v1/games/{id}/pass"), ("GET", "/v1/games/{id}/play"),
     ("DELETE", "/v1/games/{id}/seats/0"), ("POST", "/v1/games/{id}/events"),
     ("POST", "/healthz")],
)  # fmt: skip
def test_a_wrong_method_is_405_problem_json(api: Api, method: str, path: str) -> None:
    game = start_ordered(api)
    before = api.public(game.id)["version"]
    r = api.client.open(path.format(id=game.id), method=method, headers=OPERATOR)
    assert_problem(r, 405)
    assert api.public(game.id)["version"] == before


def test_a_405_names_the_allowed_methods(api: Api) -> None:
    game_id = api.create(4)["id"]
    r = api.client.delete(f"/v1/games/{game_id}")
    assert_problem(r, 405)
    assert "GET" in r.headers.get("Allow", "")


def test_every_response_carries_a_request_id_of_the_servers_own(api: Api) -> None:
    r = api.get(f"/v1/games/{uuid.uuid4()}", X_Request_Id="trace-42")
    body = assert_problem(r, 404)
    made = r.headers["X-Request-Id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)  # not the client's "trace-42"
    assert body["request_id"] == made
    again = api.get(f"/v1/games/{uuid.uuid4()}", X_Request_Id="trace-42")
    assert again.headers["X-Request-Id"] not in (made, "trace-42")
    assert api.get("/healthz").headers.get("X-Request-Id")


# --- rate limiting --------------------------------------------------------------------


def test_too_many_requests_are_429_with_retry_after(limited: FlaskClient) -> None:
    path = f"/v1/games/{uuid.uuid4()}"
    for _ in range(3):
        assert limited.get(path).status_code == 404
    r = limited.get(path)
    assert_problem(r, 429)
    assert int(r.headers["Retry-After"]) > 0
    # The probes stay reachable for orchestrators.
    assert limited.get("/healthz").status_code == 200


# --- probes and the OpenAPI document --------------------------------------------------


def test_healthz_and_readyz_answer_200(api: Api) -> None:
    assert api.get("/healthz").status_code == 200
    assert api.get("/readyz").status_code == 200


@pytest.fixture
def unmigrated(server_url: str, make_app: MakeApp) -> FlaskClient:
    return make_app(database_url=new_database(server_url, "yokai_empty")).client()


def test_readyz_is_503_when_the_database_is_not_migrated(unmigrated: FlaskClient) -> None:
    r = unmigrated.get("/readyz")
    assert r.status_code == 503
    assert unmigrated.get("/healthz").status_code == 200


def test_the_openapi_document_is_served(api: Api) -> None:
    r = api.get("/v1/openapi.json")
    assert r.status_code == 200
    doc = r.get_json()
    assert doc["openapi"].startswith("3.")
    paths = doc["paths"]
    for path in (
        "/v1/games",
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/seats/{seat}",
        "/v1/games/{game_id}/view",
        "/v1/games/{game_id}/pass",
        "/v1/games/{game_id}/play",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/state",
        "/v1/games/{game_id}/audit",
    ):
        assert path in paths, path


# --- no 5xx for anything a client sends ---------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [{"If-Match": "garbage"}, {"If-Match": '"99999999999999999999999"'}, {"If-Match": '""'},
     {"If-Match": 'W/"1", "2", *'}, {"If-None-Match": "*"},
     {"Authorization": "Bearer " + "x" * 5000},
     {"Authorization": "Bearer \u00e9t\u00e9"}, {"X-Request-Id": "x" * 5000},
     {"X-Request-Id": "bad id\twith tab"}, {"Content-Type": "application/json; charset=latin-1"}],
)  # fmt: skip
def test_odd_headers_never_give_a_5xx(api: Api, headers: dict[str, str]) -> None:
    game: Game = start_playing(api)
    seat = game.seat_headers(0)
    for r in (
        api.client.get(f"/v1/games/{game.id}", headers=headers),
        api.client.get(f"/v1/games/{game.id}/view", headers={**seat, **headers}),
        api.client.post(
            f"/v1/games/{game.id}/play", json={"card": "purple-2"}, headers={**seat, **headers}
        ),
        api.client.post("/v1/games", json={"players": 4}, headers=headers),
    ):
        assert r.status_code < 500, (r.status_code, r.get_data(as_text=True))
        if r.status_code >= 400:
            assert_problem(r, r.status_code)
