"""Webhooks end to end (docs/api.md: Webhooks): endpoints over HTTP, deliveries written
with the events and sent by a real `yokai worker` process to a real receiver on
127.0.0.1, which verifies every signature with the `standardwebhooks` package."""

from __future__ import annotations

import random
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from sqlalchemy import create_engine, text

from service.adapters.postgres.engine import sqlalchemy_url
from service.application.jobs.housekeeping import Housekeeping
from service.application.webhooks.delivery import DISABLE_AFTER
from service.application.webhooks.ports import WebhookAttempt, WebhookDelivery
from tests.support.api import OPERATOR, Api, bearer
from tests.support.waiting import wait_for
from tests.support.webhook_receiver import receiving
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture

ALL = ["turn", "game_started", "round_finished", "game_finished"]


def new_player(api: Api, name: str = "Mio") -> str:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    token: str = r.get_json()["token"]
    return token


def register(api: Api, token: str, url: str, events: list[str] = ALL) -> dict[str, Any]:
    r = api.post("/v1/webhooks", {"url": url, "events": events}, **bearer(token))
    assert r.status_code == 201, r.get_json()
    made: dict[str, Any] = r.get_json()
    return made


# --- endpoints (the suite's app: private addresses refused) ---------------------------


def test_a_player_registers_lists_reads_and_deletes_a_webhook(api: Api) -> None:
    me = new_player(api)
    made = register(api, me, "https://93.184.216.34/hook", ["turn"])
    assert made["secret"].startswith("whsec_") and made["enabled"] is True
    listed = api.get("/v1/webhooks", **bearer(me)).get_json()["webhooks"]
    assert [w["id"] for w in listed] == [made["id"]] and "secret" not in listed[0]
    got = api.get(f"/v1/webhooks/{made['id']}", **bearer(me)).get_json()
    assert got["url"] == "https://93.184.216.34/hook" and got["events"] == ["turn"]
    assert api.get(f"/v1/webhooks/{made['id']}/deliveries", **bearer(me)).get_json() == {
        "deliveries": []
    }
    # Another player's, or the operators', are not this player's to see or delete.
    other = new_player(api, "Ren")
    assert api.get(f"/v1/webhooks/{made['id']}", **bearer(other)).status_code == 404
    assert api.client.delete(f"/v1/webhooks/{made['id']}", headers=OPERATOR).status_code == 404
    assert api.client.delete(f"/v1/webhooks/{made['id']}", headers=bearer(me)).status_code == 204
    assert api.get(f"/v1/webhooks/{made['id']}", **bearer(me)).status_code == 404


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9000/hook",
        "http://localhost/hook",
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
        "ftp://example.com/hook",
        "https://user:pass@example.com/hook",
    ],
)
def test_a_forbidden_url_is_refused_with_422(api: Api, url: str) -> None:
    me = new_player(api)
    r = api.post("/v1/webhooks", {"url": url, "events": ["turn"]}, **bearer(me))
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["code"] == "webhook_url_forbidden"


def test_bad_requests_for_webhooks(api: Api) -> None:
    me = new_player(api)
    r = api.post(
        "/v1/webhooks", {"url": "https://93.184.216.34/h", "events": ["nap"]}, **bearer(me)
    )
    assert (r.status_code, r.get_json()["code"]) == (422, "unknown_event")
    r = api.post("/v1/webhooks", {"url": "https://93.184.216.34/h", "events": []}, **bearer(me))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_request")
    r = api.post("/v1/webhooks", {"url": "ftp://93.184.216.34/h", "events": ["turn"]}, **bearer(me))
    assert (r.status_code, r.get_json()["code"]) == (422, "webhook_url_forbidden")
    assert (
        api.post("/v1/webhooks", {"url": "https://93.184.216.34/h", "events": ["turn"]}).status_code
        == 401
    )
    game = api.start(3)
    r = api.post(
        "/v1/webhooks",
        {"url": "https://93.184.216.34/h", "events": ["turn"]},
        **game.seat_headers(0),
    )
    assert r.status_code == 403
    assert api.get("/v1/webhooks/not-a-uuid", **bearer(me)).status_code == 404


