"""Idempotent commands, checked in the database: a retried key replays the first response
and appends nothing, also after a restart (no memory in the process) and when the twins
arrive at the same instant; only digests of keys and tokens are ever stored."""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from service.adapters.postgres.idempotency import SqlIdempotencyStore
from tests.support.api import Api, Game, bearer
from tests.support.deals import PASSES_4P, assert_problem, start_ordered
from tests.support.postgres import MakeApp

Sql = Callable[..., list[Any]]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def count_events(sql: Sql, game_id: str) -> int:
    rows = sql("SELECT count(*) AS n FROM events WHERE game_id = :g", g=game_id)
    n: int = rows[0].n
    return n


def playing_game(api: Api, seed: int) -> Game:
    """A four-player game after the passes, in its first trick."""
    game = api.start(4, seed=seed)
    rng = random.Random(seed)
    for seat in range(4):
        r = api.pass_cards(game, seat, rng.sample(api.view(game, seat)["legal"], 3))
        assert r.status_code == 200, r.get_json()
    return game


def on_turn(api: Api, game: Game) -> tuple[int, list[str]]:
    """The seat that must play now and its legal cards."""
    seat: int = api.public(game.id)["round"]["turn"]
    return seat, api.view(game, seat)["legal"]


@pytest.fixture
def restarted(make_app: MakeApp) -> FlaskClient:
    """A client of a brand-new process: its own container, engine, state cache, app."""
    return make_app().client()


def test_a_retried_play_replays_the_first_response_even_after_the_game_moved_on(
    api: Api, sql: Sql
) -> None:
    game = playing_game(api, seed=301)
    seat, legal = on_turn(api, game)
    key = f"play-{uuid.uuid4()}"
    etag_before = f'"{api.public(game.id)["version"]}"'
    first = api.play(game, seat, legal[0], Idempotency_Key=key, If_Match=etag_before)
    assert first.status_code == 200, first.get_json()
    stored = count_events(sql, game.id)

    again = api.play(game, seat, legal[0], Idempotency_Key=key, If_Match=etag_before)
    assert again.status_code == 200
    assert again.get_json() == first.get_json()
    assert again.headers["ETag"] == first.headers["ETag"]
    assert count_events(sql, game.id) == stored

    # The next seat plays: a late retry still gets the first response, not a new one.
    nxt, nxt_legal = on_turn(api, game)
    assert api.play(game, nxt, nxt_legal[0]).status_code == 200
    moved = count_events(sql, game.id)
    assert moved == stored + 1
    # Even with the If-Match the first request carried, now stale: a replay, not a 412.
    late = api.play(game, seat, legal[0], Idempotency_Key=key, If_Match=etag_before)
    assert late.status_code == 200
    assert late.get_json() == first.get_json()
    assert late.headers["ETag"] == first.headers["ETag"]
    assert count_events(sql, game.id) == moved


def test_the_same_key_with_another_body_or_path_is_refused_and_appends_nothing(
    api: Api, sql: Sql
) -> None:
    game = playing_game(api, seed=302)
    seat, legal = on_turn(api, game)
    key = f"reuse-{uuid.uuid4()}"
    assert api.play(game, seat, legal[0], Idempotency_Key=key).status_code == 200
    stored = count_events(sql, game.id)
    hand = api.view(game, seat)["hand"]

    other_card = api.play(game, seat, hand[0], Idempotency_Key=key)
    other_path = api.pass_cards(game, seat, hand[:3], Idempotency_Key=key)

    for r in (other_card, other_path):
        assert_problem(r, 422, "idempotency_key_reused")
    assert count_events(sql, game.id) == stored


def test_a_retried_pass_replays_and_a_pass_without_the_key_is_a_second_pass(
    api: Api, sql: Sql
) -> None:
    game = start_ordered(api)
    key = f"pass-{uuid.uuid4()}"
    first = api.pass_cards(game, 2, PASSES_4P[2], Idempotency_Key=key)
    assert first.status_code == 200, first.get_json()
    stored = count_events(sql, game.id)

    for _ in range(2):
        again = api.pass_cards(game, 2, PASSES_4P[2], Idempotency_Key=key)
        assert (again.status_code, again.get_json()) == (200, first.get_json())
        assert again.headers["ETag"] == first.headers["ETag"]
    assert count_events(sql, game.id) == stored
    # Without the key the same pass is a second pass.
    assert_problem(api.pass_cards(game, 2, PASSES_4P[2]), 409, "already_passed")
    assert count_events(sql, game.id) == stored


