"""openapi/openapi.yaml is generated from the code, committed, valid, and served."""

from __future__ import annotations

from pathlib import Path

import yaml
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from service.web.app import openapi_yaml

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
