"""Hand reviews over HTTP (docs/api.md "Hand review", issue 46): asked for once a game is
over (409 before), read back (404 before any request), computed by the worker's review
job one decision per run, never while a bot is due, and served with the contract's
shape; `yokai review` prints the same."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from service import cli
from service.application.review.jobs import ReviewJobs
from tests.support.api import OPERATOR, Api, Game
from tests.support.deals import assert_problem
from tests.support.postgres import AppUnderTest

FEW = 2  # worlds per decision: the shape and the flow, not the values


def finished(api: Api, players: int, seed: int = 5) -> Game:
    game = api.start(players)
    for _ in api.play_out(game, random.Random(seed)):
        pass
    return game


def moves(api: Api, game: Game) -> int:
    """How many passes and plays the game had (its audit, as operators read it)."""
    events = api.get(f"/v1/games/{game.id}/audit?limit=1000", **OPERATOR).get_json()["events"]
    return sum(1 for e in events if e["type"] in ("CardsPassed", "CardPlayed"))


def reviewed(suite_app: AppUnderTest, jobs: ReviewJobs) -> int:
    runs = 0
    while jobs.run_due(suite_app.container.deps):
        runs += 1
        assert runs < 2000
    return runs


@pytest.mark.parametrize("players", [3, 4])
def test_a_finished_game_is_reviewed_in_the_background_and_served(
    suite_app: AppUnderTest,
    api: Api,
    players: int,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    game = api.start(players)
    assert_problem(api.post(f"/v1/games/{game.id}/review"), 409, "game_not_finished")
    for _ in api.play_out(game, random.Random(5)):
        pass
    assert_problem(api.get(f"/v1/games/{game.id}/review"), 404, "no_review")
    r = api.post(f"/v1/games/{game.id}/review", Idempotency_Key=f"review-{game.id}")
    assert r.status_code == 202 and r.get_json() == {"status": "queued"}
    again = api.post(f"/v1/games/{game.id}/review", Idempotency_Key=f"review-{game.id}")
    assert again.status_code == 202
    queued = api.get(f"/v1/games/{game.id}/review").get_json()
    assert (queued["status"], queued["level"], queued["decisions"]) == ("queued", "expert", [])

    jobs = ReviewJobs(play_worlds=FEW, pass_worlds=FEW)
    assert jobs.run_due(suite_app.container.deps) == 1  # one decision per run
    running = api.get(f"/v1/games/{game.id}/review").get_json()
    assert (running["status"], len(running["decisions"])) == ("running", 1)
    runs = 1 + reviewed(suite_app, jobs)
    body: dict[str, Any] = api.get(f"/v1/games/{game.id}/review").get_json()
    assert body["status"] == "done"
    assert len(body["decisions"]) == moves(api, game) == runs
    assert [d["seq"] for d in body["decisions"]] == sorted(d["seq"] for d in body["decisions"])
    for d in body["decisions"]:
        cards = [o["cards"] for o in d["options"]]
        assert d["chosen"] in cards and d["best"] in cards and d["loss"] >= 0
        assert all(0 <= o["value"] <= 1 for o in d["options"])
        assert (d["trick"] is None) == (d["kind"] == "pass")
    assert [s["seat"] for s in body["summary"]] == list(range(players))
    assert sum(s["decisions"] for s in body["summary"]) == len(body["decisions"])
    done = api.post(f"/v1/games/{game.id}/review")
    assert done.status_code == 200 and done.get_json() == body

    monkeypatch.setenv("DATABASE_URL", database_url)
    capsys.readouterr()
    assert cli.main(["review", game.id]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == body  # the stored review


def test_the_review_job_yields_to_a_bot_that_is_due(suite_app: AppUnderTest, api: Api) -> None:
    game = finished(api, 3)
    assert api.post(f"/v1/games/{game.id}/review").status_code == 202
    bots = [{"seat": s, "level": "basic"} for s in range(3)]
    assert api.post("/v1/games", {"players": 3, "bots": bots}).status_code == 201
    jobs = ReviewJobs(play_worlds=FEW, pass_worlds=FEW)
    assert jobs.run_due(suite_app.container.deps) == 0  # the bots' game is due: no review
    assert api.get(f"/v1/games/{game.id}/review").get_json()["decisions"] == []


def test_yokai_review_refuses_a_running_game_and_an_unknown_one(
    suite_app: AppUnderTest, api: Api, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = api.start(3)
    monkeypatch.setenv("DATABASE_URL", database_url)
    assert cli.main(["review", running.id]) == 1
    assert cli.main(["review", "00000000-0000-4000-8000-000000000000"]) == 2
    assert api.get(f"/v1/games/{running.id}/review").status_code == 404  # nothing stored