def test_a_retried_join_returns_the_same_token_and_seats_once(api: Api, sql: Sql) -> None:
    game_id = api.create(4)["id"]
    key = f"join-{uuid.uuid4()}"
    path = f"/v1/games/{game_id}/seats/1"
    first = api.post(path, {"name": "ann"}, Idempotency_Key=key)
    assert first.status_code == 201
    again = api.post(path, {"name": "ann"}, Idempotency_Key=key)

    assert again.status_code == 201
    assert again.get_json() == first.get_json()
    assert again.headers["ETag"] == first.headers["ETag"]
    rows = sql("SELECT token_sha256 FROM seat_credentials WHERE game_id = :g", g=game_id)
    assert [r.token_sha256 for r in rows] == [sha256(first.get_json()["token"])]
    assert count_events(sql, game_id) == 2
    other = api.post(path, {"name": "bob"}, Idempotency_Key=key)
    assert_problem(other, 422, "idempotency_key_reused")
    # Without the key the same join is another join: the seat is taken.
    assert_problem(api.post(path, {"name": "ann"}), 409, "seat_taken")
    assert count_events(sql, game_id) == 2
    view = api.client.get(f"/v1/games/{game_id}/view", headers=bearer(first.get_json()["token"]))
    assert view.status_code == 200
    assert view.get_json()["seat"] == 1


def test_a_retry_after_a_restart_gets_the_original_response(
    api: Api, sql: Sql, restarted: FlaskClient
) -> None:
    """The replay comes from the database, not from the memory of the first process."""
    game_id = api.create(4)["id"]
    join_key = f"join-{uuid.uuid4()}"
    join_path = f"/v1/games/{game_id}/seats/0"
    joined = api.post(join_path, {"name": "bo"}, Idempotency_Key=join_key)
    assert joined.status_code == 201
    tokens = [joined.get_json()["token"]] + [api.join(game_id, s) for s in (1, 2, 3)]
    game = Game(game_id, 4, tokens)
    rng = random.Random(303)
    for seat in range(4):
        r = api.pass_cards(game, seat, rng.sample(api.view(game, seat)["legal"], 3))
        assert r.status_code == 200
    seat, legal = on_turn(api, game)
    play_key = f"play-{uuid.uuid4()}"
    played = api.play(game, seat, legal[-1], Idempotency_Key=play_key)
    assert played.status_code == 200
    stored = count_events(sql, game_id)

    join_again = restarted.post(
        join_path, json={"name": "bo"}, headers={"Idempotency-Key": join_key}
    )
    play_again = restarted.post(
        f"/v1/games/{game_id}/play",
        json={"card": legal[-1]},
        headers={**game.seat_headers(seat), "Idempotency-Key": play_key},
    )

    assert (join_again.status_code, join_again.get_json()) == (201, joined.get_json())
    assert join_again.headers["ETag"] == joined.headers["ETag"]
    assert (play_again.status_code, play_again.get_json()) == (200, played.get_json())
    assert play_again.headers["ETag"] == played.headers["ETag"]
    assert count_events(sql, game_id) == stored
    # A different body under the same key is still refused by the new process.
    refused = restarted.post(
        join_path, json={"name": "someone else"}, headers={"Idempotency-Key": join_key}
    )
    assert refused.status_code == 422
    assert refused.get_json()["code"] == "idempotency_key_reused"


