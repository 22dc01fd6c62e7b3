"""openapi/openapi.yaml is generated from the code, committed, valid, and served."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from service.web.app import openapi_yaml
from tests.support.api import OPERATOR, Api, bearer

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.yaml"


def test_committed_openapi_document_is_what_the_code_generates() -> None:
    generated = openapi_yaml()
    assert COMMITTED.read_text() == generated, (
        "openapi/openapi.yaml is stale: run `.venv/bin/yokai openapi -o openapi/openapi.yaml`"
    )


def test_committed_openapi_document_is_valid() -> None:
    validate(yaml.safe_load(COMMITTED.read_text()))


def test_openapi_document_is_served_and_matches_the_committed_one(client: FlaskClient) -> None:
    r = client.get("/v1/openapi.json")
    assert r.status_code == 200
    assert r.get_json() == yaml.safe_load(COMMITTED.read_text())


def test_every_api_md_endpoint_is_documented() -> None:
    paths = yaml.safe_load(COMMITTED.read_text())["paths"]
    expected = {
        ("post", "/v1/games"),
        ("get", "/v1/games"),
        ("post", "/v1/games/{game_id}/seats/{seat}"),
        ("get", "/v1/games/{game_id}"),
        ("get", "/v1/games/{game_id}/view"),
        ("post", "/v1/games/{game_id}/pass"),
        ("post", "/v1/games/{game_id}/play"),
        ("get", "/v1/games/{game_id}/events"),
        ("get", "/v1/games/{game_id}/state"),
        ("get", "/v1/games/{game_id}/audit"),
        ("get", "/healthz"),
        ("get", "/readyz"),
    }
    documented = {(method, path) for path, ops in paths.items() for method in ops}
    assert expected <= documented


def _missing(value: Any, schema: dict[str, Any], spec: dict[str, Any], at: str) -> list[str]:
    """Where ``value`` lacks a field its schema requires (following $ref, objects and
    arrays; a null stands for a nullable value)."""
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if value is None:
        return []
    out: list[str] = []
    if isinstance(value, dict):
        out += [f"{at}.{name}" for name in schema.get("required", []) if name not in value]
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                out += _missing(value[name], sub, spec, f"{at}.{name}")
    elif isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += _missing(item, schema["items"], spec, f"{at}[{i}]")
    return out


def test_responses_have_every_field_the_contract_requires(api: Api) -> None:
    spec = yaml.safe_load(COMMITTED.read_text())
    schemas = spec["components"]["schemas"]
    game = api.start(4)
    api.pass_cards(game, 0, api.view(game, 0)["legal"][:3])
    player = api.post("/v1/players", {"name": "Mio"}).get_json()
    joined = api.post(f"/v1/games/{api.create(3)['id']}/seats/0", {}, **bearer(player["token"]))
    checks = [
        (api.get(f"/v1/games/{game.id}").get_json(), "GameView"),
        (api.view(game, 0), "SeatView"),
        (api.get(f"/v1/games/{game.id}/events", **game.seat_headers(0)).get_json(), "Feed"),
        (api.get(f"/v1/games/{game.id}/audit", **OPERATOR).get_json(), "Audit"),
        (api.get(f"/v1/games/{game.id}/state", **OPERATOR).get_json(), "OperatorState"),
        (api.get("/v1/games", **OPERATOR).get_json(), "GameList"),
        (player, "PlayerCreated"),
        (joined.get_json(), "Joined"),
        (api.get("/v1/me/games", **bearer(player["token"])).get_json(), "Inbox"),
        (api.get("/v1/games/00000000-0000-0000-0000-000000000000").get_json(), "Problem"),
        (api.get("/healthz").get_json(), "Health"),
    ]
    for body, name in checks:
        assert _missing(body, {"$ref": f"#/components/schemas/{name}"}, spec, name) == []
    assert set(schemas["SeatView"]["required"]) >= {"hand", "legal", "pass", "seat"}
