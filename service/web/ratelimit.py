"""Rate limiting: seats and operators by who they are, anyone else by address; a fixed
window per key.

The algorithm, the parsing of "600 per minute" and the shared storages are the `limits`
library's. What is ours is the glue, and a counter storage without a thread for the
default: flask-limiter's per-request work (resolving the limits of each route, a timer
thread to expire counters, computing headers) cost more than a whole cached game view
(docs/benchmarks.md, "Decisions the figures made").

Where the counts live: with ``YOKAI_RATE_LIMIT_STORAGE`` (a `limits` storage URI, e.g.
``redis://host:6379/0``) in one storage shared by every worker process and instance, so
the limit holds for the whole service; without it in each worker process's memory
(:class:`LocalCounters`), each allowed the limit divided by the number of workers
(``YOKAI_WORKERS``), so one instance as a whole allows about the limit.

A shared storage that does not answer (within :data:`TIMEOUT`) is not a reason to refuse
players: requests go through uncounted (fail open), a warning is logged, and the storage
is asked again after :data:`RETRY_SECONDS` (meanwhile no request waits for it).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse
from limits.errors import ConfigurationError as LimitsConfigurationError
from limits.storage import Storage, storage_from_string

from service.settings import ConfigurationError

log = logging.getLogger("yokai.ratelimit")


class LocalCounters(Storage):
    """Counters in this process's memory: expired ones are dropped when read, and all of
    them now and then, instead of by a timer thread."""

    STORAGE_SCHEME = ["yokai-local"]  # noqa: RUF012 - as limits declares it
    _SWEEP_EVERY = 4096

    def __init__(self, uri: str | None = None, **options: Any) -> None:
        self._counts: dict[str, tuple[int, float]] = {}  # key -> (count, expires at)
        self._lock = threading.Lock()
        self._writes = 0
        super().__init__(uri, **options)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = time.time()
        with self._lock:
            count, expires = self._counts.get(key, (0, 0.0))
            if expires <= now:
                count, expires = 0, now + expiry
            count += amount
            self._counts[key] = (count, expires)
            self._writes += 1
            if self._writes % self._SWEEP_EVERY == 0:
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
            return count

    def get(self, key: str) -> int:
        count, expires = self._counts.get(key, (0, 0.0))
        return count if expires > time.time() else 0

    def get_expiry(self, key: str) -> float:
        return self._counts.get(key, (0, time.time()))[1]

    def check(self) -> bool:
        return True

    def reset(self) -> int | None:
        with self._lock:
            dropped = len(self._counts)
            self._counts.clear()
            return dropped

    def clear(self, key: str) -> None:
        with self._lock:
            self._counts.pop(key, None)


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_at: float  # when the window ends (epoch seconds)

    def retry_after(self) -> int:
        return max(1, math.ceil(self.reset_at - time.time()))


TIMEOUT = 0.25
"""Seconds a shared storage has to answer (to connect, and each command)."""
RETRY_SECONDS = 5.0
"""After the shared storage failed, requests go uncounted this long before it is asked
again."""


def storage(uri: str) -> Storage:
    """The `limits` storage of a URI, answering within :data:`TIMEOUT` or failing."""
    options: dict[str, float] = {}
    if uri.split(":", 1)[0] in ("redis", "rediss", "redis+unix", "valkey", "valkeys"):
        options = {"socket_timeout": TIMEOUT, "socket_connect_timeout": TIMEOUT}
    elif uri.startswith("memcached:"):
        options = {"connect_timeout": TIMEOUT, "timeout": TIMEOUT}
    try:
        found = storage_from_string(uri, **options)
    except LimitsConfigurationError as exc:
        raise ConfigurationError(f"YOKAI_RATE_LIMIT_STORAGE: {exc}") from None
    if not isinstance(found, Storage):
        raise ConfigurationError(f"YOKAI_RATE_LIMIT_STORAGE: {uri!r} is an asynchronous storage")
    return found


class RateLimiter:
    """``limit`` per key and window: counted in ``shared_storage`` (a URI), or in this
    process, then ``limit`` divided by ``workers`` (at least 1)."""

    def __init__(self, limit: str, shared_storage: str | None = None, *, workers: int = 1) -> None:
        item = parse(limit)
        if shared_storage is None and workers > 1:
            item = type(item)(max(1, item.amount // workers), item.multiples, item.namespace)
        self._item: RateLimitItem = item
        self._storage: Storage = storage(shared_storage) if shared_storage else LocalCounters()
        base = self._storage.base_exceptions
        self._errors: tuple[type[Exception], ...] = (
            (*base, OSError) if isinstance(base, tuple) else (base, OSError)
        )
        self._down_until = 0.0

    @property
    def limit(self) -> int:
        return self._item.amount

    def hit(self, key: str) -> Verdict | None:
        """Count a request of ``key``; None when the storage cannot count it (it goes
        through: see the module's docstring)."""
        if self._down_until and time.monotonic() < self._down_until:
            return None
        item = self._item
        counted = item.key_for(key)
        try:
            count = self._storage.incr(counted, item.get_expiry())
            reset_at = self._storage.get_expiry(counted)
        except self._errors as error:
            self._down_until = time.monotonic() + RETRY_SECONDS
            log.warning(
                "rate limits go uncounted for %.0f s: their storage did not answer (%s: %s)",
                RETRY_SECONDS,
                type(error).__name__,
                error,
            )
            return None
        self._down_until = 0.0
        return Verdict(count <= item.amount, item.amount, max(0, item.amount - count), reset_at)
