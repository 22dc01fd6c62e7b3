"""Prometheus metrics (prometheus-client), in its multiprocess mode under gunicorn.

`yokai serve` points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh folder for its gunicorn
workers and its embedded worker, so `/metrics`, answered by any one of them, sums them
all (counters and histograms add up; gauges of live values are summed over the living
processes). Without that variable (tests, a single process) the default registry is used.

A request costs the metrics as little as they allow: each label set's children are
looked up once (:func:`request_answered`), and the pool's gauges are read when scraped,
or in multiprocess mode written by each process only when they changed
(:func:`watch_pool`).

What the store says (games by status, jobs due and their lag, webhook deliveries
waiting and theirs) is read from the database when `/metrics` is scraped: it is the same
whichever process answers, and whichever process does the work.

A stand-alone `yokai worker` (a container or pod of its own) serves the same exposition
on a port of its own (YOKAI_WORKER_METRICS_PORT, :func:`serve`): its webhook deliveries,
the events it appended, and the store's gauges. Those gauges are then exported by every
API and worker replica alike: aggregate them with ``max()``, not ``sum()``
(:data:`STORE_GAUGES`; deploy/grafana does).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Iterator
from wsgiref.simple_server import WSGIServer

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from service.application.monitoring import StoreStats

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
WORKER_METRICS_PORT_ENV = "YOKAI_WORKER_METRICS_PORT"

log = logging.getLogger("yokai.metrics")

REQUESTS = Counter("yokai_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram(
    "yokai_http_request_duration_seconds",
    "Time to answer a request (to its first byte for streams)",
    ["method", "route"],
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
COMMANDS = Counter(
    "yokai_commands",
    "Commands sent over HTTP, by outcome: accepted, or the problem code of the refusal",
    ["route", "outcome"],
)
EVENTS = Counter("yokai_events_appended", "Events appended to the store (committed)")
STREAMS = Gauge(
    "yokai_open_streams",
    "Game and player streams and waiting long-polls open now",
    multiprocess_mode="livesum",
)
POOL_IN_USE = Gauge(
    "yokai_db_connections_in_use",
    "Database connections checked out of the pools now",
    multiprocess_mode="livesum",
)
POOL_SIZE = Gauge(
    "yokai_db_pool_size",
    "Database connections each pool keeps (overflow not counted), summed over processes",
    multiprocess_mode="livesum",
)
DELIVERIES = Counter(
    "yokai_webhook_deliveries",
    "Webhook delivery attempts, by outcome: delivered, failed (an answer), error (none)",
    ["outcome"],
)
for _outcome in ("delivered", "failed", "error"):  # shown (as 0) before the first one
    DELIVERIES.labels(_outcome)
PUSHES = Counter(
    "yokai_pushes",
    "Web Push attempts, by outcome: sent, gone (404/410: the subscription is deleted), "
    "failed (another answer), error (none)",
    ["outcome"],
)
for _outcome in ("sent", "gone", "failed", "error"):
    PUSHES.labels(_outcome)
BUS_NOTICES = Counter(
    "yokai_bus_notices",
    "What this process announced on Redis after its commits (the lobby, revoked tokens, "
    "the worker's wake-ups; YOKAI_REDIS_URL), by outcome: published; dropped (more than "
    "the backlog waited while Redis was away); unpublished (still waiting when the "
    "process stopped)",
    ["outcome"],
)
BUS_FAILURES = Counter(
    "yokai_bus_publish_failures",
    "Attempts to publish this process's waiting announcements that Redis refused or "
    "did not answer (each retried, 0.1 s doubling up to 5 s)",
)
for _outcome in ("published", "dropped", "unpublished"):
    BUS_NOTICES.labels(_outcome)


STORE_GAUGES = (
    "yokai_games",
    "yokai_jobs_due",
    "yokai_job_lag_seconds",
    "yokai_webhook_deliveries_pending",
    "yokai_webhook_delivery_lag_seconds",
)
"""The gauges read from the store: the same value from every process that exports them."""


def command_outcome(status: int, problem: str | None) -> str:
    return "accepted" if status < 400 else problem or f"http_{status}"


_Counted = tuple[Counter, Histogram, Counter | None]
_ANSWERED: dict[tuple[str, str | None, int, str | None], _Counted] = {}
_ANSWERED_KEPT = 4096
"""How many label sets of answered requests keep their children at hand (a client can
make up methods; past this many, theirs are looked up each time, as prometheus-client
does)."""


def request_answered(
    method: str, route: str | None, status: int, seconds: float | None, problem: str | None
) -> None:
    """Count a request answered: ``route`` is None when no route matched; ``seconds``
    is what it took (None: not timed); a POST to a route is a command, by outcome. Each
    label set's children are looked up once (``labels()`` takes a lock and validates the
    labels every time)."""
    key = (method, route, status, problem)
    counted = _ANSWERED.get(key)
    if counted is None:
        counted = _children(method, route, status, problem)
        if len(_ANSWERED) < _ANSWERED_KEPT:
            _ANSWERED[key] = counted
    counted[0].inc()
    if seconds is not None:
        counted[1].observe(seconds)
    if counted[2] is not None:
        counted[2].inc()


def _children(method: str, route: str | None, status: int, problem: str | None) -> _Counted:
    label = "unmatched" if route is None else route
    command = None
    if method == "POST" and route is not None:
        command = COMMANDS.labels(route, command_outcome(status, problem))
    return REQUESTS.labels(method, label, str(status)), LATENCY.labels(method, label), command


def watch_pool(pool: Callable[[], tuple[int, int]]) -> Callable[[], None]:
    """Export a pool's connections in use and its size (``pool()``: both, now); what to
    call after each request. In one process they are read when scraped; in multiprocess
    mode a scrape cannot read the other processes' pools, so each process writes its own:
    the size once, the connections in use after a request when they changed."""
    if not os.environ.get(MULTIPROC_ENV):
        POOL_IN_USE.set_function(lambda: pool()[0])
        POOL_SIZE.set_function(lambda: pool()[1])
        return _nothing
    in_use, size = pool()
    POOL_SIZE.set(size)
    POOL_IN_USE.set(in_use)
    written = [in_use]

    def after_request() -> None:
        now = pool()[0]
        if now != written[0]:
            written[0] = now
            POOL_IN_USE.set(now)

    return after_request


def _nothing() -> None:
    return None


class _StoreCollector(Collector):
    def __init__(self, read: Callable[[], StoreStats | None]) -> None:
        self._read = read

    def collect(self) -> Iterable[Metric]:
        stats = self._read()
        if stats is None:  # the store did not answer: the process's own metrics only
            return
        games = GaugeMetricFamily("yokai_games", "Games by status", labels=["status"])
        for status, count in sorted(stats.games_by_status.items()):
            games.add_metric([status], count)
        yield games
        yield GaugeMetricFamily("yokai_jobs_due", "Games whose worker job is due", stats.jobs_due)
        yield GaugeMetricFamily(
            "yokai_job_lag_seconds",
            "How long the oldest due worker job has waited (0: none)",
            stats.job_lag_seconds,
        )
        yield GaugeMetricFamily(
            "yokai_webhook_deliveries_pending",
            "Webhook deliveries waiting (due now or retrying later)",
            stats.deliveries_pending,
        )
        yield GaugeMetricFamily(
            "yokai_webhook_delivery_lag_seconds",
            "How long the oldest due webhook delivery has waited (0: none)",
            stats.delivery_lag_seconds,
        )
        yield GaugeMetricFamily(
            "yokai_reviews_waiting",
            "Hand reviews asked for and not done yet (the worker's review queue)",
            stats.reviews_waiting,
        )
        if stats.relay_lag_seconds is not None:  # a relay has run (YOKAI_REDIS_URL)
            yield GaugeMetricFamily(
                "yokai_relay_lag_seconds",
                "How long the oldest committed command the relay has not announced has "
                "waited (0: none)",
                stats.relay_lag_seconds,
            )


class _Default(Collector):
    """The process's own registry, when not in multiprocess mode."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def _registry(read_store: Callable[[], StoreStats | None] | None) -> CollectorRegistry:
    """Every process's metrics (this one's alone outside multiprocess mode), and the
    store's when ``read_store`` is given."""
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(_Default())
    if read_store is not None:
        registry.register(_StoreCollector(read_store))
    return registry


def render(read_store: Callable[[], StoreStats] | None) -> tuple[bytes, str]:
    """The exposition of every process's metrics and the store's, and its content type."""
    return generate_latest(_registry(read_store)), CONTENT_TYPE_LATEST


def serve(host: str, port: int, read_store: Callable[[], StoreStats] | None) -> WSGIServer:
    """Serve the exposition over HTTP on ``host:port`` (a daemon thread; any path): the
    stand-alone worker's metrics. ``shutdown()`` the server returned to stop it."""

    def read() -> StoreStats | None:
        if read_store is None:
            return None
        try:
            return read_store()
        except Exception as error:  # a scrape must not fail with the store
            log.warning("metrics: the store's gauges are left out: %s", error)
            return None

    server, _ = start_http_server(port, addr=host, registry=_registry(read))
    return server


def process_exited(pid: int) -> None:
    """gunicorn's child_exit: forget a dead worker's live gauges."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
