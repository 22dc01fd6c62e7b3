"""Holding a stream open: how many streams and waiting long-polls each token and each
address holds in this process (``OpenStreams``, one per app), and the place a request
takes among them (``held_open``). The games', players', lobby's and live routes take
one before they wait."""

from __future__ import annotations

import threading
from collections.abc import Callable

from flask import current_app, request

from service.application.identity.principals import Operator, PlayerHolder, Principal, SeatHolder
from service.metrics import STREAMS
from service.web.errors import RateLimitedError
from service.web.request import principal

RETRY_AFTER_SECONDS = 5


class OpenStreams:
    """How many streams and waiting long-polls each token and each address holds open
    in this process; one more than the limit is refused (429 ``too_many_streams``)."""

    def __init__(self, per_token: int, per_address: int, keepalive: float) -> None:
        self.per_token = per_token
        self.per_address = per_address
        self.keepalive = keepalive
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def acquire(self, who: Principal, address: str) -> Callable[[], None]:
        """Take a place for ``who`` from ``address``; the returned function gives it back
        (once, however often it is called)."""
        keys = [("ip:" + address, self.per_address)]
        if isinstance(who, SeatHolder | PlayerHolder | Operator):
            keys.append((who.scope, self.per_token))
        with self._lock:
            for key, limit in keys:
                if self._open.get(key, 0) >= limit:
                    raise RateLimitedError(
                        RETRY_AFTER_SECONDS,
                        "too_many_streams",
                        f"at most {limit} open streams and waiting requests per "
                        f"{'address' if key.startswith('ip:') else 'token'}",
                    )
            for key, _ in keys:
                self._open[key] = self._open.get(key, 0) + 1
        STREAMS.inc()
        released = False

        def release() -> None:
            nonlocal released
            with self._lock:
                if released:
                    return
                released = True
                STREAMS.dec()
                for key, _ in keys:
                    left = self._open[key] - 1
                    if left:
                        self._open[key] = left
                    else:
                        del self._open[key]

        return release

    def held(self) -> int:
        with self._lock:
            return sum(n for key, n in self._open.items() if key.startswith("ip:"))


def open_streams() -> OpenStreams:
    found: OpenStreams = current_app.extensions["yokai_streams"]
    return found


def held_open() -> Callable[[], None]:
    """A place among the open streams for this request's token and address."""
    return open_streams().acquire(principal(), request.remote_addr or "")
