"""What the push tests send: a message for a subscriber of the test push service
(tests/support/push_service.py), made by service/adapters/push/message.py, and a raw
POST of it (http.client, so a test can send any headers, even one twice)."""

from __future__ import annotations

import http.client
import time
from urllib.parse import urlsplit

from service.adapters.push.message import request
from service.adapters.push.vapid import VapidKey
from tests.support.push_service import Subscriber

SUBJECT = "mailto:ops@example.net"


def sealed(
    subscriber: Subscriber,
    key: VapidKey,
    payload: bytes = b"{}",
    *,
    ttl: int = 60,
    urgency: str = "normal",
    topic: str | None = None,
    now: int | None = None,
    endpoint: str | None = None,
) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a push of ``payload`` to ``subscriber``, signed with
    ``key`` for ``endpoint`` (the subscriber's own unless given)."""
    keys = subscriber.subscription["keys"]
    return request(
        endpoint or subscriber.endpoint,
        payload,
        keys["p256dh"],
        keys["auth"],
        key,
        SUBJECT,
        ttl=ttl,
        urgency=urgency,
        topic=topic,
        now=int(time.time()) if now is None else now,
    )


def send(url: str, body: bytes, headers: list[tuple[str, str]]) -> tuple[int, str]:
    """One POST with exactly these header fields (and Content-Length): the status and
    the answer's text."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.putrequest("POST", parts.path, skip_accept_encoding=True)
        for name, value in [*headers, ("Content-Length", str(len(body)))]:
            connection.putheader(name, value)
        connection.endheaders(body)
        answer = connection.getresponse()
        return answer.status, answer.read().decode()
    finally:
        connection.close()
