"""The application's webhook sender on the network (one signed POST, at most 10 s, no
redirects: service/adapters/webhooks/sender.py), each attempt counted in the metrics by
its outcome. The URL policy (no private, loopback, link-local or multicast hosts: SSRF)
is service/adapters/webhooks/url_policy.py's."""

from __future__ import annotations

from collections.abc import Callable

from service.adapters.webhooks import sender
from service.application.webhooks.delivery import Sent
from service.metrics import DELIVERIES


def _sent(done: sender.Delivered) -> Sent:
    if done.status is None:
        outcome = "error"  # no answer: refused, reset, timed out, forbidden address
    else:
        outcome = "delivered" if 200 <= done.status < 300 else "failed"
    DELIVERIES.labels(outcome).inc()
    return Sent(done.status, done.error, done.retry_after)


class HttpSender:
    """Attempts on one event loop thread (sender.Poster), each counted in the
    metrics by its outcome."""

    def __init__(self, *, allow_private: bool, timeout: float = 10.0) -> None:
        self._poster = sender.Poster(allow_private=allow_private, timeout=timeout)

    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        self._poster.start(url, body, headers, lambda done: then(_sent(done)))

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        """One attempt, waited for."""
        return _sent(self._poster.post(url, body, headers))

    def close(self) -> None:
        self._poster.close()
