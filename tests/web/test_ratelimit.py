"""The rate limiter's counters: a fixed window per key, forgotten when the window ends;
the per-process default divided by the workers; a storage that does not answer lets
requests through uncounted (fail open), and is asked again a little later."""

from __future__ import annotations

import logging
import os
import runpy
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from service.settings import ConfigurationError
from service.web import ratelimit
from service.web.ratelimit import LocalCounters, RateLimiter, Verdict
from tests.support.ports import free_port


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def time(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(time, "time", fake.time)
    monkeypatch.setattr(time, "monotonic", fake.monotonic)
    return fake


def counted(limiter: RateLimiter, key: str) -> Verdict:
    verdict = limiter.hit(key)
    assert verdict is not None
    return verdict


def test_a_key_gets_its_limit_per_window_then_a_new_window(clock: Clock) -> None:
    limiter = RateLimiter("3 per minute")
    verdicts = [counted(limiter, "seat:a") for _ in range(4)]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert [v.remaining for v in verdicts] == [2, 1, 0, 0]
    assert counted(limiter, "seat:b").allowed  # another key has its own count
    assert 1 <= verdicts[-1].retry_after() <= 60

    clock.now += 61
    again = counted(limiter, "seat:a")
    assert again.allowed
    assert again.remaining == 2


def test_expired_counters_start_again_and_are_swept(clock: Clock) -> None:
    counters = LocalCounters(10)
    for i in range(100):
        assert counters.hit(f"k{i}") == (1, clock.now + 10)
    assert counters.hit("k1") == (2, clock.now + 10)
    clock.now += 11
    assert counters.hit("k1") == (1, clock.now + 10)  # a new window
    for _ in range(LocalCounters._SWEEP_EVERY):
        counters.hit("fresh")
    assert set(counters._counts) == {"k1", "fresh"}


def test_counted_in_each_process_the_limit_is_shared_by_the_workers(clock: Clock) -> None:
    """Without a shared storage, N workers would allow N times the limit: each is
    allowed the limit divided by their number, so the instance allows about the limit."""
    workers = [RateLimiter("10 per minute", workers=4) for _ in range(4)]
    allowed = sum(counted(w, "ip:1.2.3.4").allowed for w in workers for _ in range(10))
    assert allowed == 8  # 4 workers of 10 // 4
    assert workers[0].limit == 2
    assert RateLimiter("3 per minute", workers=8).limit == 1  # never none at all
    assert RateLimiter("10 per minute", "memory://", workers=4).limit == 10  # shared


def test_a_storage_that_does_not_answer_lets_requests_through_and_is_asked_again(
    clock: Clock, caplog: pytest.LogCaptureFixture
) -> None:
    limiter = RateLimiter("1 per minute", f"redis://127.0.0.1:{free_port()}/0")
    caplog.set_level(logging.WARNING, "yokai.ratelimit")
    assert limiter.hit("ip:a") is None  # not counted: through
    assert [r.message for r in caplog.records if "uncounted" in r.message]
    caplog.clear()
    storage = limiter._storage
    assert storage is not None
    calls: list[str] = []
    original = storage.incr

    def incr(key: str, expiry: int, amount: int = 1) -> int:
        calls.append("incr")
        return original(key, expiry, amount)

    storage.incr = incr  # type: ignore[method-assign]
    assert limiter.hit("ip:a") is None
    assert calls == []  # within RETRY_SECONDS nobody waits for it
    assert not caplog.records
    clock.now += ratelimit.RETRY_SECONDS + 1
    assert limiter.hit("ip:a") is None
    assert calls == ["incr"]  # asked again


def test_an_unknown_storage_refuses_to_start() -> None:
    with pytest.raises(ConfigurationError, match="YOKAI_RATE_LIMIT_STORAGE"):
        RateLimiter("1 per minute", "nosuch://host")


def test_gunicorn_tells_the_app_how_many_workers_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"
    monkeypatch.setenv("YOKAI_WORKERS", "3")
    hooks = runpy.run_path(str(conf))
    assert hooks["workers"] == 3
    hooks["on_starting"](SimpleNamespace(cfg=SimpleNamespace(workers=5)))  # --workers 5
    assert os.environ["YOKAI_WORKERS"] == "5"
