"""The test push service (tests/support/push_service.py) checks what a real one checks:
it takes a well-made push and decrypts it, and refuses, with its reason and nothing
received, a JWT signed by another key, a key other than the subscription's, a body
tampered with or sealed for another subscriber, an audience, expiry or subject a push
service would refuse, and malformed headers. Its scripted answers come as scripted, and
waiting for what never comes ends at the deadline."""

from __future__ import annotations

import time
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.adapters.push.vapid import VapidKey
from tests.adapters.push.pushing import SUBJECT, sealed, send
from tests.support.push_service import PushService
from tests.support.waiting import WaitedTooLongError


@pytest.fixture
def service() -> Any:
    with PushService() as running:
        yield running


def _private(key: VapidKey) -> ec.EllipticCurvePrivateKey:
    private = serialization.load_pem_private_key(key.to_setting().encode(), password=None)
    assert isinstance(private, ec.EllipticCurvePrivateKey)
    return private


def _fields(headers: dict[str, str], **changed: str | None) -> list[tuple[str, str]]:
    """``headers`` with some changed (None: left out)."""
    merged: dict[str, str | None] = {**headers, **changed}
    return [(name, value) for name, value in merged.items() if value is not None]


def _refused(service: PushService, status: int, reason: str) -> None:
    """The last request was refused so, and nothing was received."""
    assert service.received == []
    last = service.attempts[-1]
    assert (last.status, reason in last.reason) == (status, True), last
    assert service.rejections[-1] == last


def test_a_well_made_push_is_taken_and_decrypted(service: PushService) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    assert subscriber.endpoint == f"{service.url}/push/{subscriber.id}"
    assert set(subscriber.subscription) == {"endpoint", "keys"}
    body, headers = sealed(subscriber, key, b'{"n":1}')
    assert send(subscriber.endpoint, body, _fields(headers))[0] == 201
    (got,) = service.wait_for(lambda received: len(received) == 1, timeout=10)
    assert (got.subscriber_id, got.json()) == (subscriber.id, {"n": 1})
    assert service.rejections == []


def test_a_jwt_signed_by_another_key_is_refused(service: PushService) -> None:
    key, forger = VapidKey.generate(), VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    body, headers = sealed(subscriber, forger)
    token = headers["Authorization"].removeprefix("vapid t=").split(",")[0]
    forged = f"vapid t={token}, k={key.public_key}"  # claims the subscription's key
    status, text = send(subscriber.endpoint, body, _fields(headers, Authorization=forged))
    assert status == 401 and "does not verify" in text
    _refused(service, 401, "does not verify")


def test_a_key_other_than_the_subscriptions_is_refused(service: PushService) -> None:
    subscriber = service.subscribe(VapidKey.generate().public_key)
    body, headers = sealed(subscriber, VapidKey.generate())  # signed and named alike
    assert send(subscriber.endpoint, body, _fields(headers))[0] == 403
    _refused(service, 403, "not the key the subscription was made with")


@pytest.mark.parametrize("at", [10, 30, 90, -1])  # in the salt, the header, the record
def test_a_body_tampered_with_is_refused(service: PushService, at: int) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    body, headers = sealed(subscriber, key, b'{"type":"turn"}')
    tampered = bytearray(body)
    tampered[at] ^= 0x01
    assert send(subscriber.endpoint, bytes(tampered), _fields(headers))[0] == 400
    assert service.received == [] and service.attempts[-1].status == 400


def test_a_body_sealed_for_another_subscriber_is_refused(service: PushService) -> None:
    key = VapidKey.generate()
    subscriber, other = service.subscribe(key.public_key), service.subscribe(key.public_key)
    body, headers = sealed(other, key, endpoint=subscriber.endpoint)
    assert send(subscriber.endpoint, body, _fields(headers))[0] == 400
    _refused(service, 400, "does not decrypt")