def test_webhook_commands_are_done_once_per_idempotency_key(api: Api) -> None:
    """Creating and deleting a webhook go through the write path like every command
    (issue 27): a retry under the same key replays the first outcome, the secret too."""
    me = new_player(api)
    key = {"Idempotency-Key": str(uuid4())}
    hook = {"url": "https://93.184.216.34/hook", "events": ["turn", "game_finished"]}
    first = api.client.post("/v1/webhooks", json=hook, headers={**bearer(me), **key})
    again = api.client.post("/v1/webhooks", json=hook, headers={**bearer(me), **key})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.get_json() == first.get_json()
    listed = api.get("/v1/webhooks", **bearer(me)).get_json()["webhooks"]
    assert [w["id"] for w in listed] == [first.get_json()["id"]]
    other = {**hook, "events": ["turn"]}
    r = api.client.post("/v1/webhooks", json=other, headers={**bearer(me), **key})
    assert (r.status_code, r.get_json()["code"]) == (422, "idempotency_key_reused")
    # A refusal under a key is given again the same way.
    refused = {"url": "ftp://93.184.216.34/hook", "events": ["turn"]}
    bad = {"Idempotency-Key": str(uuid4())}
    for _ in range(2):
        r = api.client.post("/v1/webhooks", json=refused, headers={**bearer(me), **bad})
        assert (r.status_code, r.get_json()["code"]) == (422, "webhook_url_forbidden")
    gone = f"/v1/webhooks/{first.get_json()['id']}"
    deleting = {**bearer(me), "Idempotency-Key": str(uuid4())}
    assert api.client.delete(gone, headers=deleting).status_code == 204
    assert api.client.delete(gone, headers=deleting).status_code == 204  # replayed
    assert api.client.delete(gone, headers=bearer(me)).status_code == 404  # done once
    r = api.client.delete(gone, headers={**bearer(me), "Idempotency-Key": "\x01"})
    assert (r.status_code, r.get_json()["code"]) == (400, "invalid_idempotency_key")
    # Without a token the answer is 401 whatever the key (schemathesis found a 400 here).
    short = {"Idempotency-Key": "k"}
    r = api.client.post("/v1/webhooks", json=hook, headers=short)
    assert (r.status_code, r.get_json()["code"]) == (401, "missing_token")
    r = api.client.delete(gone, headers=short)
    assert (r.status_code, r.get_json()["code"]) == (401, "missing_token")


# --- deliveries (a real worker, a real receiver) ---------------------------------------


def played_out(setup: Setup, player: str) -> tuple[str, list[tuple[int, int]]]:
    """A three-player game where ``player`` holds seat 0, played to its end at random;
    the (version, seat) of every turn of seat 0, as the views show them."""
    api = setup.api
    game_id = api.create(3)["id"]
    r = api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(player))
    assert r.status_code == 201
    tokens = [r.get_json()["token"], api.join(game_id, 1), api.join(game_id, 2)]
    rng = random.Random(5)
    turns: list[tuple[int, int]] = []
    last_key: object = None
    while True:
        view = api.public(game_id)
        if view["status"] == "finished":
            return game_id, turns
        r0 = view["round"]
        key = (
            ("pass", r0["number"])
            if view["status"] == "passing"
            else ("play", r0["number"], r0["tricks_played"], len(r0["trick"]))
        )
        due0 = (view["status"] == "passing" and not view["seats"][0]["passed"]) or (
            view["status"] == "playing" and r0["turn"] == 0
        )
        if key != last_key and due0:
            turns.append((view["version"], 0))
        last_key = key
        for seat in range(3):
            seat_view = api.client.get(
                f"/v1/games/{game_id}/view", headers=bearer(tokens[seat])
            ).get_json()
            legal = seat_view["legal"]
            if not legal:
                continue
            if seat_view["action"] == "pass":
                api.post(
                    f"/v1/games/{game_id}/pass",
                    {"cards": rng.sample(legal, 3)},
                    **bearer(tokens[seat]),
                )
            else:
                api.post(
                    f"/v1/games/{game_id}/play", {"card": rng.choice(legal)}, **bearer(tokens[seat])
                )
            break


