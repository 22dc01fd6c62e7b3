"""A push message (service/adapters/push/message.py): encrypted as RFC 8291's worked
example says to the byte, decrypted by http_ece with the subscriber's keys, no larger
than a push service takes; its headers (RFC 8030) refused when malformed; and which
endpoints a subscription may name. Then the whole way: through the webhook sender to a
push service of our own (tests/support/push_service.py) that verifies and decrypts it."""

from __future__ import annotations

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.adapters.push.message import (
    MAX_ENDPOINT,
    MAX_PAYLOAD,
    RECORD_SIZE,
    check_endpoint,
    encrypt,
    request,
    subscriber_keys,
)
from service.adapters.push.vapid import VapidKey, b64url, unb64url
from service.adapters.webhooks.sender import Poster
from tests.adapters.push.pushing import SUBJECT, sealed
from tests.support.push_service import PushService

NOW = 1_700_000_000


def test_rfc_8291_appendix_a_is_reproduced_to_the_byte() -> None:
    """RFC 8291 Appendix A: its application server key, salt, subscriber keys and
    plaintext give exactly its message."""
    scalar = unb64url("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
    body = encrypt(
        b"When I grow up, I want to be a watermelon",
        "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        "BTBZMqHH6r4Tts7J_aSIgg",
        salt=unb64url("DGv6ra1nlYgDCS1FRnbzlw"),
        sender=ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1()),
    )
    assert b64url(body) == (
        "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLoc"
        "InmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWL"
        "VWGNWQexSgSxsj_Qulcy4a-fN"
    )


class _Browser:
    """A subscriber's keys, as a browser holds them."""

    def __init__(self) -> None:
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.auth = b"0123456789abcdef"
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.p256dh, self.secret = b64url(point), b64url(self.auth)

    def read(self, body: bytes) -> bytes:
        opened = http_ece.decrypt(body, private_key=self.private, auth_secret=self.auth)
        assert isinstance(opened, bytes)
        return opened


def test_each_message_is_sealed_afresh_and_opens_with_the_subscribers_keys() -> None:
    browser = _Browser()
    first = encrypt(b'{"type":"turn"}', browser.p256dh, browser.secret)
    second = encrypt(b'{"type":"turn"}', browser.p256dh, browser.secret)
    assert first[:16] != second[:16] and first[21:86] != second[21:86]  # salt, sender key
    assert browser.read(first) == browser.read(second) == b'{"type":"turn"}'
    with pytest.raises(http_ece.ECEException):
        _Browser().read(first)  # another subscriber's keys


def test_the_largest_payload_fills_one_record_a_push_service_takes() -> None:
    browser = _Browser()
    body = encrypt(b"x" * MAX_PAYLOAD, browser.p256dh, browser.secret)
    assert len(body) == RECORD_SIZE == 4096
    assert browser.read(body) == b"x" * MAX_PAYLOAD
    with pytest.raises(ValueError, match=f"at most {MAX_PAYLOAD} bytes"):
        encrypt(b"x" * (MAX_PAYLOAD + 1), browser.p256dh, browser.secret)


def test_padded_keys_are_read_as_unpadded_ones() -> None:
    browser = _Browser()
    padded = b64url(browser.auth) + "=="
    assert subscriber_keys(browser.p256dh + "=", padded) == subscriber_keys(
        browser.p256dh, browser.secret
    )


@pytest.mark.parametrize(
    ("p256dh", "auth", "why"),
    [
        ("not base64!", None, "keys.p256dh"),
        (b64url(b"\x04" + bytes(64)), None, "keys.p256dh"),  # not a point on the curve
        (b64url(b"\x04" * 33), None, "keys.p256dh"),  # too short
        (None, b64url(bytes(15)), "keys.auth"),
        (None, b64url(bytes(17)), "keys.auth"),
        (None, "%%%%", "keys.auth"),
    ],
)
def test_keys_that_are_not_a_subscriptions_are_refused(
    p256dh: str | None, auth: str | None, why: str
) -> None:
    browser = _Browser()
    with pytest.raises(ValueError, match=why):
        encrypt(b"{}", p256dh or browser.p256dh, auth or browser.secret)


def _request(browser: _Browser, **headers: object) -> tuple[bytes, dict[str, str]]:
    how: dict[str, object] = {"ttl": 60, "urgency": "normal", "topic": None, "now": NOW}
    how.update(headers)
    return request(
        "https://push.example.net/a",
        b"{}",
        browser.p256dh,
        browser.secret,
        VapidKey.generate(),
        SUBJECT,
        **how,  # type: ignore[arg-type]
    )


