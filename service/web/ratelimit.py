"""Rate limiting: seats and operators by who they are, anyone else by address; a fixed
window per key, counted in this worker process.

The algorithm and the parsing of "600 per minute" are the `limits` library's. What is
ours is the glue, and a counter storage without a thread: flask-limiter's per-request
work (resolving the limits of each route, a timer thread to expire counters, computing
headers) cost more than a whole cached game view (bench/http_bench.py: without it, reads
ran 1.4x to 1.9x faster and commands 1.3x). A storage shared by all workers can replace
:class:`LocalCounters` behind the same interface.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem, parse
from limits.storage import Storage
from limits.strategies import FixedWindowRateLimiter


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


class RateLimiter:
    def __init__(self, limit: str) -> None:
        self._item: RateLimitItem = parse(limit)
        self._storage = LocalCounters()
        self._limiter = FixedWindowRateLimiter(self._storage)

    def hit(self, key: str) -> Verdict:
        allowed = self._limiter.hit(self._item, key)
        stats = self._limiter.get_window_stats(self._item, key)
        return Verdict(allowed, self._item.amount, stats.remaining, stats.reset_time)
