"""Edges found in review: refused retries, key scopes, strong If-Match, rate-limit keys,
request ids on 429s, and verify on an unmigrated database."""

from __future__ import annotations

import logging
import uuid
from dataclasses import replace

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import cli
from service.application.identity.principals import Operator
from service.bootstrap import build
from service.settings import Settings
from tests.support.api import Api, Game
from tests.support.deals import assert_problem, event_count, start_playing, version
from tests.support.postgres import MakeApp, new_database


def test_a_refused_command_is_refused_again_under_its_key(api: Api) -> None:
    game = start_playing(api)
    key = f"refused-{uuid.uuid4()}"
    first = api.play(game, 1, "purple-7", Idempotency_Key=key)  # seat 0 leads: not seat 1's turn
    assert_problem(first, 409, "not_your_turn")
    before = event_count(api, game)
    assert api.play(game, 0, "green-1").status_code == 200
    assert "purple-7" in api.view(game, 1)["legal"]  # seat 1 may play it now ...
    # ... but the same key and body get the original refusal.
    again = api.play(game, 1, "purple-7", Idempotency_Key=key)
    assert_problem(again, 409, "not_your_turn")
    assert again.get_json()["detail"] == first.get_json()["detail"]
    # The same key with another body is refused as a reused key.
    other = api.play(game, 1, "purple-8", Idempotency_Key=key)
    assert_problem(other, 422, "idempotency_key_reused")
    assert event_count(api, game) == before + 1


def test_an_anonymous_key_does_not_replay_another_clients_join(app: Flask, api: Api) -> None:
    game_id = api.create(4)["id"]
    key = f"join-{uuid.uuid4()}"
    path, body = f"/v1/games/{game_id}/seats/0", {"name": "alice"}
    alice = app.test_client()
    alice.environ_base["REMOTE_ADDR"] = "203.0.113.1"
    mallory = app.test_client()
    mallory.environ_base["REMOTE_ADDR"] = "203.0.113.66"

    first = alice.post(path, json=body, headers={"Idempotency-Key": key})
    retry = alice.post(path, json=body, headers={"Idempotency-Key": key})
    stolen = mallory.post(path, json=body, headers={"Idempotency-Key": key})

    assert first.status_code == retry.status_code == 201
    assert retry.get_json()["token"] == first.get_json()["token"]
    assert_problem(stolen, 409, "seat_taken")
    assert "token" not in stolen.get_json()


def test_who_may_act_is_checked_before_the_idempotency_key(api: Api) -> None:
    """A key this client used for a create, sent with an anonymous play: the play needs
    a seat token (401), whatever the key holds."""
    key = str(uuid.uuid4())
    created = api.post("/v1/games", {"players": 4}, Idempotency_Key=key)
    assert created.status_code == 201
    r = api.post(
        f"/v1/games/{created.get_json()['id']}/play", {"card": "red-3"}, Idempotency_Key=key
    )
    assert_problem(r, 401, "missing_token")


def test_if_match_compares_strongly(api: Api) -> None:
    game = start_playing(api)
    current = version(api, game)
    weak = api.play(game, 0, "green-1", If_Match=f'W/"{current}"')
    assert_problem(weak, 412, "stale_version")
    assert api.play(game, 0, "green-1", If_Match=f'"{current}"').status_code == 200


def test_made_up_tokens_share_the_callers_rate_limit(limited: FlaskClient) -> None:
    client = limited
    client.environ_base["REMOTE_ADDR"] = "198.51.100.7"
    statuses = [
        client.get("/v1/games", headers={"Authorization": f"Bearer made-up-{i}"}).status_code
        for i in range(6)
    ]
    assert statuses[:3] == [401, 401, 401]
    assert statuses[3:] == [429, 429, 429]


def test_a_429_carries_a_request_id_and_retry_after(limited: FlaskClient) -> None:
    client = limited
    client.environ_base["REMOTE_ADDR"] = "198.51.100.8"
    responses = [client.post("/v1/games", json={"players": 3}) for _ in range(4)]
    last = responses[-1]
    body = assert_problem(last, 429, "rate_limited")
    assert last.headers["Retry-After"]
    assert (last.headers["X-RateLimit-Limit"], last.headers["X-RateLimit-Remaining"]) == ("3", "0")
    assert responses[0].headers["X-RateLimit-Remaining"] == "2"
    assert last.headers["X-Request-Id"]
    assert body["request_id"] == last.headers["X-Request-Id"]