def test_the_request_carries_what_rfc_8030_asks() -> None:
    browser = _Browser()
    body, headers = _request(browser, ttl=3600, urgency="high", topic="game-7_turn")
    assert browser.read(body) == b"{}"
    authorization = headers.pop("Authorization")
    assert authorization.startswith("vapid t=") and ", k=" in authorization
    assert headers == {
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": "3600",
        "Urgency": "high",
        "Topic": "game-7_turn",
    }
    assert "Topic" not in _request(browser)[1]


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({"ttl": -1}, "TTL"),
        ({"urgency": "urgent"}, "Urgency"),
        ({"urgency": "HIGH"}, "Urgency"),
        ({"topic": "a" * 33}, "Topic"),
        ({"topic": ""}, "Topic"),
        ({"topic": "game:7"}, "Topic"),
        ({"topic": "game=7"}, "Topic"),
    ],
)
def test_malformed_headers_are_refused(headers: dict[str, object], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        _request(_Browser(), **headers)


@pytest.mark.parametrize(
    "url",
    [
        "https://fcm.googleapis.com/fcm/send/abc:def",
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAA",
        "https://push.example.net:8443/p?x=1",
        "https://[2001:db8::1]/p",
    ],
)
def test_https_endpoints_are_taken(url: str) -> None:
    assert check_endpoint(url, allow_http=False) == url
    assert check_endpoint(url, allow_http=True) == url


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080/push/1", "http://localhost/push", "http://[::1]:9/p"]
)
def test_http_endpoints_on_loopback_are_taken_only_when_allowed(url: str) -> None:
    assert check_endpoint(url, allow_http=True) == url
    with pytest.raises(ValueError, match="https"):
        check_endpoint(url, allow_http=False)


@pytest.mark.parametrize(
    ("url", "allow_http", "why"),
    [
        ("http://push.example.net/p", False, "https"),
        ("http://push.example.net/p", True, "loopback"),
        ("http://10.0.0.1/p", True, "loopback"),
        ("ftp://push.example.net/p", True, "https"),
        ("https:///p", False, "host"),
        ("push.example.net/p", False, "https"),
        ("https://user:pw@push.example.net/p", False, "credentials"),
        ("https://user@push.example.net/p", False, "credentials"),
        ("https://push.example.net:99999/p", False, "not a URL"),
        ("https://push.example.net/p q", False, "without spaces"),
        ("https://push.example.net/p\n", False, "printable"),
        ("https://push.example.net/é", False, "ASCII"),
        ("https://push.example.net/p#x", False, "fragment"),
        ("https://push.example.net/" + "p" * MAX_ENDPOINT, False, f"at most {MAX_ENDPOINT}"),
    ],
)
def test_other_endpoints_are_refused_with_the_reason(url: str, allow_http: bool, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        check_endpoint(url, allow_http)


def test_the_longest_endpoint_is_taken() -> None:
    url = "https://push.example.net/"
    url += "p" * (MAX_ENDPOINT - len(url))
    assert check_endpoint(url, allow_http=False) == url


def test_a_push_reaches_a_push_service_that_verifies_and_decrypts_it() -> None:
    """The real sender (one Content-Type: the push service refuses a field given twice)
    to the test push service, which checks the VAPID signature and decrypts."""
    key = VapidKey.generate()
    poster = Poster(allow_private=True)
    payload, largest = b'{"type":"turn","game_id":"g","version":7}', b"y" * MAX_PAYLOAD
    try:
        with PushService() as service:
            subscriber = service.subscribe(key.public_key)
            body, headers = sealed(subscriber, key, payload, ttl=3600, urgency="high", topic="g7")
            done = poster.post(subscriber.endpoint, body, headers)
            assert (done.status, done.error) == (201, None), service.rejections
            (got,) = service.wait_for(lambda received: len(received) == 1, timeout=10)
            body, headers = sealed(subscriber, key, largest)
            assert poster.post(subscriber.endpoint, body, headers).status == 201
    finally:
        poster.close()
    assert got.subscriber_id == subscriber.id
    assert got.json() == {"type": "turn", "game_id": "g", "version": 7}
    assert got.headers["Content-Type"] == "application/octet-stream"
    assert (got.headers["TTL"], got.headers["Urgency"], got.headers["Topic"]) == (
        "3600",
        "high",
        "g7",
    )
    assert service.received[1].payload == largest


def test_a_push_services_gone_and_slow_down_reach_the_sender() -> None:
    key = VapidKey.generate()
    poster = Poster(allow_private=True)
    try:
        with PushService() as service:
            subscriber = service.subscribe(key.public_key)
            body, headers = sealed(subscriber, key)
            service.answer(subscriber.id, 410)
            assert poster.post(subscriber.endpoint, body, headers).status == 410
            service.answer(subscriber.id, 429, retry_after="30")
            done = poster.post(subscriber.endpoint, body, headers)
            assert (done.status, done.retry_after) == (429, 30.0)
            assert poster.post(subscriber.endpoint, body, headers).status == 201
    finally:
        poster.close()
    assert [a.status for a in service.attempts] == [410, 429, 201]
    assert service.rejections == []
