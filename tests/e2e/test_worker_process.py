"""Real `yokai worker` processes against PostgreSQL (API.md Part 2: Turn clocks, Bots).

Clocks here are seconds long; the tests wait for outcomes with deadlines and assert
outcomes, never timings. Every process a test starts is stopped by the fixture that
started it.
"""

from __future__ import annotations

import signal
from datetime import datetime
from typing import Any

import psycopg
import pytest

from tests.support.api import OPERATOR, Api, Game
from tests.support.workers import Setup, setup, stop, wait_for

__all__ = ["setup"]  # the fixture

pytestmark = pytest.mark.slow


def events(api: Api, game_id: str) -> list[dict[str, Any]]:
    r = api.get(f"/v1/games/{game_id}/events?limit=1000", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    found: list[dict[str, Any]] = r.get_json()["events"]
    return found


def status(api: Api, game_id: str) -> str:
    found: str = api.public(game_id)["status"]
    return found


def clocked(api: Api, players: int, seconds: int, on_timeout: str) -> Game:
    return api.start(players, clock={"turn_seconds": seconds, "on_timeout": on_timeout})


def test_a_four_bot_game_started_by_one_request_finishes_by_itself(setup: Setup) -> None:
    setup.worker()
    bots = [{"seat": s, "level": "basic" if s % 2 else "random"} for s in range(4)]
    game_id = setup.api.create(4, bots=bots)["id"]
    wait_for(lambda: status(setup.api, game_id) == "finished", "the bot game to end", 120)
    view = setup.api.public(game_id)
    assert view["winner"]
    moves = [e for e in events(setup.api, game_id) if e["type"] in ("CardsPassed", "CardPlayed")]
    assert all(e["actor"] == {"kind": "bot", "seat": e["data"]["seat"]} for e in moves)


def test_autoplay_at_the_deadline(setup: Setup) -> None:
    setup.worker()
    game = clocked(setup.api, 4, 2, "autoplay")
    setup.api.pass_cards(game, 0, setup.api.view(game, 0)["legal"][:3])
    wait_for(lambda: status(setup.api, game.id) == "playing", "the late passes to be made")
    found = events(setup.api, game.id)
    late = [e for e in found if e["type"] == "TurnTimedOut"]
    # Seat 0 passed in time; the worker may already be autoplaying later turns too.
    first = [e["data"]["seat"] for e in late[:3]]
    assert first == [1, 2, 3]
    assert all(e["actor"]["kind"] == "system" for e in late)
    passes = [(e["data"]["seat"], e["actor"]["kind"]) for e in found if e["type"] == "CardsPassed"]
    assert passes[0] == (0, "seat") and sorted(passes[1:]) == [(s, "system") for s in (1, 2, 3)]


def test_forfeit_at_the_deadline(setup: Setup) -> None:
    setup.worker()
    game = clocked(setup.api, 3, 3, "forfeit")
    setup.api.pass_cards(game, 1, setup.api.view(game, 1)["legal"][:3])
    wait_for(lambda: status(setup.api, game.id) == "finished", "the forfeit")
    view = setup.api.public(game.id)
    assert view["winner"] == [1]
    assert view["rounds"][-1]["reason"] == "forfeit"


def test_a_deadline_missed_while_no_worker_ran_is_acted_on_when_one_starts(
    setup: Setup,
) -> None:
    game = clocked(setup.api, 4, 1, "autoplay")
    deadline = datetime.fromisoformat(setup.api.public(game.id)["seats"][0]["deadline"])
    wait_for(lambda: datetime.now().astimezone() > deadline, "the deadline to pass")
    assert status(setup.api, game.id) == "passing"  # nobody acted: no worker runs
    setup.worker()
    wait_for(lambda: status(setup.api, game.id) == "playing", "the missed deadline")


def test_two_workers_racing_act_on_each_deadline_exactly_once(setup: Setup) -> None:
    setup.worker()
    setup.worker()
    games = [clocked(setup.api, 4, 1, "autoplay") for _ in range(6)]
    for game in games:
        game_id = game.id
        wait_for(lambda: status(setup.api, game_id) != "passing", "the passes", 90)  # noqa: B023
    for game in games:
        found = events(setup.api, game.id)
        exchanged = next(i for i, e in enumerate(found) if e["type"] == "PassesExchanged")
        late = [e["data"]["seat"] for e in found[:exchanged] if e["type"] == "TurnTimedOut"]
        assert sorted(late) == [0, 1, 2, 3]  # each seat once, not once per worker


def test_a_worker_killed_mid_job_leaves_it_to_another_done_once(
    setup: Setup, database_url: str
) -> None:
    """The first worker claims the game and blocks in its command's commit (the test
    holds the game's row); it is killed with SIGKILL and its connection dropped, as the
    server does for a dead client. A second worker takes the game when the lease ends."""
    game = clocked(setup.api, 4, 1, "autoplay")
    with (
        psycopg.connect(setup.url) as holder,
        psycopg.connect(setup.url, autocommit=True) as watcher,
    ):
        holder.execute("SELECT 1 FROM games WHERE id = %s FOR UPDATE", (game.id,))
        first = setup.worker()

        def blocked() -> Any:
            return watcher.execute(
                "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND datname = current_database()"
            ).fetchall()

        waiting = wait_for(blocked, "the first worker to block in its commit")
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=30)
        for (pid,) in waiting:
            watcher.execute("SELECT pg_terminate_backend(%s)", (pid,))
        holder.rollback()
    assert status(setup.api, game.id) == "passing"  # the killed worker's job did not commit
    setup.worker()
    wait_for(lambda: status(setup.api, game.id) == "playing", "another worker to take it over")
    found = events(setup.api, game.id)
    exchanged = next(i for i, e in enumerate(found) if e["type"] == "PassesExchanged")
    late = [e["data"]["seat"] for e in found[:exchanged] if e["type"] == "TurnTimedOut"]
    assert sorted(late) == [0, 1, 2, 3]


def test_a_bot_takes_over_after_leave(setup: Setup) -> None:
    setup.worker()
    game = setup.api.start(4)
    assert setup.api.post(f"/v1/games/{game.id}/leave", **game.seat_headers(3)).status_code == 200

    def bot_passed() -> bool:
        return any(
            e["type"] == "CardsPassed" and e["actor"] == {"kind": "bot", "seat": 3}
            for e in events(setup.api, game.id)
        )

    wait_for(bot_passed, "the bot to pass for the seat")


def test_sigterm_stops_the_worker_cleanly(setup: Setup) -> None:
    worker = setup.worker()
    wait_for(lambda: "started" in worker.output(), "the worker to start")
    assert stop(worker) == 0
    out = worker.output()
    assert "stopped" in out and "Traceback" not in out


def test_a_worker_without_its_database_retries_and_stops_cleanly(setup: Setup) -> None:
    worker = setup.worker(DATABASE_URL="postgresql://nobody:x@127.0.0.1:9/none")
    wait_for(lambda: "trying again" in worker.output(), "the worker to retry")
    assert worker.process.poll() is None  # still running, backing off
    assert stop(worker) == 0
