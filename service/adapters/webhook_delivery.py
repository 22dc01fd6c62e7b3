"""The application's webhook ports on the network: the URL policy (no private,
loopback, link-local or multicast hosts: SSRF) and the sender (one signed POST, at most
10 s, no redirects), both on service/adapters/webhook_http.py."""

from __future__ import annotations

from collections.abc import Callable

from service.adapters import webhook_http
from service.application.webhooks.delivery import Sent
from service.metrics import DELIVERIES


class AddressPolicy:
    def __init__(self, *, allow_private: bool) -> None:
        self._allow_private = allow_private

    def problem(self, url: str) -> str | None:
        try:
            webhook_http.check_url(url, allow_private=self._allow_private)
        except webhook_http.UrlForbiddenError as refused:
            return refused.reason
        return None


def _sent(done: webhook_http.Delivered) -> Sent:
    if done.status is None:
        outcome = "error"  # no answer: refused, reset, timed out, forbidden address
    else:
        outcome = "delivered" if 200 <= done.status < 300 else "failed"
    DELIVERIES.labels(outcome).inc()
    return Sent(done.status, done.error)


class HttpSender:
    """Attempts on one event loop thread (webhook_http.Poster), each counted in the
    metrics by its outcome."""

    def __init__(self, *, allow_private: bool, timeout: float = 10.0) -> None:
        self._poster = webhook_http.Poster(allow_private=allow_private, timeout=timeout)

    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        self._poster.start(url, body, headers, lambda done: then(_sent(done)))

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        """One attempt, waited for."""
        return _sent(self._poster.post(url, body, headers))

    def close(self) -> None:
        self._poster.close()