def test_every_turn_of_a_whole_game_arrives_signed_and_nothing_else(setup: Setup) -> None:
    setup.worker()
    player = new_player(setup.api)
    with receiving() as receiver:
        made = register(setup.api, player, receiver.url, ["turn", "game_finished"])
        receiver.secret = made["secret"]
        game_id, turns = played_out(setup, player)
        # A refused command appends nothing and tells nothing.
        assert setup.api.post(
            f"/v1/games/{game_id}/play", {"card": "green-1"}, **bearer(player)
        ).status_code in (403, 409)
        got = receiver.wait_for(len(turns) + 1)

        def logged() -> list[dict[str, Any]]:
            r = setup.api.get(f"/v1/webhooks/{made['id']}/deliveries?limit=500", **bearer(player))
            found: list[dict[str, Any]] = r.get_json()["deliveries"]
            return found

        # Every delivery was written with its commit, so the log holds them all once
        # they are done: as many attempts as arrived, all answered at the first try.
        log = wait_for(lambda: len(logged()) >= len(turns) + 1 and logged(), "the log")
        assert len(log) == len(turns) + 1 == len(receiver.received)
    assert all(r.verified for r in got)
    told = sorted((m.message["data"]["version"], m.message["type"]) for m in got)
    assert [(v, "turn") for v, _ in turns] == [t for t in told if t[1] == "turn"]
    assert [t[1] for t in told].count("game_finished") == 1
    assert len(got) == len(turns) + 1
    assert all(m.message["data"]["game_id"] == game_id for m in got)
    assert len({r.headers["webhook-id"] for r in got}) == len(got)


def test_a_failing_receiver_gets_retries_with_the_same_message_id(setup: Setup) -> None:
    setup.worker()
    player = new_player(setup.api)
    with receiving() as receiver:
        receiver.answers = [500, 503]
        made = register(setup.api, player, receiver.url, ["game_started"])
        receiver.secret = made["secret"]
        game_id = setup.api.create(3)["id"]
        setup.api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(player))
        setup.api.join(game_id, 1)
        setup.api.join(game_id, 2)
        got = receiver.wait_for(3)
    assert [r.answered for r in got] == [500, 503, 204]
    assert len({r.headers["webhook-id"] for r in got}) == 1

    def logged() -> list[dict[str, Any]]:
        r = setup.api.get(f"/v1/webhooks/{made['id']}/deliveries", **bearer(player))
        found: list[dict[str, Any]] = r.get_json()["deliveries"]
        return found

    # The receiver answers before the worker records the attempt: wait for the record.
    attempts = wait_for(lambda: len(logged()) >= 3 and logged(), "the third attempt's record")
    assert [a["status"] for a in attempts] == [204, 503, 500]  # newest first
    assert attempts[0]["next_attempt_at"] is None and attempts[1]["next_attempt_at"] is not None


def test_a_worker_killed_during_a_delivery_leaves_it_to_another(setup: Setup) -> None:
    """At least once: the receiver holds the first attempt open, the worker is killed
    (SIGKILL); another worker delivers it again, with the same webhook-id, once the
    claim's lease ends."""
    first = setup.worker()
    player = new_player(setup.api)
    with receiving() as receiver:
        receiver.hang = 5.0
        made = register(setup.api, player, receiver.url, ["game_started"])
        receiver.secret = made["secret"]
        game_id = setup.api.create(3)["id"]
        setup.api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(player))
        setup.api.join(game_id, 1)
        setup.api.join(game_id, 2)
        receiver.wait_started(1)  # the first attempt is held open by the receiver
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=30)
        receiver.hang = 0.0
        setup.worker()
        got = receiver.wait_for(2, timeout=90)
    assert got[0].headers["webhook-id"] == got[1].headers["webhook-id"]
    assert all(r.verified for r in got)


def test_a_slow_endpoint_does_not_hold_up_another(setup: Setup) -> None:
    """The slow endpoint holds its delivery open; a delivery to another endpoint, made
    after it, arrives meanwhile."""
    setup.worker()
    slow_player, fast_player = new_player(setup.api, "Slow"), new_player(setup.api, "Fast")
    with receiving() as slow, receiving() as fast:
        slow.hang = 8.0
        slow.secret = register(setup.api, slow_player, slow.url, ["game_started"])["secret"]
        fast.secret = register(setup.api, fast_player, fast.url, ["game_started"])["secret"]
        for player, waiting in ((slow_player, slow), (fast_player, None)):
            game_id = setup.api.create(3)["id"]
            setup.api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(player))
            setup.api.join(game_id, 1)
            setup.api.join(game_id, 2)
            if waiting is not None:
                waiting.wait_started(1)  # the slow delivery is in flight
        (got,) = fast.wait_for(1)
        assert got.verified and slow.received == []  # still held open by the slow one
        slow.hang = 0.0


