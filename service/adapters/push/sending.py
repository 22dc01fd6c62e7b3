"""The worker's pushes on the network: each message encrypted and VAPID-signed
(:class:`VapidMessages`, by service/adapters/push/message.py), posted by the webhooks'
sender (one event loop for every attempt, no redirects, 10 s at most: service/adapters/
webhooks/sender.py) and counted in the metrics by its outcome (:class:`PushSender`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from service.adapters.push import message, vapid
from service.adapters.push.vapid import VapidKey
from service.adapters.webhooks import sender
from service.application.webhooks.delivery import Sent
from service.metrics import PUSHES


def subscription_policy(allow_http: bool) -> Callable[[str, str, str], str | None]:
    """Why a browser's subscription (endpoint, p256dh, auth) cannot be pushed to, or
    None: message.check_endpoint's and message.subscriber_keys' reasons."""

    def problem(endpoint: str, p256dh: str, auth: str) -> str | None:
        try:
            message.check_endpoint(endpoint, allow_http)
        except ValueError as error:
            return f"endpoint: {error}"
        try:
            message.subscriber_keys(p256dh, auth)
        except ValueError as error:
            return str(error)
        return None

    return problem


def _sent(done: sender.Delivered) -> Sent:
    if done.status is None:
        outcome = "error"  # no answer: refused, reset, timed out
    elif 200 <= done.status < 300:
        outcome = "sent"
    elif done.status in (404, 410):
        outcome = "gone"
    else:
        outcome = "failed"
    PUSHES.labels(outcome).inc()
    return Sent(done.status, done.error, done.retry_after)


class PushSender:
    """Pushes on one event loop thread (sender.Poster). ``allow_loopback``
    (YOKAI_PUSH_ALLOW_HTTP): a push service on this machine (tests) may be reached."""

    def __init__(self, *, allow_loopback: bool, timeout: float = 10.0) -> None:
        self._poster = sender.Poster(allow_private=allow_loopback, timeout=timeout)

    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        self._poster.start(url, body, headers, lambda done: then(_sent(done)))

    def close(self) -> None:
        self._poster.close()


class VapidMessages:
    """Each push's body encrypted for its subscription (RFC 8291) and its headers signed
    with the server's key (RFC 8292). A push service's token is signed once per
    ``RESIGN`` seconds and used again meanwhile (it is valid 12 hours: vapid.EXPIRES):
    an ES256 signature per push would be most of a push's cost."""

    RESIGN = 3600

    def __init__(self, key: VapidKey, subject: str) -> None:
        self._key = key
        self._subject = subject
        self._signed: dict[str, tuple[int, str]] = {}  # origin: (when, Authorization)

    def _authorization(self, endpoint: str, now: int) -> str:
        audience = vapid.origin(endpoint)
        kept = self._signed.get(audience)
        if kept is not None and now - kept[0] < self.RESIGN:
            return kept[1]
        header = self._key.authorization(endpoint, self._subject, now)
        if len(self._signed) > 1000:  # push services are few; never grow without bound
            self._signed.clear()
        self._signed[audience] = (now, header)
        return header

    def request(
        self,
        endpoint: str,
        p256dh: str,
        auth: str,
        payload: bytes,
        *,
        ttl: int,
        urgency: str,
        topic: str | None,
    ) -> tuple[bytes, dict[str, str]]:
        now = int(time.time())
        body, headers = message.request(
            endpoint,
            payload,
            p256dh,
            auth,
            self._key,
            self._subject,
            ttl=ttl,
            urgency=urgency,
            topic=topic,
            now=now,
            authorization=self._authorization(endpoint, now),
        )
        return body, headers
