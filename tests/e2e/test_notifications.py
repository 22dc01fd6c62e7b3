"""Turn notifications over HTTP (docs/api.md "Turn notifications"): the server's push key,
a player's push subscriptions and choices, and the pushes a commit queues in the outbox
(one per subscription of the player whose turn begins, invited or matched; none when the
player turned pushes off; at most one per subscription, game and version)."""

from __future__ import annotations

import base64
import os
from typing import Any
from uuid import uuid4

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.support.api import OPERATOR, Api, bearer


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def browser_subscription(endpoint: str | None = None) -> dict[str, Any]:
    """What a browser's PushSubscription.toJSON() gives: a fresh P-256 key and secret."""
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    point = key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return {
        "endpoint": endpoint or f"https://push.example.net/send/{uuid4()}",
        "expirationTime": None,
        "keys": {"p256dh": b64(point), "auth": b64(os.urandom(16))},
    }


def new_player(api: Api, name: str = "Mio") -> str:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    token: str = r.get_json()["token"]
    return token


def pushes(sql: Any, game_id: str) -> list[tuple[str, int, str]]:
    rows = sql(
        "SELECT payload->>'type', (payload->>'version')::int, payload->>'subscription_id' "
        "FROM outbox WHERE kind = 'push' AND game_id = :g ORDER BY id",
        g=game_id,
    )
    return [(r[0], r[1], r[2]) for r in rows]


def test_the_push_key_is_a_p256_point_anyone_reads(api: Api) -> None:
    r = api.get("/v1/push/key")
    assert r.status_code == 200
    raw = base64.urlsafe_b64decode(r.get_json()["public_key"] + "==")
    assert len(raw) == 65 and raw[0] == 4
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)  # on the curve


def test_a_player_subscribes_lists_and_deletes_a_subscription(api: Api) -> None:
    me = new_player(api)
    sub = browser_subscription()
    r = api.post("/v1/me/push-subscriptions", sub, **bearer(me))
    assert r.status_code == 201, r.get_json()
    made = r.get_json()
    assert made["endpoint"] == sub["endpoint"] and set(made) == {"id", "endpoint", "created_at"}
    again = api.post("/v1/me/push-subscriptions", sub, **bearer(me))
    assert (again.status_code, again.get_json()["id"]) == (200, made["id"])
    listed = api.get("/v1/me/push-subscriptions", **bearer(me)).get_json()["subscriptions"]
    assert [(s["id"], s["endpoint"]) for s in listed] == [(made["id"], sub["endpoint"])]
    # Another player's subscriptions are not this player's to see or delete.
    other = new_player(api, "Ren")
    assert api.get("/v1/me/push-subscriptions", **bearer(other)).get_json() == {
        "subscriptions": [],
        "next_cursor": None,
    }
    tag = api.get("/v1/me/push-subscriptions", **bearer(me)).headers["ETag"]
    assert api.get("/v1/me/push-subscriptions", **bearer(me), If_None_Match=tag).status_code == 304
    path = f"/v1/me/push-subscriptions/{made['id']}"
    r = api.client.delete(path, headers=bearer(other))
    assert (r.status_code, r.get_json()["code"]) == (404, "subscription_not_found")
    assert api.client.delete(path, headers=bearer(me)).status_code == 204
    assert api.client.delete(path, headers=bearer(me)).status_code == 404
    after = api.get("/v1/me/push-subscriptions", **bearer(me), If_None_Match=tag)
    assert after.status_code == 200 and after.get_json()["subscriptions"] == []


def test_the_endpoint_and_keys_are_sealed_in_the_database(api: Api, sql: Any) -> None:
    me = new_player(api)
    sub = browser_subscription()
    api.post("/v1/me/push-subscriptions", sub, **bearer(me))
    (endpoint, keys) = sql(
        "SELECT endpoint, keys FROM push_subscriptions ORDER BY created_at DESC LIMIT 1"
    )[0]
    assert endpoint.startswith("pd1.") and sub["endpoint"] not in endpoint
    assert keys.startswith("pd1.") and sub["keys"]["auth"] not in keys


def test_bad_subscriptions_are_refused(api: Api) -> None:
    me = new_player(api)
    for endpoint in (
        "http://push.example.net/x",  # not https (loopback http: only when allowed)
        "http://127.0.0.1:9/x",
        "ftp://push.example.net/x",
        "https://user:pw@push.example.net/x",
        "https:///x",
    ):
        r = api.post("/v1/me/push-subscriptions", browser_subscription(endpoint), **bearer(me))
        assert (r.status_code, r.get_json()["code"]) == (422, "invalid_subscription"), endpoint
    bad_key = browser_subscription()
    bad_key["keys"]["p256dh"] = b64(b"\x04" + os.urandom(10))
    r = api.post("/v1/me/push-subscriptions", bad_key, **bearer(me))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_subscription")
    bad_auth = browser_subscription()
    bad_auth["keys"]["auth"] = "not base64!"
    r = api.post("/v1/me/push-subscriptions", bad_auth, **bearer(me))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_subscription")
    r = api.post("/v1/me/push-subscriptions", {"endpoint": "https://a.example/x"}, **bearer(me))
    assert r.status_code == 422
    # Without a player token: 401; a seat's token, or an operator's: 403.
    assert api.post("/v1/me/push-subscriptions", browser_subscription()).status_code == 401
    game = api.start(3)
    r = api.post("/v1/me/push-subscriptions", browser_subscription(), **game.seat_headers(0))
    assert r.status_code == 403
    r = api.client.post("/v1/me/push-subscriptions", json=browser_subscription(), headers=OPERATOR)
    assert r.status_code == 403