def test_an_endpoint_failing_for_days_is_disabled_and_says_so(setup: Setup) -> None:
    """Recorded failures three days apart (the store's own clock is not faked: the
    attempts carry their times) disable the endpoint; its listing says so."""
    player = new_player(setup.api)
    made = register(setup.api, player, "http://127.0.0.1:9/never", ["turn"])
    deps = setup.deps
    start = datetime.now(UTC) - timedelta(days=4)
    for when in (start, start + DISABLE_AFTER + timedelta(hours=1)):
        delivery = WebhookDelivery(0, UUID(made["id"]), "msg_x", "", "", {}, start, 0)
        attempt = WebhookAttempt("msg_x", "turn", when, None, "connection refused", None)
        with deps.uow() as uow:
            uow.webhooks.record(
                [(delivery, attempt, False)], disable_failing_since=when - DISABLE_AFTER
            )
            uow.commit()
    got = setup.api.get(f"/v1/webhooks/{made['id']}", **bearer(player)).get_json()
    assert got["enabled"] is False and got["disabled_at"] is not None
    assert "failed since" in got["disabled_reason"]


def test_a_success_clears_a_failure_recorded_before_it(setup: Setup) -> None:
    """The last attempt of an endpoint decides whether it is failing: a success in the
    same batch after a failure, or in a later batch (a delivery claimed before another
    worker recorded the failure), clears ``failing_since``, so a failure days later does
    not disable an endpoint that worked in between."""
    player = new_player(setup.api)
    made = register(setup.api, player, "http://127.0.0.1:9/sometimes", ["turn"])
    hook = UUID(made["id"])
    start = datetime.now(UTC) - timedelta(days=4)

    def record(*attempts: tuple[datetime, int | None]) -> dict[str, Any]:
        rows = []
        for when, status in attempts:
            delivery = WebhookDelivery(0, hook, "msg_y", "", "", {}, start, 0)
            error = None if status == 200 else "connection refused"
            rows.append((delivery, WebhookAttempt("msg_y", "turn", when, status, error, None)))
        with setup.deps.uow() as uow:
            uow.webhooks.record(
                [(d, a, a.status == 200) for d, a in rows],
                disable_failing_since=attempts[-1][0] - DISABLE_AFTER,
            )
            uow.commit()
        got: dict[str, Any] = setup.api.get(f"/v1/webhooks/{hook}", **bearer(player)).get_json()
        return got

    assert record((start, None))["failing_since"] is not None
    assert record((start + timedelta(minutes=1), 200))["failing_since"] is None
    assert record((start, None), (start + timedelta(minutes=2), 200))["failing_since"] is None
    later = record((start + DISABLE_AFTER + timedelta(hours=1), None))
    assert later["enabled"] is True and later["failing_since"] is not None


def _outbox(setup: Setup, game_id: str) -> list[tuple[str, int, int | None]]:
    """The game's deliveries in the outbox: (type, version, seat)."""
    engine = create_engine(sqlalchemy_url(setup.url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT payload->>'type', (payload->'data'->>'version')::int, "
                    "(payload->'data'->>'seat')::int FROM outbox WHERE game_id = :g"
                ),
                {"g": game_id},
            )
            return [(r[0], r[1], r[2]) for r in rows]
    finally:
        engine.dispose()