def test_twin_requests_at_the_same_instant_store_one_play(api: Api, app: Flask, sql: Sql) -> None:
    """Six copies of one keyed play at once: one play is stored, and every copy that
    succeeds gets that play's response. (That every copy succeeds is the next test's
    subject: see the interleaving pinned there.)"""
    game = playing_game(api, seed=304)
    seat, legal = on_turn(api, game)
    key = f"twins-{uuid.uuid4()}"
    before = count_events(sql, game.id)
    twins = 6
    barrier = threading.Barrier(twins)

    def send(_: int) -> TestResponse:
        client = app.test_client()
        barrier.wait(timeout=60)
        return client.post(
            f"/v1/games/{game.id}/play",
            json={"card": legal[0]},
            headers={**game.seat_headers(seat), "Idempotency-Key": key},
        )

    with ThreadPoolExecutor(max_workers=twins) as pool:
        responses = list(pool.map(send, range(twins)))

    succeeded = [r for r in responses if r.status_code == 200]
    assert succeeded
    assert all(r.status_code < 500 for r in responses)
    assert all(r.get_json() == succeeded[0].get_json() for r in succeeded)
    assert len({r.headers["ETag"] for r in succeeded}) == 1
    rows = sql(
        "SELECT type FROM events WHERE game_id = :g AND seq > :v ORDER BY seq",
        g=game.id,
        v=before,
    )
    assert [r.type for r in rows] == ["CardPlayed"]


