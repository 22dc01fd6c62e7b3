"""Structured logs (service/logs.py): one JSON line per request with its request id,
route, status, duration, game, actor and problem code; gunicorn's own lines in the same
format; and never a token, a hand, a pass or a server seed in any line."""

from __future__ import annotations

import json
import logging
import random
import re
from pathlib import Path
from typing import Any

import pytest

from service import logs
from tests.e2e.test_serve_process import Served, start, stop
from tests.support.api import OPERATOR, Api
from tests.support.postgres import new_database

CARD = re.compile(r"\b(green|purple|pink|yellow|black|red|blue)-\d{1,2}b?\b")
FIELDS = {"request_id", "method", "route", "status", "duration_ms", "game_id", "actor", "problem"}


def lines_of(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    formatter = logs.formatter("json")
    return [json.loads(formatter.format(r)) for r in caplog.records]


def test_each_request_is_one_json_line_and_no_line_holds_a_secret(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    secrets: set[str] = set()
    for players, variant in ((3, "standard"), (4, "seven_followers")):
        game = api.start(players, variant=variant)
        secrets.update(game.tokens)
        for _ in api.play_out(game, random.Random(players)):
            pass
        secrets.add(api.public(game.id)["fairness"]["server_seed"])
    player = api.post("/v1/players", {"name": "Mio"}).get_json()
    secrets.add(player["token"])
    refused = api.post(f"/v1/games/{game.id}/play", {"card": "green-1"}, **game.seat_headers(0))
    assert refused.status_code == 409
    lines = lines_of(caplog)
    requests = [x for x in lines if x["logger"] == "yokai.request"]
    assert len(requests) > 200
    for x in requests:
        assert set(x) >= FIELDS and x["message"] == "request"
        assert (
            x["route"] is None
            or x["route"].startswith("/v1/")
            or x["route"]
            in (
                "/healthz",
                "/readyz",
            )
        )
    last = requests[-1]
    assert (last["method"], last["route"], last["status"]) == (
        "POST",
        "/v1/games/<game_id>/play",
        409,
    )
    assert (last["game_id"], last["actor"], last["problem"]) == (game.id, "seat", "wrong_phase")
    assert last["request_id"] == refused.headers["X-Request-Id"]
    text = "\n".join(json.dumps(x) for x in lines)
    assert [s for s in secrets if s in text] == []
    assert CARD.findall(text) == []


def test_an_operators_and_an_anonymous_request_say_who_sent_them(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    api.get("/v1/games?limit=1", **OPERATOR)
    api.get("/v1/games/not-a-game")
    operator, missing = [x for x in lines_of(caplog) if x["logger"] == "yokai.request"][-2:]
    assert (operator["actor"], operator["status"]) == ("operator", 200)
    # Not a UUID: no route names it (a game's id is `format: uuid` in the contract).
    assert (missing["actor"], missing["status"], missing["problem"]) == (
        "anonymous",
        404,
        "game_not_found",
    )
    assert missing["game_id"] is None  # not an id: not logged


def test_yokai_serve_writes_only_json_lines(server_url: str, tmp_path: Path) -> None:
    url = new_database(server_url, "yokai_logs")
    served: Served = start(
        {
            "DATABASE_URL": url,
            "YOKAI_OPERATOR_TOKEN": "logs-operator-token-of-32-characters",
            "YOKAI_EMBEDDED_WORKER": "0",
        },
        tmp_path,
    )
    try:
        status, _, game = served.request(
            "POST", "/v1/games", b'{"players": 3}', {"Content-Type": "application/json"}
        )
        assert status == 201
        assert served.request("GET", f"/v1/games/{game['id']}/nothing")[0] == 404
    finally:
        assert stop(served) == 0
    lines = [json.loads(line) for line in served.started.output().splitlines() if line.strip()]
    loggers = {x["logger"] for x in lines}
    assert {"gunicorn.error", "yokai.request"} <= loggers
    created = [x for x in lines if x.get("route") == "/v1/games" and x.get("status") == 201]
    assert len(created) == 1 and created[0]["actor"] == "anonymous"
    assert all({"time", "level", "logger", "message"} <= set(x) for x in lines)