def test_an_operators_webhook_hears_every_game_and_a_lost_race_writes_nothing(
    setup: Setup,
) -> None:
    """An operator's endpoint hears games nobody registered for (anonymous seats); when
    eight clients of the seat to move play at once, the outbox holds the deliveries of
    the one command that committed, and none of the commands that lost (their fan-out
    was part of the statement that failed)."""
    api = setup.api
    made = register(api, OPERATOR["Authorization"].split()[1], "http://127.0.0.1:9/ops")
    listed = api.get("/v1/webhooks", **OPERATOR).get_json()["webhooks"]
    assert [w["id"] for w in listed] == [made["id"]]
    game = api.start(4, seed=3, scoring="basic")
    rng = random.Random(3)
    for seat in range(4):
        r = api.pass_cards(game, seat, rng.sample(api.view(game, seat)["legal"], 3))
        assert r.status_code == 200
    before = api.public(game.id)
    seat = before["round"]["turn"]
    legal = api.view(game, seat)["legal"]
    app = api.client.application
    barrier = threading.Barrier(8)

    def play(card: str) -> int:
        client = app.test_client()
        barrier.wait(timeout=60)
        r = client.post(
            f"/v1/games/{game.id}/play", json={"card": card}, headers=game.seat_headers(seat)
        )
        return r.status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(play, [legal[i % len(legal)] for i in range(8)]))
    assert codes.count(200) == 1, codes
    after = api.public(game.id)
    assert after["version"] == before["version"] + 1
    rows = _outbox(setup, game.id)
    assert len(rows) == len(set(rows))  # nothing twice
    assert {v for _, v, _ in rows} <= set(range(1, after["version"] + 1))
    assert [r for r in rows if r[1] == after["version"]] == [
        ("turn", after["version"], after["round"]["turn"])
    ]
    assert [r for r in rows if r[0] == "game_started"] != []  # heard with no player seated


def test_a_player_who_left_hears_no_more_of_the_game(setup: Setup) -> None:
    """A player's webhooks hear of the games where the player holds a seat: after
    leaving (a bot holds the seat), not even the game's end reaches them."""
    api = setup.api
    player = new_player(api)
    made = register(api, player, "http://127.0.0.1:9/left", ALL)
    game_id = api.create(4)["id"]
    assert api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(player)).status_code == 201
    tokens = [api.join(game_id, seat) for seat in (1, 2, 3)]
    left = api.post(f"/v1/games/{game_id}/leave", {}, **bearer(player))
    assert left.status_code == 200, left.get_json()
    ended = api.post(f"/v1/games/{game_id}/resign", {}, **bearer(tokens[0]))
    assert ended.status_code == 200, ended.get_json()
    assert api.public(game_id)["status"] == "finished"
    engine = create_engine(sqlalchemy_url(setup.url))
    try:
        with engine.connect() as conn:
            heard = [
                r[0]
                for r in conn.execute(
                    text("SELECT payload->>'type' FROM outbox WHERE webhook_id = :w"),
                    {"w": made["id"]},
                )
            ]
    finally:
        engine.dispose()
    assert sorted(heard) == ["game_started", "turn"]  # while seated; nothing after leaving


def test_housekeeping_forgets_finished_deliveries_and_old_attempts(setup: Setup) -> None:
    """Finished deliveries (delivered or given up) and logged attempts older than the
    retention go, a batch at a time; deliveries still due and recent rows stay."""
    player = new_player(setup.api)
    hook = register(setup.api, player, "http://127.0.0.1:9/kept", ["turn"])["id"]
    now = datetime.now(UTC)
    old, recent = now - timedelta(days=8), now - timedelta(days=1)
    engine = create_engine(sqlalchemy_url(setup.url), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            for n, (created, done) in enumerate(
                [(old, old), (old, old), (old, None), (recent, recent)]
            ):
                conn.execute(
                    text(
                        "INSERT INTO outbox (kind, payload, created_at, available_at, done_at, "
                        "webhook_id, message_id) VALUES ('webhook', '{}', :c, :c, :d, :w, :m)"
                    ),
                    {"c": created, "d": done, "w": hook, "m": f"msg_keep{n}"},
                )
            for n, at in enumerate([old, old, old, recent]):
                conn.execute(
                    text(
                        "INSERT INTO webhook_attempts (webhook_id, message_id, event_type, "
                        "attempted_at, status) VALUES (:w, :m, 'turn', :a, 200)"
                    ),
                    {"w": hook, "m": f"msg_keep{n}", "a": at},
                )
        job = Housekeeping(webhook_keep=timedelta(days=7), batch=2)
        assert job.run_due(setup.deps) == 1
        with engine.connect() as conn:
            kept = conn.execute(
                text("SELECT message_id FROM outbox WHERE webhook_id = :w ORDER BY message_id"),
                {"w": hook},
            )
            assert [r[0] for r in kept] == ["msg_keep2", "msg_keep3"]  # still due; recent
            logged = conn.execute(
                text("SELECT message_id FROM webhook_attempts WHERE webhook_id = :w"),
                {"w": hook},
            )
            assert [r[0] for r in logged] == ["msg_keep3"]
    finally:
        engine.dispose()
