"""The request line (service/logs.py): written from its fields where logging is set up as
the service sets it up, the same line a record of them gives; logged as a record
anywhere else (a capture, other handlers, the text format)."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import re
from collections.abc import Iterator
from typing import Any

import pytest

from service import logs

FIELDS: dict[str, Any] = {
    "request_id": "0123456789abcdef0123456789abcdef",
    "client_request_id": None,
    "method": "POST",
    "route": "/v1/games/<game_id>/play",
    "status": 409,
    "duration_ms": 1.23,
    "game_id": "6a9d33ff-d0ee-426f-aca5-689b9ec1a72a",
    "actor": "seat",
    "problem": "wrong_phase",
}
TIME = re.compile(r'"time": "(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3})"')


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch) -> Iterator[logging.Logger]:
    """The root logger at INFO, without the test runner's capture (restored after)."""
    found = logging.getLogger()
    monkeypatch.setattr(found, "handlers", [])
    level = found.level
    found.setLevel(logging.INFO)
    yield found
    found.setLevel(level)


def stream_handler(formatter: logging.Formatter) -> tuple[logging.Handler, io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(formatter)
    return handler, out


def as_a_record(formatter: logging.Formatter, fields: dict[str, Any] = FIELDS) -> str:
    record = logs.REQUEST.makeRecord(
        logs.REQUEST.name, logging.INFO, __file__, 1, "request", (), None, extra=fields
    )
    return formatter.format(record)


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_the_written_line_is_the_line_a_record_gives(
    root: logging.Logger, ensure_ascii: bool
) -> None:
    formatter = logs.JsonLines(ensure_ascii=ensure_ascii)
    handler, out = stream_handler(formatter)
    root.addHandler(handler)
    fields = {**FIELDS, "method": "GÉT"}  # a client's method need not be ASCII
    expected = as_a_record(formatter, fields)
    logs.request(fields)
    (line,) = out.getvalue().splitlines()
    assert TIME.search(line) and TIME.search(expected)
    assert TIME.sub("", line) == TIME.sub("", expected)
    assert list(json.loads(line)) == ["time", "level", "logger", "message", *FIELDS]
    assert ("GÉT" in line) is not ensure_ascii


def test_the_record_line_keeps_python_json_loggers_format(root: logging.Logger) -> None:
    from pythonjsonlogger.json import JsonFormatter  # noqa: PLC0415 - what it replaces

    before = JsonFormatter(logs.FIELDS, rename_fields=logs.RENAMED, json_ensure_ascii=False)
    now = as_a_record(logs.formatter("json"))
    assert TIME.search(now)
    assert TIME.sub("", now) == TIME.sub("", as_a_record(before))


def test_under_gunicorns_logging_the_line_is_written_in_its_format(
    root: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("gunicorn.error", "gunicorn.access"):  # as they were, after
        logger = logging.getLogger(name)
        for attribute in ("handlers", "propagate", "level"):
            monkeypatch.setattr(logger, attribute, getattr(logger, attribute))
    logging.config.dictConfig(logs.gunicorn_logconfig("INFO", "json"))
    (handler,) = root.handlers
    assert isinstance(handler, logging.StreamHandler) and isinstance(
        handler.formatter, logs.JsonLines
    )
    out = io.StringIO()
    monkeypatch.setattr(handler, "stream", out)
    logs.request(FIELDS)
    (line,) = out.getvalue().splitlines()
    assert json.loads(line) | {"time": None} == {
        "time": None,
        "level": "INFO",
        "logger": "yokai.request",
        "message": "request",
        **FIELDS,
    }


def test_set_up_otherwise_the_line_is_a_record(
    root: logging.Logger, caplog: pytest.LogCaptureFixture
) -> None:
    text, out = stream_handler(logs.formatter("text"))
    root.addHandler(text)
    caplog.set_level(logging.INFO, logs.REQUEST.name)
    logs.request(FIELDS)
    (record,) = caplog.records
    assert record.getMessage() == "request" and record.__dict__["route"] == FIELDS["route"]
    assert out.getvalue().endswith(" INFO yokai.request: request\n")


def test_a_request_logger_turned_down_writes_nothing(root: logging.Logger) -> None:
    handler, out = stream_handler(logs.JsonLines())
    root.addHandler(handler)
    logs.REQUEST.setLevel(logging.WARNING)
    try:
        logs.request(FIELDS)
    finally:
        logs.REQUEST.setLevel(logging.NOTSET)
    assert out.getvalue() == ""
