"""Real `yokai worker` processes against PostgreSQL (docs/api.md: Turn clocks, Bots).

Clocks here are seconds long; the tests wait for outcomes with deadlines and assert
outcomes, never timings. Every process a test starts is stopped by the fixture that
started it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.api import OPERATOR, OPERATOR_TOKEN, Api, Game, bearer
from tests.support.ports import free_port
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import receiving
from tests.support.workers import YOKAI, Setup, setup

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
    assert worker.stop(30) == 0
    out = worker.output()
    assert "stopped" in out and "Traceback" not in out


def test_a_worker_without_its_database_retries_and_stops_cleanly(setup: Setup) -> None:
    worker = setup.worker(DATABASE_URL="postgresql://nobody:x@127.0.0.1:9/none")
    wait_for(lambda: "trying again" in worker.output(), "the worker to retry")
    assert worker.process.poll() is None  # still running, backing off
    assert worker.stop(30) == 0


# --- liveness: the heartbeat, and `yokai worker --check-alive` --------------------------


def check_alive(heartbeat: Path, max_age: float = 3) -> int:
    """The probe the containers run, with a short ``max_age`` (the default is a minute)."""
    done = subprocess.run(
        [*YOKAI, "worker", "--check-alive", "--max-age", str(max_age)],
        env={**os.environ, "YOKAI_WORKER_HEARTBEAT": str(heartbeat)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done.returncode


def test_check_alive_fails_while_the_worker_is_stuck_in_a_job_and_passes_again_after(
    setup: Setup, tmp_path: Path
) -> None:
    """The worker claims a game and blocks in its command's commit (the test holds the
    game's row): its loop stops turning, so the check fails; once the row is let go the
    job ends and the check passes again."""
    heartbeat = tmp_path / "heartbeat"
    assert check_alive(heartbeat) == 1  # no worker has beaten yet
    worker = setup.worker(YOKAI_WORKER_HEARTBEAT=str(heartbeat))
    wait_for(lambda: check_alive(heartbeat) == 0, "the worker's first heartbeat")
    game = clocked(setup.api, 4, 1, "autoplay")
    with psycopg.connect(setup.url) as holder:
        holder.execute("SELECT 1 FROM games WHERE id = %s FOR UPDATE", (game.id,))
        wait_for(lambda: check_alive(heartbeat) == 1, "the check to see the worker stuck")
        assert worker.process.poll() is None
        holder.rollback()
    wait_for(lambda: status(setup.api, game.id) != "passing", "the job to finish")
    wait_for(lambda: check_alive(heartbeat) == 0, "the worker to beat again")
    assert worker.stop(30) == 0


def test_a_worker_waiting_for_its_database_is_still_alive(setup: Setup, tmp_path: Path) -> None:
    """Restarting it would not bring the database back: it keeps beating while it
    retries."""
    heartbeat = tmp_path / "heartbeat"
    worker = setup.worker(
        DATABASE_URL="postgresql://nobody:x@127.0.0.1:9/none",
        YOKAI_WORKER_HEARTBEAT=str(heartbeat),
    )
    wait_for(lambda: "trying again" in worker.output(), "the worker to retry")
    first = heartbeat.stat().st_mtime
    wait_for(lambda: heartbeat.stat().st_mtime > first, "another heartbeat while retrying")
    assert check_alive(heartbeat) == 0
    assert worker.stop(30) == 0


# --- the stand-alone worker's metrics ---------------------------------------------------


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int) -> Samples:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def metric(found: Samples, name: str, **labels: str) -> float | None:
    return found.get((name, tuple(sorted(labels.items()))))


def test_a_stand_alone_worker_serves_metrics_of_the_work_it_did(setup: Setup) -> None:
    """A real `yokai worker` with YOKAI_WORKER_METRICS_PORT plays a four-bot game and
    delivers the operators' webhooks (the first attempt refused): its metrics count the
    events it appended and each delivery by outcome, and give the store's gauges."""
    port = free_port()
    worker = setup.worker(
        YOKAI_WORKER_METRICS_PORT=str(port), YOKAI_WORKER_METRICS_HOST="127.0.0.1"
    )

    def scraped() -> Samples | None:
        try:
            return scrape(port)
        except OSError:
            return None

    before = wait_for(scraped, "the worker's metrics port")
    for outcome in ("delivered", "failed", "error"):
        assert metric(before, "yokai_webhook_deliveries_total", outcome=outcome) == 0
    assert metric(before, "yokai_events_appended_total") == 0
    with receiving() as receiver:
        receiver.answers = [500]  # game_started: refused once, then delivered
        r = setup.api.post(
            "/v1/webhooks",
            {"url": receiver.url, "events": ["game_started", "game_finished"]},
            **bearer(OPERATOR_TOKEN),
        )
        assert r.status_code == 201, r.get_json()
        receiver.secret = r.get_json()["secret"]
        created = setup.api.create(4, bots=[{"seat": s, "level": "basic"} for s in range(4)])
        wait_for(lambda: status(setup.api, created["id"]) == "finished", "the bot game", 120)
        got = receiver.wait_for(3)
    assert sorted(m.answered for m in got) == [204, 204, 500] and all(m.verified for m in got)
    worker_events = setup.api.public(created["id"])["version"] - created["version"]
    assert worker_events > 0

    def counted() -> Samples | None:
        found = scrape(port)
        done = metric(found, "yokai_webhook_deliveries_total", outcome="delivered") == 2
        return found if done else None

    after = wait_for(counted, "the worker to count its deliveries")
    assert metric(after, "yokai_webhook_deliveries_total", outcome="failed") == 1
    assert metric(after, "yokai_webhook_deliveries_total", outcome="error") == 0
    assert metric(after, "yokai_events_appended_total") == worker_events
    # The store's gauges, read at the scrape: the game over, nothing due or waiting.
    assert metric(after, "yokai_games", status="finished") == 1
    assert metric(after, "yokai_jobs_due") == 0
    assert metric(after, "yokai_job_lag_seconds") == 0
    assert metric(after, "yokai_webhook_deliveries_pending") == 0
    assert worker.stop(30) == 0
    with pytest.raises(urllib.error.URLError):
        scrape(port)  # the port closes with the worker
