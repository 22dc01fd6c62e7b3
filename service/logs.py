"""Logs as one JSON object per line (python-json-logger), for the API, its gunicorn
master and workers, and `yokai worker` alike.

Every request gets one line from ``yokai.request`` (service/web/app.py): request id,
method, route (the template, never the path with its query), status, duration, game id,
actor kind and problem code. Nothing that opens a seat or shows a card is ever a field:
no token, no body, no query string; problem details stay in responses. tests/e2e/
test_logs.py plays games and scans every line for tokens, hands, passes and seeds.
``YOKAI_LOG_FORMAT=text`` gives plain lines for a terminal.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

from pythonjsonlogger.json import JsonFormatter

FIELDS = ["asctime", "levelname", "name", "message"]
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def formatter(fmt: str = "json") -> logging.Formatter:
    if fmt == "text":
        return logging.Formatter(TEXT)
    return JsonFormatter(FIELDS, rename_fields=RENAMED, json_ensure_ascii=False)


def configure(level: str = "INFO", fmt: str = "json") -> None:
    """Log to standard error in ``fmt`` (json or text), unless logging is set up already
    (as basicConfig: a test runner's capture, or an embedding application)."""
    root = logging.getLogger()
    root.setLevel(level)
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    root.addHandler(handler)


def gunicorn_logconfig(level: str = "INFO", fmt: str = "json") -> dict[str, Any]:
    """gunicorn's ``logconfig_dict``: its master's and workers' own lines in the same
    format (its access log is off: the app logs each request itself)."""
    factory = (
        {"()": "pythonjsonlogger.json.JsonFormatter", "fmt": FIELDS, "rename_fields": RENAMED}
        if fmt != "text"
        else {"format": TEXT}
    )
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"yokai": factory},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "yokai",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"level": level, "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level, "handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"level": "WARNING", "handlers": ["stderr"], "propagate": False},
        },
    }
