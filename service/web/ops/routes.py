"""Liveness and readiness probes, and the metrics."""

from __future__ import annotations

import ipaddress
import threading
import time

from flask import Response, current_app, jsonify, request

from service import metrics
from service.application.errors import ForbiddenError
from service.application.identity.principals import Operator
from service.web.api import BEARER, Blueprint
from service.web.ops.schemas import HealthSchema
from service.web.request import principal, services

blp = Blueprint("ops", __name__, description="Probes for operators and orchestrators")


@blp.route("/healthz", methods=["GET"])
@blp.response(200, HealthSchema)
def healthz() -> Response:
    """200 while the process is up."""
    return jsonify({"status": "ok", "detail": "up"})


_PROBE_SECONDS = 1.0


class _Probe:
    """The database probe, at most once a second per process: /readyz is exempt from
    rate limits, so asking it often must not cost a query each time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.at = float("-inf")
        self.result = (False, "", True)


def _probe() -> tuple[bool, str, bool]:
    """The database's readiness and its detail, and whether the bus answers."""
    probe: _Probe = current_app.extensions.setdefault("yokai_probe", _Probe())
    with probe.lock:
        now = time.monotonic()
        if now - probe.at >= _PROBE_SECONDS:
            found = services()
            ready, detail = found.health.ready()
            bus = found.bus_reachable() if found.bus_reachable is not None else True
            probe.result = (ready, detail, bus)
            probe.at = now
        return probe.result


BUS_AWAY = "Redis (YOKAI_REDIS_URL) does not answer: live delivery falls back on the store"


@blp.route("/readyz", methods=["GET"])
@blp.response(200, HealthSchema)
@blp.alt_response(503, schema=HealthSchema, description="database unreachable or not migrated")
def readyz() -> Response:
    """200 only when the database is reachable and migrated to the head revision.

    Its status is `degraded` while the message bus (YOKAI_REDIS_URL) does not answer:
    commands and views are served, and streams and long-polls catch up from the
    database, later than they would."""
    ready, detail, bus = _probe()
    if not ready:
        status = "unavailable"
    elif not bus:
        status, detail = "degraded", BUS_AWAY
    else:
        status = "ok"
    response = jsonify({"status": status, "detail": detail})
    response.status_code = 200 if ready else 503
    return response


@blp.route("/metrics", methods=["GET"])
@blp.doc(
    security=[{}, *BEARER],
    responses={
        "200": {
            "description": "Prometheus text exposition: every process of this instance, "
            "and what the store says (games by status, jobs due, deliveries waiting)",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    },
)
@blp.problems(401, 403)
def metrics_endpoint() -> Response:
    """Metrics for Prometheus: open to the addresses of YOKAI_METRICS_ALLOW (default:
    this machine), and to operators' tokens from anywhere."""
    allowed: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = current_app.extensions[
        "yokai_metrics_allow"
    ]
    try:
        address = ipaddress.ip_address(request.remote_addr or "")
    except ValueError:
        address = None
    near = address is not None and any(address in net for net in allowed)
    if not near and not isinstance(principal(), Operator):
        raise ForbiddenError("metrics are for operators and YOKAI_METRICS_ALLOW addresses")
    stats = services().stats
    body, content_type = metrics.render(stats.read if stats is not None else None)
    return Response(body, content_type=content_type)
