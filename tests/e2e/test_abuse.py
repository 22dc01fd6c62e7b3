"""Abuse (issue 14, part 5): bodies nested thousands deep are a client error, not a
recursion error; feeds cap their page size."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.support.api import OPERATOR, Api


@pytest.mark.parametrize(
    "body",
    [
        '{"players": 4, "deals": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"a": ' * 3000 + "1" + "}" * 3000,
    ],
    ids=["arrays", "objects"],
)
def test_json_nested_thousands_deep_is_a_400(client: FlaskClient, body: str) -> None:
    r = client.post("/v1/games", data=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 400
    assert r.get_json()["code"] == "malformed_json"


def test_a_feed_page_is_capped(api: Api) -> None:
    game = api.start(3)
    r = api.get(f"/v1/games/{game.id}/events?limit=100000", **OPERATOR)
    assert r.status_code == 422
    assert api.get(f"/v1/games/{game.id}/events?limit=1000", **OPERATOR).status_code == 200
