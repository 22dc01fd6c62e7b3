"""The worker's pushes on the network: each push service's VAPID token signed once an
hour, not once a push; a browser's subscription refused for the adapter's reasons."""

from __future__ import annotations

import jwt
import pytest

from service.adapters.push.sending import VapidMessages, subscription_policy
from service.adapters.push.vapid import VapidKey
from tests.support.push_service import PushService


def _token(headers: dict[str, str]) -> dict[str, object]:
    token = headers["Authorization"].split("t=", 1)[1].split(",", 1)[0]
    claims: dict[str, object] = jwt.decode(token, options={"verify_signature": False})
    return claims


def test_a_push_services_token_is_signed_once_an_hour(monkeypatch: pytest.MonkeyPatch) -> None:
    key = VapidKey.generate()
    messages = VapidMessages(key, "mailto:ops@example.org")
    now = [1_800_000_000.0]
    monkeypatch.setattr("service.adapters.push.sending.time.time", lambda: now[0])
    with PushService() as push:
        sub = push.subscribe(key.public_key).subscription
        p256dh, auth = sub["keys"]["p256dh"], sub["keys"]["auth"]

        def headers(endpoint: str) -> dict[str, str]:
            return messages.request(
                endpoint, p256dh, auth, b"{}", ttl=60, urgency="normal", topic=None
            )[1]

        first = headers(sub["endpoint"])
        now[0] += VapidMessages.RESIGN - 1
        assert headers(sub["endpoint"])["Authorization"] == first["Authorization"]
        other = headers("https://push.example.net/send/1")
        assert _token(other)["aud"] == "https://push.example.net"
        now[0] += 1
        again = headers(sub["endpoint"])
        assert again["Authorization"] != first["Authorization"]
        assert _token(again)["exp"] == int(now[0]) + 12 * 3600


def test_a_subscription_is_refused_for_its_endpoint_or_its_keys() -> None:
    key = VapidKey.generate()
    with PushService() as push:
        sub = push.subscribe(key.public_key).subscription
    p256dh, auth = sub["keys"]["p256dh"], sub["keys"]["auth"]
    strict, loose = subscription_policy(False), subscription_policy(True)
    assert loose(sub["endpoint"], p256dh, auth) is None
    assert (strict(sub["endpoint"], p256dh, auth) or "").startswith("endpoint: ")
    assert "keys.auth" in (loose(sub["endpoint"], p256dh, "AAAA") or "")
    assert "keys.p256dh" in (loose(sub["endpoint"], "BAAA", auth) or "")
    assert strict("https://push.example.net/x", p256dh, auth) is None
