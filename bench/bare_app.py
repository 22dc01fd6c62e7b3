"""The yardstick: a bare Flask JSON endpoint, run under the same gunicorn config as the
service. It reads the JSON body of a command and answers with a small JSON document; it
touches no database. ``gunicorn -c deploy/gunicorn.conf.py bench.bare_app:app``."""

from __future__ import annotations

from typing import Any

from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue

app = Flask(__name__)


@app.route("/readyz")
def ready() -> ResponseReturnValue:
    return jsonify({"status": "ok"})


@app.route("/<path:path>", methods=["GET", "POST"])
def anything(path: str) -> ResponseReturnValue:
    body: Any = request.get_json(silent=True) if request.method == "POST" else None
    return jsonify({"path": path, "received": body is not None, "version": 1})