@pytest.mark.parametrize("command", ["play", "join"])
def test_a_twin_that_arrives_while_the_first_is_deciding_gets_the_replay(
    api: Api, app: Flask, sql: Sql, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """The interleaving that the race above sometimes meets, made certain: the first copy
    is paused right after its key lookup (found nothing); its twin arrives meanwhile and
    must wait for it, then replay its response rather than decide on the new state."""
    if command == "play":
        game = playing_game(api, seed=307)
        seat, legal = on_turn(api, game)
        path, body, headers = (
            f"/v1/games/{game.id}/play",
            {"card": legal[0]},
            game.seat_headers(seat),
        )
        game_id = game.id
    else:
        game_id = api.create(4)["id"]
        path, body, headers = f"/v1/games/{game_id}/seats/2", {"name": "twin"}, {}
    key = f"late-{uuid.uuid4()}"
    looked_up = threading.Event()
    release = threading.Event()
    real_get = SqlIdempotencyStore.get
    calls: list[object] = []

    def paused_get(self: SqlIdempotencyStore, scope: str, key_sha256: str) -> Any:
        found = real_get(self, scope, key_sha256)
        calls.append(found)
        if len(calls) == 1:  # the first copy: it found nothing yet
            assert found is None
            looked_up.set()
            assert release.wait(timeout=60)
        return found

    monkeypatch.setattr(SqlIdempotencyStore, "get", paused_get)
    waiting_before = _advisory_waiters(sql)

    def send() -> TestResponse:
        return app.test_client().post(path, json=body, headers={**headers, "Idempotency-Key": key})

    with ThreadPoolExecutor(max_workers=2) as pool:
        first = pool.submit(send)
        assert looked_up.wait(timeout=60)
        twin = pool.submit(send)
        # The twin is now blocked on the key's lock, behind the first copy.
        for _ in range(600):
            if _advisory_waiters(sql) > waiting_before:
                break
            threading.Event().wait(0.05)
        else:
            raise AssertionError("the twin never waited for the first copy")
        before = count_events(sql, game_id)
        release.set()
        first_response, twin_response = first.result(), twin.result()

    assert first_response.status_code in (200, 201), first_response.get_json()
    assert twin_response.status_code == first_response.status_code, twin_response.get_json()
    assert twin_response.get_json() == first_response.get_json()
    assert count_events(sql, game_id) > before  # the first copy appended ...
    assert calls[1] is not None  # ... and the twin found its stored response


def _advisory_waiters(sql: Sql) -> int:
    rows = sql("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")
    return int(rows[0].n)


def test_twin_creates_at_the_same_instant_make_one_game(api: Api, app: Flask, sql: Sql) -> None:
    key = f"create-{uuid.uuid4()}"
    games_before = sql("SELECT count(*) AS n FROM games")[0].n
    twins = 6
    barrier = threading.Barrier(twins)

    def send(_: int) -> TestResponse:
        client = app.test_client()
        barrier.wait(timeout=60)
        return client.post("/v1/games", json={"players": 3}, headers={"Idempotency-Key": key})

    with ThreadPoolExecutor(max_workers=twins) as pool:
        responses = list(pool.map(send, range(twins)))

    assert [r.status_code for r in responses] == [201] * twins
    assert all(r.get_json() == responses[0].get_json() for r in responses)
    assert len({r.headers["Location"] for r in responses}) == 1
    # A later retry replays the same game too; another body under the key is refused.
    later = api.post("/v1/games", {"players": 3}, Idempotency_Key=key)
    assert (later.status_code, later.get_json()) == (201, responses[0].get_json())
    assert later.headers["Location"] == responses[0].headers["Location"]
    other = api.post("/v1/games", {"players": 4}, Idempotency_Key=key)
    assert_problem(other, 422, "idempotency_key_reused")
    assert sql("SELECT count(*) AS n FROM games")[0].n == games_before + 1
    assert count_events(sql, responses[0].get_json()["id"]) == 1


def test_a_key_is_private_to_its_client(api: Api, sql: Sql) -> None:
    """Another seat sending the same key gets its own command done, never the first
    seat's response (which would show it that seat's hand)."""
    game = playing_game(api, seed=305)
    key = f"shared-{uuid.uuid4()}"
    first_seat, legal = on_turn(api, game)
    first = api.play(game, first_seat, legal[0], Idempotency_Key=key)
    assert first.status_code == 200
    second_seat, second_legal = on_turn(api, game)
    assert second_seat != first_seat
    before = count_events(sql, game.id)

    second = api.play(game, second_seat, second_legal[0], Idempotency_Key=key)

    assert second.status_code == 200, second.get_json()
    assert second.get_json()["seat"] == second_seat
    assert second_legal[0] not in second.get_json()["hand"]
    assert count_events(sql, game.id) > before


def test_events_store_the_sha256_of_the_key_not_the_key(api: Api, sql: Sql) -> None:
    game = playing_game(api, seed=306)
    seat, legal = on_turn(api, game)
    key = f"digest-{uuid.uuid4()}"
    before = count_events(sql, game.id)
    assert api.play(game, seat, legal[0], Idempotency_Key=key).status_code == 200

    rows = sql(
        "SELECT idempotency_key FROM events WHERE game_id = :g AND seq > :v",
        g=game.id,
        v=before,
    )
    assert rows
    assert {r.idempotency_key for r in rows} == {sha256(key)}
    unkeyed = sql(
        "SELECT idempotency_key FROM events WHERE game_id = :g AND seq <= :v",
        g=game.id,
        v=before,
    )
    assert {r.idempotency_key for r in unkeyed} == {None}
    assert rows_containing(sql, key) == {}


def _tables(sql: Sql) -> list[str]:
    rows = sql(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
    )
    return [r.table_name for r in rows]


def rows_containing(sql: Sql, needle: str) -> dict[str, int]:
    """How many rows of each table hold ``needle``: in the row's text form (every column,
    JSONB included) or in the raw bytes of a bytea column."""
    found: dict[str, int] = {}
    for table in _tables(sql):
        byte_columns = [
            r.column_name
            for r in sql(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_schema = 'public' AND table_name = :t AND data_type = 'bytea'",
                t=table,
            )
        ]
        conditions = ["strpos(t::text, :needle) > 0"] + [
            f"position(convert_to(:needle, 'UTF8') in t.\"{c}\") > 0" for c in byte_columns
        ]
        rows = sql(
            f'SELECT count(*) AS n FROM "{table}" t WHERE {" OR ".join(conditions)}',
            needle=needle,
        )
        if rows[0].n:
            found[table] = rows[0].n
    return found


def test_no_table_stores_a_seat_token(api: Api, sql: Sql) -> None:
    """Tokens are stored only as SHA-256 digests, also inside stored idempotent responses."""
    game_id = api.create(4)["id"]
    tokens = []
    for seat in range(4):
        key = f"tok-{uuid.uuid4()}" if seat % 2 else None
        headers = {"Idempotency_Key": key} if key else {}
        r = api.post(f"/v1/games/{game_id}/seats/{seat}", {"name": f"p{seat}"}, **headers)
        assert r.status_code == 201
        tokens.append(r.get_json()["token"])

    assert "idempotency_keys" in _tables(sql)
    assert "seat_credentials" in _tables(sql)
    for token in tokens:
        assert rows_containing(sql, token) == {}
    stored = sql(
        "SELECT seat, token_sha256 FROM seat_credentials WHERE game_id = :g ORDER BY seat",
        g=game_id,
    )
    assert [(r.seat, r.token_sha256) for r in stored] == [
        (seat, sha256(token)) for seat, token in enumerate(tokens)
    ]


def test_the_token_search_would_find_a_stored_token(sql: Sql) -> None:
    """The search above is not blind: a value written in clear is found, in text and in
    bytea columns."""
    needle = f"needle-{uuid.uuid4()}"
    sql(
        "INSERT INTO idempotency_keys VALUES (:s, :k, :f, 200, convert_to(:n, 'UTF8'), now())",
        s=f"probe:{needle[:8]}",
        k=sha256(needle),
        f="0" * 64,
        n=f"prefix {needle} suffix",
    )
    try:
        assert rows_containing(sql, needle) == {"idempotency_keys": 1}
    finally:
        sql("DELETE FROM idempotency_keys WHERE key_sha256 = :k", k=sha256(needle))


def legacy_fingerprint(method: str, path: str, body: Any) -> str:
    """The fingerprint records held before outcomes: method, path, canonical JSON body."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(f"{method} {path}\n".encode() + canonical).hexdigest()


def legacy_record(raw_key: str, scope: str, fingerprint: str, body: dict[str, Any]) -> bytes:
    """A record as the service sealed it before outcomes were stored: the rendered
    response (status in its own column), AES-GCM under a key derived from the raw key."""
    kdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=scope.encode(), info=b"yokai-idem")
    nonce = os.urandom(12)
    plain = json.dumps({"body": body, "headers": {}}).encode()
    box = AESGCM(kdf.derive(raw_key.encode())).encrypt(nonce, plain, fingerprint.encode())
    return nonce + box


def store_legacy(
    sql: Sql, raw_key: str, scope: str, fingerprint: str, status: int, body: dict[str, Any]
) -> None:
    sql(
        "INSERT INTO idempotency_keys VALUES (:scope, :k, :f, :status, :body, now())",
        scope=scope,
        k=sha256(raw_key),
        f=fingerprint,
        status=status,
        body=legacy_record(raw_key, scope, fingerprint, body),
    )


def test_a_record_from_before_the_upgrade_still_replays(api: Api, sql: Sql) -> None:
    """A play answered before outcomes were stored: its retry gets the view at the
    version it produced, and a stored refusal is refused again; another request under
    either key is 422; nothing is appended."""
    game = playing_game(api, seed=311)
    seat, legal = on_turn(api, game)
    first = api.play(game, seat, legal[0])
    assert first.status_code == 200
    scope = f"seat:{game.id}:{seat}"
    path = f"/v1/games/{game.id}/play"
    done_key, refused_key = f"old-{uuid.uuid4()}", f"old-{uuid.uuid4()}"
    fingerprint = legacy_fingerprint("POST", path, {"card": legal[0]})
    store_legacy(sql, done_key, scope, fingerprint, 200, first.get_json())
    refusal = {"kind": "rule", "code": "not_your_turn", "detail": "it is not this seat's turn"}
    store_legacy(sql, refused_key, scope, fingerprint, 0, refusal)
    stored = count_events(sql, game.id)

    again = api.play(game, seat, legal[0], Idempotency_Key=done_key)
    assert again.status_code == 200, again.get_json()
    assert again.get_json() == first.get_json()
    assert again.headers["ETag"] == first.headers["ETag"]
    refused = api.play(game, seat, legal[0], Idempotency_Key=refused_key)
    assert refused.status_code == 409
    assert refused.get_json()["code"] == "not_your_turn"
    other = next(c for c in api.view(game, seat)["hand"] if c != legal[0])
    for key in (done_key, refused_key):
        reused = api.play(game, seat, other, Idempotency_Key=key)
        assert reused.status_code == 422
        assert reused.get_json()["code"] == "idempotency_key_reused"
    assert count_events(sql, game.id) == stored
