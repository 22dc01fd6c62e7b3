"""Liveness and readiness probes."""

from __future__ import annotations

from flask import Response, jsonify

from service.web import schemas as s
from service.web.api import Blueprint
from service.web.http import services

blp = Blueprint("ops", __name__, description="Probes for operators and orchestrators")


@blp.route("/healthz", methods=["GET"])
@blp.response(200, s.HealthSchema)
def healthz() -> Response:
    """200 while the process is up."""
    return jsonify({"status": "ok", "detail": "up"})


@blp.route("/readyz", methods=["GET"])
@blp.response(200, s.HealthSchema)
@blp.alt_response(503, schema=s.HealthSchema, description="database unreachable or not migrated")
def readyz() -> Response:
    """200 only when the database is reachable and migrated to the head revision."""
    ready, detail = services().health.ready()
    response = jsonify({"status": "ok" if ready else "unavailable", "detail": detail})
    response.status_code = 200 if ready else 503
    return response
