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
    assert out.getvalue().endswith(" POST /v1/games/<game_id>/play 409 1.2 ms wrong_phase\n")


def test_a_request_logger_turned_down_writes_nothing(root: logging.Logger) -> None:
    handler, out = stream_handler(logs.JsonLines())
    root.addHandler(handler)
    logs.REQUEST.setLevel(logging.WARNING)
    try:
        logs.request(FIELDS)
    finally:
        logs.REQUEST.setLevel(logging.NOTSET)
    assert out.getvalue() == ""


def test_auto_is_text_on_a_terminal_and_json_elsewhere() -> None:
    """`yokai serve` run in a terminal logs lines a person reads; in a container, a file
    or a pipe, JSON lines for a collector (issue 48: a flood of JSON in a terminal)."""
    import os  # noqa: PLC0415
    import pty  # noqa: PLC0415

    leader, follower = pty.openpty()
    try:
        with open(follower, "w", closefd=False) as terminal:
            assert logs.resolved("auto", terminal) == "text"
            assert logs.resolved("json", terminal) == "json"
    finally:
        os.close(leader)
        os.close(follower)
    assert logs.resolved("auto", io.StringIO()) == "json"
    assert logs.resolved("text", io.StringIO()) == "text"


def test_a_request_in_text_reads_as_a_line_of_method_route_status_and_time(
    root: logging.Logger,
) -> None:
    handler, out = stream_handler(logs.formatter("text"))
    root.addHandler(handler)
    logs.request(FIELDS)
    logging.getLogger("service.worker").info("worker: started")
    request, other = out.getvalue().splitlines()
    assert re.fullmatch(
        r"\d\d:\d\d:\d\d POST /v1/games/<game_id>/play 409 1\.2 ms wrong_phase", request
    )
    assert re.fullmatch(r"\d\d:\d\d:\d\d INFO service\.worker: worker: started", other)
    assert "request_id" not in request and "{" not in request


def test_gunicorn_logs_in_the_same_text_when_asked(
    root: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("gunicorn.error", "gunicorn.access"):
        logger = logging.getLogger(name)
        for attribute in ("handlers", "propagate", "level"):
            monkeypatch.setattr(logger, attribute, getattr(logger, attribute))
    logging.config.dictConfig(logs.gunicorn_logconfig("INFO", "text"))
    (handler,) = root.handlers
    assert isinstance(handler.formatter, logs.TextLines)
    (error,) = logging.getLogger("gunicorn.error").handlers
    assert isinstance(error.formatter, logs.TextLines)


def test_serve_makes_no_gunicorn_control_socket_in_the_home_folder() -> None:
    """gunicorn 25+ opens a control socket by default, in ~/.gunicorn where no runtime
    folder is set (issue 48); the config turns it off, by a name gunicorn knows (a
    misspelt setting would be ignored silently)."""
    import runpy  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    from gunicorn.config import Config  # noqa: PLC0415

    conf = runpy.run_path(str(Path(__file__).resolve().parents[1] / "deploy" / "gunicorn.conf.py"))
    assert conf["control_socket_disable"] is True
    settings = Config().settings
    assert "control_socket_disable" in settings
    assert conf["logconfig_dict"]["formatters"]["yokai"]["()"] in {
        "service.logs.JsonLines",
        "service.logs.TextLines",
    }
