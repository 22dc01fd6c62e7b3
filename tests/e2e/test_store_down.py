"""With the database unreachable, every request that needs it is a 503 problem
(`store_unavailable`, with Retry-After), never a 500 or a wrong answer such as a 409
"busy" for a command that was never tried (issue 14, part 4)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.api import OPERATOR
from tests.support.postgres import MakeApp

GAME = "6de3fd74-af42-4db8-88b2-f8b13d3e3f2b"
DOWN = "postgresql://nobody:x@127.0.0.1:9/nowhere"


@pytest.mark.parametrize(
    ("method", "path", "body", "headers"),
    [
        ("POST", "/v1/games", {"players": 4}, {}),
        ("POST", f"/v1/games/{GAME}/seats/0", {"name": "Ann"}, {}),
        ("POST", f"/v1/games/{GAME}/play", {"card": "green-1"}, {"Authorization": "Bearer t"}),
        ("POST", "/v1/players", {"name": "Mio"}, {}),
        ("GET", f"/v1/games/{GAME}", None, {}),
        ("GET", f"/v1/games/{GAME}/view", None, {"Authorization": "Bearer t"}),
        ("GET", "/v1/games", None, OPERATOR),
        ("GET", f"/v1/games/{GAME}/audit", None, OPERATOR),
        ("POST", "/v1/webhooks", {"url": "https://93.184.216.34/h", "events": ["turn"]}, OPERATOR),
    ],
)
def test_an_unreachable_store_is_a_503_with_retry_after(
    make_app: MakeApp, method: str, path: str, body: Any, headers: dict[str, str]
) -> None:
    client = make_app(database_url=DOWN).client()
    r = client.open(path, method=method, json=body, headers=headers)
    assert r.status_code == 503, r.get_json()
    assert r.get_json()["code"] == "store_unavailable"
    assert r.headers["Retry-After"]


def test_readiness_says_not_ready(make_app: MakeApp) -> None:
    client = make_app(database_url=DOWN).client()
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200