def test_choices_have_defaults_and_change_one_at_a_time(api: Api) -> None:
    me = new_player(api)
    assert api.get("/v1/me/notifications", **bearer(me)).get_json() == {
        "push": True,
        "mail": True,
        "email": None,
        "digest": "off",
        "reminder_minutes": None,
    }
    r = api.client.patch("/v1/me/notifications", json={"digest": "daily"}, headers=bearer(me))
    assert r.status_code == 200 and r.get_json()["digest"] == "daily"
    r = api.client.patch(
        "/v1/me/notifications", json={"push": False, "reminder_minutes": 15}, headers=bearer(me)
    )
    got = r.get_json()
    assert (got["push"], got["mail"], got["digest"], got["reminder_minutes"]) == (
        False,
        True,
        "daily",
        15,
    )
    r = api.client.patch(
        "/v1/me/notifications", json={"reminder_minutes": None}, headers=bearer(me)
    )
    assert r.get_json()["reminder_minutes"] is None
    assert api.get("/v1/me/notifications", **bearer(me)).get_json()["push"] is False
    for bad in (
        {"digest": "weekly"},
        {"reminder_minutes": 0},
        {"reminder_minutes": 1441},
        {"push": "yes"},
        {"email": "a@b.c"},
    ):
        r = api.client.patch("/v1/me/notifications", json=bad, headers=bearer(me))
        assert r.status_code == 422, bad


def _subscribed_player(api: Api, name: str) -> tuple[str, str]:
    token = new_player(api, name)
    r = api.post("/v1/me/push-subscriptions", browser_subscription(), **bearer(token))
    return token, r.get_json()["id"]


def test_a_turn_queues_one_push_per_subscription_of_the_player_to_act(api: Api, sql: Any) -> None:
    mio, mio_sub = _subscribed_player(api, "Mio")
    ren, ren_sub = _subscribed_player(api, "Ren")
    second = api.post("/v1/me/push-subscriptions", browser_subscription(), **bearer(ren))
    ren_second = second.get_json()["id"]
    game_id = api.create(3)["id"]
    api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(mio))
    api.post(f"/v1/games/{game_id}/seats/1", {}, **bearer(ren))
    api.join(game_id, 2)  # the deal: everyone passes at once
    version = api.public(game_id)["version"]
    queued = pushes(sql, game_id)
    assert sorted(queued) == sorted(
        [("turn", version, mio_sub), ("turn", version, ren_sub), ("turn", version, ren_second)]
    )


def test_no_push_for_a_player_who_turned_pushes_off(api: Api, sql: Any) -> None:
    mio, _ = _subscribed_player(api, "Mio")
    api.client.patch("/v1/me/notifications", json={"push": False}, headers=bearer(mio))
    game_id = api.create(3)["id"]
    api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(mio))
    api.join(game_id, 1)
    api.join(game_id, 2)
    assert pushes(sql, game_id) == []


def test_an_invited_player_is_pushed_once(api: Api, sql: Any) -> None:
    host = new_player(api, "Host")
    guest, guest_sub = _subscribed_player(api, "Guest")
    guest_id = api.get("/v1/me", **bearer(guest)).get_json()["id"]
    r = api.post("/v1/games", {"players": 3, "invite": [guest_id]}, **bearer(host))
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    assert pushes(sql, game_id) == [("invited", api.public(game_id)["version"], guest_sub)]


def test_the_push_of_a_version_is_queued_once(api: Api, sql: Any) -> None:
    """The outbox holds at most one push per subscription, game and version: a second
    one (here written by hand, as a retried commit would) is not queued."""
    mio, mio_sub = _subscribed_player(api, "Mio")
    game_id = api.create(3)["id"]
    api.post(f"/v1/games/{game_id}/seats/0", {}, **bearer(mio))
    api.join(game_id, 1)
    api.join(game_id, 2)
    version = api.public(game_id)["version"]
    sql(
        "INSERT INTO outbox (kind, game_id, payload, created_at, available_at) "
        "SELECT 'push', game_id, payload || '{\"type\": \"matched\"}', now(), now() "
        "FROM outbox WHERE kind = 'push' AND game_id = :g ON CONFLICT DO NOTHING",
        g=game_id,
    )
    assert pushes(sql, game_id) == [("turn", version, mio_sub)]


def test_a_subscription_with_an_expiration_is_done_once_per_idempotency_key(api: Api) -> None:
    """What the web client sends: the browser's expirationTime and an Idempotency-Key
    (the command's fingerprint takes the expiration as milliseconds)."""
    me = new_player(api)
    sub = {**browser_subscription(), "expirationTime": 1_900_000_000_000}
    key = {**bearer(me), "Idempotency-Key": str(uuid4())}
    first = api.client.post("/v1/me/push-subscriptions", json=sub, headers=key)
    again = api.client.post("/v1/me/push-subscriptions", json=sub, headers=key)
    assert (first.status_code, again.status_code) == (201, 201), first.get_json()
    assert first.get_json() == again.get_json()
    too_late = {**browser_subscription(), "expirationTime": 10**16}
    r = api.post("/v1/me/push-subscriptions", too_late, **bearer(me))
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_request")
