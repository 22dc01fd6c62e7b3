"""The application's webhook ports on the network: the URL policy (no private,
loopback, link-local or multicast hosts: SSRF) and the sender (one signed POST, at most
10 s, no redirects), both on service/adapters/webhook_http.py."""

from __future__ import annotations

from service.adapters import webhook_http
from service.application.webhooks import Sent
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


class HttpSender:
    def __init__(self, *, allow_private: bool, timeout: float = 10.0) -> None:
        self._allow_private = allow_private
        self._timeout = timeout

    def post(self, url: str, body: bytes, headers: dict[str, str]) -> Sent:
        done = webhook_http.post(
            url, body, headers, allow_private=self._allow_private, timeout=self._timeout
        )
        if done.status is None:
            outcome = "error"  # no answer: refused, reset, timed out, forbidden address
        else:
            outcome = "delivered" if 200 <= done.status < 300 else "failed"
        DELIVERIES.labels(outcome).inc()
        return Sent(done.status, done.error)
