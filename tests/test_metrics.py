"""What a request costs the metrics (service/metrics.py): each label set's children looked
up once, the pool's gauges read when scraped (one process) or written by each process
only when they changed (multiprocess mode). tests/e2e/test_metrics.py scrapes them."""

from __future__ import annotations

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from service import metrics


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> CollectorRegistry:
    """The request metrics and pool gauges, fresh, in a registry of the test's own."""
    fresh = CollectorRegistry()
    for name in ("REQUESTS", "LATENCY", "COMMANDS", "POOL_IN_USE", "POOL_SIZE"):
        old = getattr(metrics, name)
        kind = type(old)
        kwargs = {"labelnames": old._labelnames, "registry": fresh}
        if kind is Histogram:
            kwargs["buckets"] = (0.01, 1)
        if kind is Gauge:
            kwargs["multiprocess_mode"] = "livesum"
        monkeypatch.setattr(metrics, name, kind(old._name, old._documentation, **kwargs))
    monkeypatch.setattr(metrics, "_ANSWERED", {})
    return fresh


def values(registry: CollectorRegistry) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = generate_latest(registry).decode()
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def test_requests_are_counted_by_method_route_status_and_commands_by_outcome(
    registry: CollectorRegistry,
) -> None:
    play = "/v1/games/<game_id>/play"
    metrics.request_answered("POST", play, 200, 0.004, None)
    metrics.request_answered("POST", play, 409, 0.002, "wrong_phase")
    metrics.request_answered("POST", play, 409, 0.003, "wrong_phase")
    metrics.request_answered("GET", play + "/x", 200, None, None)
    metrics.request_answered("PATCH", None, 405, 0.001, None)
    metrics.request_answered("POST", None, 404, 0.001, None)
    found = values(registry)

    def requests(method: str, route: str, status: str) -> float:
        key = (("method", method), ("route", route), ("status", status))
        return found[("yokai_http_requests_total", key)]

    assert requests("POST", play, "409") == 2 and requests("POST", play, "200") == 1
    assert requests("PATCH", "unmatched", "405") == 1
    assert requests("POST", "unmatched", "404") == 1
    count = (("method", "POST"), ("route", play))
    assert found[("yokai_http_request_duration_seconds_count", count)] == 3
    get = (("method", "GET"), ("route", play + "/x"))
    assert found[("yokai_http_request_duration_seconds_count", get)] == 0  # not timed
    commands = {k[1]: v for k, v in found.items() if k[0] == "yokai_commands_total"}
    assert commands == {
        (("outcome", "accepted"), ("route", play)): 1,
        (("outcome", "wrong_phase"), ("route", play)): 2,
    }


def test_each_label_sets_children_are_looked_up_once(
    registry: CollectorRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    looked_up: list[tuple[str, ...]] = []
    for name in ("REQUESTS", "LATENCY", "COMMANDS"):
        family: Counter | Histogram = getattr(metrics, name)
        labels = family.labels

        def counted(*names: str, labels=labels) -> object:  # type: ignore[no-untyped-def]
            looked_up.append(names)
            return labels(*names)

        monkeypatch.setattr(family, "labels", counted)
    for _ in range(3):
        metrics.request_answered("POST", "/v1/games", 201, 0.002, None)
    assert len(looked_up) == 3  # once each: requests, latency, commands
    metrics.request_answered("POST", "/v1/games", 429, 0.002, "rate_limited")
    assert len(looked_up) == 6


class Pool:
    def __init__(self) -> None:
        self.in_use, self.size, self.reads = 0, 5, 0

    def __call__(self) -> tuple[int, int]:
        self.reads += 1
        return self.in_use, self.size


def gauges(registry: CollectorRegistry) -> tuple[float, float]:
    found = values(registry)
    return found[("yokai_db_connections_in_use", ())], found[("yokai_db_pool_size", ())]


def test_in_one_process_the_pool_is_read_when_scraped(
    registry: CollectorRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
    pool = Pool()
    after_request = metrics.watch_pool(pool)
    for _ in range(10):
        after_request()
    assert pool.reads == 0  # nothing a request
    pool.in_use = 3
    assert gauges(registry) == (3, 5)


def test_in_multiprocess_mode_a_process_writes_its_pool_only_when_it_changed(
    registry: CollectorRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(metrics.MULTIPROC_ENV, "/nowhere")  # the values stay in memory
    written: list[float] = []
    set_in_use = metrics.POOL_IN_USE.set

    def write(value: float) -> None:
        written.append(value)
        set_in_use(value)

    monkeypatch.setattr(metrics.POOL_IN_USE, "set", write)
    pool = Pool()
    after_request = metrics.watch_pool(pool)
    assert gauges(registry) == (0, 5) and written == [0]
    after_request()
    after_request()
    pool.in_use = 2
    after_request()
    after_request()
    assert written == [0, 2]
    assert gauges(registry) == (2, 5)