def test_verify_on_an_unmigrated_database_says_so(
    server_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", new_database(server_url, "yokai_unmigrated"))
    code = cli.main(["verify", "--all"])
    assert code == 2
    assert "revision" in capsys.readouterr().err


def test_verify_checks_its_arguments_before_touching_a_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(SystemExit, match="not a game id"):
        cli.main(["verify", "not-a-uuid"])


def test_the_limit_is_per_route_as_before(make_app: MakeApp) -> None:
    client = make_app(shared=True, rate_limit="3 per minute").client()
    game = client.post("/v1/games", json={"players": 4}).get_json()["id"]
    for _ in range(2):
        assert client.get(f"/v1/games/{game}").status_code == 200
    # A different route: its own budget under flask-limiter's default limits.
    r = client.get(f"/v1/games/{uuid.uuid4()}/events")
    assert r.status_code != 429, r.headers.get("X-RateLimit-Remaining")


def test_unrouted_paths_do_not_spend_the_budget(make_app: MakeApp) -> None:
    client = make_app(shared=True, rate_limit="3 per minute").client()
    for _ in range(3):
        assert client.get("/no/such/path").status_code == 404
    assert client.post("/v1/games", json={"players": 4}).status_code == 201


def test_an_anonymous_client_must_send_a_key_too_long_to_guess(app: Flask, api: Api) -> None:
    """Behind one NAT, clients share an address: a short, guessable key would let one
    replay another's join and get its seat token. Keys with a token are that token's."""
    game_id = api.create(4)["id"]
    path, body = f"/v1/games/{game_id}/seats/0", {"name": "alice"}
    client = app.test_client()
    short = client.post(path, json=body, headers={"Idempotency-Key": "join-0"})
    assert_problem(short, 400, "weak_idempotency_key")
    assert api.public(game_id)["seats"][0]["joined"] is False
    player = client.post("/v1/players", json={"name": "al"}, headers={"Idempotency-Key": "p" * 31})
    assert_problem(player, 400, "weak_idempotency_key")
    # A new game's answer holds no secret: any key will do (docs/api.md: commands take one).
    created = client.post("/v1/games", json={"players": 3}, headers={"Idempotency-Key": "c-1"})
    assert created.status_code == 201
    again = client.post("/v1/games", json={"players": 3}, headers={"Idempotency-Key": "c-1"})
    assert again.status_code == 201 and again.get_json()["id"] == created.get_json()["id"]
    joined = client.post(path, json=body, headers={"Idempotency-Key": str(uuid.uuid4())})
    assert joined.status_code == 201
    token = joined.get_json()["token"]
    game = Game(game_id, 4)
    game.tokens = [token]
    seat_key = api.post(
        f"/v1/games/{game_id}/leave", None, **game.seat_headers(0), Idempotency_Key="k"
    )
    assert seat_key.status_code != 400  # a seat's keys are scoped by its token


@pytest.mark.parametrize(
    ("command", "body"),
    [
        ("pass", {"cards": ["green-1", "green-2", "green-3"]}),
        ("play", {"card": "green-1"}),
        ("leave", None),
        ("resign", None),
        ("seats/1/bot", {"level": "basic"}),
    ],
)
def test_a_command_that_needs_a_token_says_so_before_judging_the_key(
    api: Api, command: str, body: dict[str, object] | None
) -> None:
    """Found by the fuzzer (tests/e2e/test_fuzz.py): without a token, a short key got 400
    `weak_idempotency_key` where the missing token is the problem (401)."""
    game = api.start(4)
    r = api.post(f"/v1/games/{game.id}/{command}", body, Idempotency_Key="k")
    assert_problem(r, 401, "missing_token")
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    imported = api.client.post(
        "/v1/games/import",
        data=b"x",
        headers={"Idempotency-Key": "k", "Content-Type": "text/plain"},
    )
    assert_problem(imported, 401, "missing_token")


def test_player_tokens_made_from_one_address_share_its_budget_for_joins(
    make_app: MakeApp,
) -> None:
    """Each player token has its own budget, but joins (and creations, and new players)
    also count against the address: minting players buys no extra seats."""
    client = make_app(shared=True, rate_limit="3 per minute").client()
    client.environ_base["REMOTE_ADDR"] = "198.51.100.7"
    players = [client.post("/v1/players", json={"name": f"p{i}"}) for i in range(3)]
    assert [p.status_code for p in players] == [201, 201, 201]
    assert client.post("/v1/players", json={"name": "p3"}).status_code == 429
    games = []
    other = make_app(shared=True, rate_limit="3 per minute").client()  # another address
    other.environ_base["REMOTE_ADDR"] = "198.51.100.8"
    for _ in range(2):
        games.append(other.post("/v1/games", json={"players": 4}).get_json()["id"])
    tokens = [p.get_json()["token"] for p in players]
    joins = [
        client.post(
            f"/v1/games/{games[i % 2]}/seats/{i}",
            json={},
            headers={"Authorization": f"Bearer {token}"},
        ).status_code
        for i, token in enumerate(tokens)
    ]
    fourth = client.post(
        f"/v1/games/{games[1]}/seats/3", json={}, headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    assert joins == [201, 201, 201]
    assert_problem(fourth, 429, "rate_limited")


def test_readyz_asks_the_database_at_most_once_a_second(app: Flask) -> None:
    health = app.extensions["yokai"].health
    calls = []
    original = health.ready

    def counted() -> tuple[bool, str]:
        calls.append(1)
        ready: tuple[bool, str] = original()
        return ready

    health.ready = counted
    try:
        client = app.test_client()
        answers = [client.get("/readyz").status_code for _ in range(20)]
    finally:
        health.ready = original
    assert answers == [200] * 20
    assert len(calls) <= 1


def test_a_short_operator_token_is_refused_at_a_strict_start_and_warned_of_otherwise(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """An operator token opens every hand and the audit: 32 characters or more. With
    YOKAI_STRICT_SECRETS=1 (the deployment files) a shorter one stops the start; without
    it (docs/api.md: any YOKAI_OPERATOR_TOKEN is the operator's) it works, warned of."""
    with pytest.raises(RuntimeError, match="at least 32"):
        build(replace(settings, operator_token="x" * 31, strict_secrets=True))
    with caplog.at_level(logging.WARNING):
        container = build(replace(settings, operator_token="x" * 31))
    try:
        assert "has 31 characters" in caplog.text
        assert isinstance(container.deps.identity.identify("x" * 31), Operator)
    finally:
        container.close()
    with pytest.raises(RuntimeError, match="empty"):
        build(replace(settings, operator_token=" "))
