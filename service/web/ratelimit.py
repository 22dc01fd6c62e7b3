"""Rate limiting: seats and operators by who they are, anyone else by address; a fixed
window per key.

The parsing of "600 per minute" and the shared storages are the `limits` library's.
What is ours is the glue, and the default, counted in this process: a dict of counters
(:class:`LocalCounters`), one lookup a request, without a timer thread to expire them.
flask-limiter's per-request work (resolving the limits of each route, a timer thread,
computing headers) cost more than a whole cached game view (docs/benchmarks.md,
"Decisions the figures made"); the `limits` storage interface, which the default went
through after it, a key string and two calls a request.

Where the counts live: with ``YOKAI_RATE_LIMIT_STORAGE`` (a `limits` storage URI, e.g.
``redis://host:6379/0``) in one storage shared by every worker process and instance, so
the limit holds for the whole service; without it in each worker process's memory, each
allowed the limit divided by the number of workers (``YOKAI_WORKERS``), so one instance
as a whole allows about the limit.

A shared storage that does not answer (within :data:`TIMEOUT`) is not a reason to refuse
players: requests go through uncounted (fail open), a warning is logged, and the storage
is asked again after :data:`RETRY_SECONDS` (meanwhile no request waits for it).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import NamedTuple

from limits import RateLimitItem, parse
from limits.errors import ConfigurationError as LimitsConfigurationError
from limits.storage import Storage, storage_from_string

from service.settings import ConfigurationError

log = logging.getLogger("yokai.ratelimit")


class LocalCounters:
    """Fixed windows in this process's memory: a key's window begins with its first
    request and lasts ``seconds``. An expired counter starts again at its key's next
    request, and expired ones are dropped now and then, instead of by a timer thread."""

    _SWEEP_EVERY = 4096

    def __init__(self, seconds: float) -> None:
        self._seconds = seconds
        self._counts: dict[str, tuple[int, float]] = {}  # key -> (count, window's end)
        self._lock = threading.Lock()
        self._writes = 0

    def hit(self, key: str) -> tuple[int, float]:
        """Count a request of ``key``: how many its window holds now, and when it ends
        (epoch seconds)."""
        now = time.time()
        with self._lock:
            found = self._counts.get(key)
            if found is None or found[1] <= now:
                found = (1, now + self._seconds)
            else:
                found = (found[0] + 1, found[1])
            self._counts[key] = found
            self._writes += 1
            if self._writes % self._SWEEP_EVERY == 0:
                self._counts = {k: v for k, v in self._counts.items() if v[1] > now}
        return found


class Verdict(NamedTuple):
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
        self.limit: int = item.amount
        self._local: LocalCounters | None = None
        self._storage: Storage | None = None
        self._errors: tuple[type[Exception], ...] = (OSError,)
        if shared_storage:
            self._storage = storage(shared_storage)
            base = self._storage.base_exceptions
            self._errors = (*base, OSError) if isinstance(base, tuple) else (base, OSError)
        else:
            self._local = LocalCounters(item.get_expiry())
        self._down_until = 0.0

    def hit(self, key: str) -> Verdict | None:
        """Count a request of ``key``; None when the shared storage cannot count it (it
        goes through: see the module's docstring)."""
        amount = self.limit
        if self._local is not None:
            count, reset_at = self._local.hit(key)
            return Verdict(count <= amount, amount, max(0, amount - count), reset_at)
        return self._shared(key)

    def _shared(self, key: str) -> Verdict | None:
        assert self._storage is not None
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