def _signed(key: VapidKey, claims: dict[str, Any]) -> str:
    token = jwt.encode(claims, _private(key), algorithm="ES256")
    return f"vapid t={token}, k={key.public_key}"


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        ({"aud": "https://push.example.net"}, "does not verify"),
        ({"exp": -60}, "does not verify"),  # expired a minute ago
        ({"exp": 25 * 3600}, "more than 24 h ahead"),
        ({"sub": "ops@example.net"}, "sub is not"),
        ({"sub": "http://example.net"}, "sub is not"),
        ({"sub": None}, "does not verify"),  # none at all
    ],
)
def test_claims_a_push_service_would_refuse_are_refused(
    service: PushService, claims: dict[str, Any], reason: str
) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    body, headers = sealed(subscriber, key)
    made: dict[str, Any] = {"aud": service.url, "exp": 3600, "sub": SUBJECT, **claims}
    made["exp"] += int(time.time())
    made = {name: value for name, value in made.items() if value is not None}
    authorization = _signed(key, made)
    assert send(subscriber.endpoint, body, _fields(headers, Authorization=authorization))[0] == 401
    _refused(service, 401, reason)


def test_a_signature_made_long_ago_has_expired(service: PushService) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    body, headers = sealed(subscriber, key, now=int(time.time()) - 13 * 3600)  # 12 h valid
    assert send(subscriber.endpoint, body, _fields(headers))[0] == 401
    _refused(service, 401, "expired")


@pytest.mark.parametrize(
    ("changed", "status", "reason"),
    [
        ({"Authorization": None}, 401, "no vapid Authorization"),
        ({"Authorization": "Bearer x"}, 401, "no vapid Authorization"),
        ({"Authorization": "vapid t=x"}, 401, "lacks t or k"),
        ({"TTL": None}, 400, "TTL"),
        ({"TTL": "soon"}, 400, "TTL"),
        ({"Content-Encoding": None}, 400, "aes128gcm"),
        ({"Content-Encoding": "aesgcm"}, 400, "aes128gcm"),
        ({"Urgency": "urgent"}, 400, "Urgency"),
        ({"Topic": "a" * 33}, 400, "Topic"),
    ],
)
def test_malformed_headers_are_refused(
    service: PushService, changed: dict[str, str | None], status: int, reason: str
) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    body, headers = sealed(subscriber, key)
    assert send(subscriber.endpoint, body, _fields(headers, **changed))[0] == status
    _refused(service, status, reason)


def test_a_field_given_twice_is_refused(service: PushService) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    body, headers = sealed(subscriber, key)
    twice = [*_fields(headers), ("Content-Type", "application/json")]
    assert send(subscriber.endpoint, body, twice)[0] == 400
    _refused(service, 400, "given twice: content-type")


def test_an_unknown_subscription_is_not_found(service: PushService) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    body, headers = sealed(subscriber, key)
    for path in ("/push/nobody", "/elsewhere"):
        assert send(service.url + path, body, _fields(headers))[0] == 404
    _refused(service, 404, "no such subscription")


def test_scripted_answers_come_as_many_times_as_asked_then_pushes_are_taken(
    service: PushService,
) -> None:
    key = VapidKey.generate()
    subscriber = service.subscribe(key.public_key)
    service.answer(subscriber.id, 503, retry_after="7", times=2)
    body, headers = sealed(subscriber, key)
    statuses = [send(subscriber.endpoint, body, _fields(headers))[0] for _ in range(3)]
    assert statuses == [503, 503, 201]
    assert [a.reason for a in service.attempts] == ["scripted", "scripted", "accepted"]
    assert service.rejections == [] and len(service.received) == 1


def test_waiting_for_what_never_comes_ends_at_the_deadline(service: PushService) -> None:
    with pytest.raises(WaitedTooLongError):
        service.wait_for(lambda received: len(received) > 0, timeout=0.2)
    with pytest.raises(WaitedTooLongError):
        service.wait_for_attempts(lambda attempts: len(attempts) > 0, timeout=0.2)
