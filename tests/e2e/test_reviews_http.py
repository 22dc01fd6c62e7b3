"""Hand reviews over HTTP (docs/api.md "Hand review", issue 46): asked for once a game is
over (409 before), read back (404 before any request), computed by the worker's review
job one decision per run, never while a bot is due, and served with the contract's
shape; `yokai review` prints the same. Each test on a database of its own: no game that
another test left due (a bot's move) holds the review job back."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from service import cli
from service.adapters.postgres.engine import sqlalchemy_url
from service.application.review import jobs as jobs_module
from service.application.review.jobs import ReviewJobs
from tests.support.api import OPERATOR, Api, Game
from tests.support.deals import assert_problem
from tests.support.postgres import AppUnderTest, MakeApp, migrated_database

FEW = 2  # worlds per decision: the shape and the flow, not the values


@pytest.fixture
def own_url(server_url: str) -> str:
    return migrated_database(server_url, "yokai_reviews")


@pytest.fixture
def own(make_app: MakeApp, own_url: str) -> AppUnderTest:
    return make_app(database_url=own_url)


@pytest.fixture
def api(own: AppUnderTest) -> Api:
    return own.api()


def finished(api: Api, players: int, seed: int = 5) -> Game:
    game = api.start(players)
    for _ in api.play_out(game, random.Random(seed)):
        pass
    return game


def moves(api: Api, game: Game) -> int:
    """How many passes and plays the game had (its audit, as operators read it)."""
    events = api.get(f"/v1/games/{game.id}/audit?limit=1000", **OPERATOR).get_json()["events"]
    return sum(1 for e in events if e["type"] in ("CardsPassed", "CardPlayed"))


def reviewed(own: AppUnderTest, jobs: ReviewJobs) -> int:
    runs = 0
    while jobs.run_due(own.container.deps):
        runs += 1
        assert runs < 2000
    return runs


@pytest.mark.parametrize("players", [3, 4])
def test_a_finished_game_is_reviewed_in_the_background_and_served(
    own: AppUnderTest,
    api: Api,
    players: int,
    own_url: str,
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
    assert jobs.run_due(own.container.deps) == 1  # one decision per run
    running = api.get(f"/v1/games/{game.id}/review").get_json()
    assert (running["status"], len(running["decisions"])) == ("running", 1)
    runs = 1 + reviewed(own, jobs)
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

    monkeypatch.setenv("DATABASE_URL", own_url)
    capsys.readouterr()
    assert cli.main(["review", game.id]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == body  # the stored review


def test_the_review_job_yields_to_a_bot_that_is_due(
    own: AppUnderTest, api: Api, own_url: str
) -> None:
    game = finished(api, 3)
    assert api.post(f"/v1/games/{game.id}/review").status_code == 202
    bots = [{"seat": s, "level": "basic"} for s in range(3)]
    created = api.post("/v1/games", {"players": 3, "bots": bots})
    assert created.status_code == 201
    jobs = ReviewJobs(play_worlds=FEW, pass_worlds=FEW)
    assert jobs.run_due(own.container.deps) == 0  # the bots' game is due: no review
    assert api.get(f"/v1/games/{game.id}/review").get_json()["decisions"] == []
    engine = create_engine(sqlalchemy_url(own_url), isolation_level="AUTOCOMMIT")
    try:  # the bots' game no longer due: the review goes on
        with engine.connect() as conn:
            conn.execute(text("DELETE FROM wakeups"))
    finally:
        engine.dispose()
    assert jobs.run_due(own.container.deps) == 1
    assert len(api.get(f"/v1/games/{game.id}/review").get_json()["decisions"]) == 1


def test_yokai_review_refuses_a_running_game_and_an_unknown_one(
    own: AppUnderTest, api: Api, own_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    running = api.start(3)
    monkeypatch.setenv("DATABASE_URL", own_url)
    assert cli.main(["review", running.id]) == 1
    assert cli.main(["review", "00000000-0000-4000-8000-000000000000"]) == 2
    assert api.get(f"/v1/games/{running.id}/review").status_code == 404  # nothing stored


def test_a_review_that_fails_is_marked_so_and_queued_again_when_asked(
    own: AppUnderTest, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = finished(api, 3, seed=8)
    assert api.post(f"/v1/games/{game.id}/review").status_code == 202

    def broken(*_: object) -> None:
        raise RuntimeError("a fault of the server")

    monkeypatch.setattr(jobs_module, "review", broken)
    assert ReviewJobs(play_worlds=FEW, pass_worlds=FEW).run_due(own.container.deps) == 1
    assert api.get(f"/v1/games/{game.id}/review").get_json()["status"] == "failed"
    monkeypatch.undo()
    again = api.post(f"/v1/games/{game.id}/review")
    assert again.status_code == 202 and again.get_json() == {"status": "queued"}
