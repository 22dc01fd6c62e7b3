"""Metrics for Prometheus (service/metrics.py): requests, latency, commands by outcome,
events, games by status, streams, jobs, deliveries, pool use; open to this machine and
to operators; summed over gunicorn's workers; the Grafana dashboard asks only for them."""

from __future__ import annotations

import http.client
import json
import random
import re
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from service import metrics
from tests.e2e.test_serve_process import Served, start, stop
from tests.support.api import OPERATOR, Api
from tests.support.postgres import MakeApp, new_database
from tests.support.sse import SseStream, served

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "yokai-dashboard.json"


def samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, []).append((dict(s.labels), s.value))
    return out


Samples = dict[str, list[tuple[dict[str, str], float]]]


def value(found: Samples, name: str, **labels: str) -> float:
    return float(
        sum(v for ls, v in found.get(name, []) if all(ls.get(k) == x for k, x in labels.items()))
    )


def test_metrics_count_what_the_service_did(api: Api, sql: Any) -> None:
    before = samples(api.get("/metrics").get_data(as_text=True))
    game = api.start(3)
    for _ in api.play_out(game, random.Random(4)):
        pass
    refused = api.post(f"/v1/games/{game.id}/play", {"card": "green-1"}, **game.seat_headers(0))
    assert refused.status_code == 409
    r = api.get("/metrics")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    after = samples(r.get_data(as_text=True))
    created = value(after, "yokai_http_requests_total", method="POST", route="/v1/games")
    assert (
        created - value(before, "yokai_http_requests_total", method="POST", route="/v1/games") == 1
    )
    wrong = {"route": "/v1/games/<game_id>/play", "outcome": "wrong_phase"}
    assert (
        value(after, "yokai_commands_total", **wrong)
        - value(before, "yokai_commands_total", **wrong)
        == 1
    )
    events = api.get(f"/v1/games/{game.id}/audit?limit=1000", **OPERATOR).get_json()["events"]
    appended = value(after, "yokai_events_appended_total") - value(
        before, "yokai_events_appended_total"
    )
    assert appended >= len(events)
    finished = sql("SELECT count(*) FROM games WHERE status = 'finished'")[0][0]
    assert value(after, "yokai_games", status="finished") == finished
    assert value(after, "yokai_http_request_duration_seconds_count", route="/v1/games") >= 1
    assert value(after, "yokai_db_pool_size") >= 1
    for name in (
        "yokai_jobs_due",
        "yokai_job_lag_seconds",
        "yokai_open_streams",
        "yokai_webhook_deliveries_pending",
        "yokai_webhook_delivery_lag_seconds",
        "yokai_reviews_waiting",
    ):
        assert name in after, name


def test_metrics_are_for_this_machine_and_operators(api: Api) -> None:
    far = {"REMOTE_ADDR": "203.0.113.9"}
    assert api.client.get("/metrics", environ_base=far).status_code == 403
    with_token = api.client.get("/metrics", environ_base=far, headers=OPERATOR)
    assert with_token.status_code == 200


def test_the_dashboard_asks_only_for_metrics_the_service_exports(api: Api) -> None:
    api.get("/healthz")  # a request counted before the scrape: its series exist
    exported = set(samples(api.get("/metrics").get_data(as_text=True)))
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    assert len(exprs) >= 11
    for expr in exprs:
        names = set(re.findall(r"\byokai_[a-z_]+", expr))
        assert names and names <= exported, expr


def test_the_dashboard_takes_the_stores_gauges_once_not_once_per_replica() -> None:
    """Every API and worker replica exports the store's gauges (the same value each):
    the dashboard takes their max(), never a sum or each replica's series."""
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    for name in metrics.STORE_GAUGES:
        using = [e for e in exprs if re.search(rf"\b{name}\b", e)]
        assert using, name
        for expr in using:
            assert re.fullmatch(rf"max(?: by \([a-z_, ]+\))? ?\({name}\)", expr), expr


@pytest.mark.slow
def test_yokai_serve_sums_the_metrics_of_all_its_workers(server_url: str, tmp_path: Path) -> None:
    url = new_database(server_url, "yokai_metrics")
    served: Served = start(
        {
            "DATABASE_URL": url,
            "YOKAI_WORKERS": "2",
            "YOKAI_EMBEDDED_WORKER": "0",
            "YOKAI_LOG_LEVEL": "WARNING",
        },
        tmp_path,
    )
    try:
        for _ in range(30):  # a new connection each: both workers answer some
            status, _, _ = served.request(
                "POST", "/v1/games", b'{"players": 3}', {"Content-Type": "application/json"}
            )
            assert status == 201
        totals = set()
        for _ in range(10):  # whichever worker answers, it counts every worker's requests
            with urllib.request.urlopen(served.base + "/metrics", timeout=10) as r:
                found = samples(r.read().decode())
            totals.add(value(found, "yokai_http_requests_total", method="POST", route="/v1/games"))
        assert totals == {30.0}
        assert value(found, "yokai_games", status="waiting") == 30
    finally:
        assert stop(served) == 0


def test_open_streams_counts_each_stream_and_waiting_long_poll_while_it_is_open(
    make_app: MakeApp,
) -> None:
    """yokai_open_streams goes up as a stream opens or a long-poll starts waiting, and
    down as each ends: a long-poll answered, a stream whose client went away."""
    app = make_app(keepalive_seconds=1)
    api = app.api()
    game = api.start(3)

    def open_streams() -> float:
        return value(samples(api.get("/metrics").get_data(as_text=True)), "yokai_open_streams")

    def settles_at(expected: float) -> None:
        deadline = time.monotonic() + 30
        while open_streams() != expected:
            assert time.monotonic() < deadline, f"{open_streams()} streams open, not {expected}"
            time.sleep(0.05)

    with served(app.flask) as host:
        base = open_streams()
        public = SseStream(host, f"/v1/games/{game.id}/stream")
        assert (first := public.next()) is not None and first.event == "view"
        assert open_streams() == base + 1
        seat = SseStream(host, f"/v1/games/{game.id}/stream", game.seat_headers(0))
        assert (first := seat.next()) is not None and first.event == "view"
        assert open_streams() == base + 2

        version = api.public(game.id)["version"]
        polled: list[int] = []

        def long_poll() -> None:
            conn = http.client.HTTPConnection(host, timeout=30)
            path = f"/v1/games/{game.id}/events?after={version}&wait=20"
            conn.request("GET", path, headers=game.seat_headers(1))
            response = conn.getresponse()
            response.read()
            polled.append(response.status)
            conn.close()

        poller = threading.Thread(target=long_poll)
        poller.start()
        try:
            settles_at(base + 3)
            cards = api.view(game, 1)["legal"][:3]
            assert api.pass_cards(game, 1, cards).status_code == 200  # the poll is answered
        finally:
            poller.join(timeout=30)
        assert polled == [200]
        settles_at(base + 2)
        public.close()
        settles_at(base + 1)  # noticed at the next keep-alive it fails to send
        seat.close()
        settles_at(base)
