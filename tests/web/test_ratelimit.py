"""The rate limiter's counters: a fixed window per key, forgotten when the window ends."""

from __future__ import annotations

import time

import pytest

from service.web.ratelimit import LocalCounters, RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(time, "time", fake.time)
    return fake


def test_a_key_gets_its_limit_per_window_then_a_new_window(clock: Clock) -> None:
    limiter = RateLimiter("3 per minute")
    verdicts = [limiter.hit("seat:a") for _ in range(4)]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert [v.remaining for v in verdicts] == [2, 1, 0, 0]
    assert limiter.hit("seat:b").allowed  # another key has its own count
    assert 1 <= verdicts[-1].retry_after() <= 60

    clock.now += 61
    again = limiter.hit("seat:a")
    assert again.allowed
    assert again.remaining == 2


def test_expired_counters_are_swept(clock: Clock) -> None:
    counters = LocalCounters()
    for i in range(100):
        counters.incr(f"k{i}", expiry=10)
    clock.now += 11
    assert counters.get("k1") == 0
    for _ in range(LocalCounters._SWEEP_EVERY):
        counters.incr("fresh", expiry=10)
    assert set(counters._counts) == {"fresh"}
