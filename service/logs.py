"""Logs as one JSON object per line (python-json-logger), for the API, its gunicorn
master and workers, and `yokai worker` alike.

Every request gets one line from ``yokai.request`` (:func:`request`): request id, client
request id, method, route (the template, never the path with its query), status,
duration, game id, actor kind and problem code. Nothing that opens a seat or shows a
card is ever a field: no token, no body, no query string; problem details stay in
responses. tests/e2e/test_logs.py plays games and scans every line for tokens, hands,
passes and seeds.

``YOKAI_LOG_FORMAT`` chooses: ``json``, ``text`` (a line a person reads: the time, the
level, the logger and the message; a request as ``POST /v1/games/<game_id>/play 409 1.2
ms wrong_phase``), or ``auto``, the default: text when standard error is a terminal
(someone runs `yokai serve` to look at it), JSON lines otherwise (a container, a file, a
log collector).

The request line is the one line of every request: where logging is set up as here (one
stream handler of :class:`JsonLines`, as :func:`configure` and :func:`gunicorn_logconfig`
make it), it is serialized from its fields and written at once, the same line a
LogRecord would give, without building one and without the formatter's generic work
(which made the line cost about 2.5 times as much). Set up otherwise (a test's capture,
an embedding application's handlers, the text format), it is logged as any record.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

from pythonjsonlogger.json import JsonEncoder, JsonFormatter

FIELDS = ["asctime", "levelname", "name", "message"]
RENAMED = {"asctime": "time", "levelname": "level", "name": "logger"}
TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
FORMATS = ("auto", "json", "text")


def resolved(fmt: str, stream: Any = None) -> str:
    """``json`` or ``text``: ``auto`` is text where ``stream`` (standard error) is a
    terminal, JSON elsewhere."""
    if fmt != "auto":
        return fmt
    stream = sys.stderr if stream is None else stream
    try:
        return "text" if stream.isatty() else "json"
    except (AttributeError, ValueError):  # no stream, or a closed one
        return "json"


REQUEST = logging.getLogger("yokai.request")


class JsonLines(JsonFormatter):
    """python-json-logger's JSON lines: ``time``, ``level``, ``logger``, ``message``, then
    the record's extra fields; and the request line from its fields (:meth:`request`)."""

    def __init__(self, *, ensure_ascii: bool = True) -> None:
        super().__init__(FIELDS, rename_fields=RENAMED, json_ensure_ascii=ensure_ascii)
        self._encode = JsonEncoder(ensure_ascii=ensure_ascii).encode
        self._second: tuple[int, str] = (-1, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None or self.converter is not time.localtime:
            return super().formatTime(record, datefmt)
        return self._time(record.created, record.msecs)

    def _time(self, created: float, msecs: float) -> str:
        """As logging's default (``2026-11-27 22:16:41,736``), the part to the second
        formatted once a second."""
        second = int(created)
        cached = self._second
        if cached[0] != second:
            text = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created))
            cached = self._second = (second, text)
        return "%s,%03d" % (cached[1], msecs)  # noqa: UP031 - logging's own format

    def request(self, fields: dict[str, Any]) -> str:
        """The request line of ``fields``, as a record of them logged now would read."""
        now = time.time()
        line = {
            "time": self._time(now, int((now - int(now)) * 1000)),
            "level": "INFO",
            "logger": REQUEST.name,
            "message": "request",
        }
        line.update(fields)
        return self.prefix + self._encode(line)


class TextLines(logging.Formatter):
    """Lines a person reads in a terminal: ``12:01:03 INFO logger: message``, and a
    request's line from its fields (method, route, status, duration, problem) where
    JSON would carry them as fields."""

    def __init__(self) -> None:
        super().__init__(TEXT, datefmt="%H:%M:%S")

    def formatMessage(self, record: logging.LogRecord) -> str:
        if record.name == REQUEST.name and hasattr(record, "route"):
            fields = record.__dict__
            parts = [
                str(fields.get("method")),
                str(fields.get("route") or "-"),
                str(fields.get("status")),
                f"{fields.get('duration_ms', 0):.1f} ms",
            ]
            if fields.get("problem"):
                parts.append(str(fields["problem"]))
            return f"{record.asctime} {' '.join(parts)}"
        return super().formatMessage(record)


def formatter(fmt: str = "json") -> logging.Formatter:
    if resolved(fmt) == "text":
        return TextLines()
    return JsonLines(ensure_ascii=False)


def configure(level: str = "INFO", fmt: str = "auto") -> None:
    """Log to standard error in ``fmt`` (json, text, or auto: text on a terminal),
    unless logging is set up already (as basicConfig: a test runner's capture, or an
    embedding application)."""
    root = logging.getLogger()
    root.setLevel(level)
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(fmt))
    root.addHandler(handler)


def request(fields: dict[str, Any]) -> None:
    """Log a request's line (the module's docstring says how)."""
    if not REQUEST.isEnabledFor(logging.INFO):
        return
    handler = _stream_of_json_lines()
    if handler is None:
        REQUEST.info("request", extra=fields)
        return
    formatter = handler.formatter
    assert isinstance(formatter, JsonLines)
    handler.acquire()
    try:
        handler.stream.write(formatter.request(fields) + handler.terminator)
        handler.stream.flush()
    except Exception:  # as a handler does: the line is lost, the request is not
        handler.handleError(logging.makeLogRecord({"name": REQUEST.name, "msg": "request"}))
    finally:
        handler.release()


def _stream_of_json_lines() -> logging.StreamHandler[Any] | None:
    """The one handler a request's record would reach, when it is a plain stream handler
    of :class:`JsonLines` that lets every INFO record through; else None."""
    found = None
    logger: logging.Logger | None = REQUEST
    if REQUEST.filters:
        return None
    while logger is not None:
        for handler in logger.handlers:
            if found is not None:
                return None
            found = handler
        if not logger.propagate:
            break
        logger = logger.parent
    if (
        type(found) is logging.StreamHandler
        and isinstance(found.formatter, JsonLines)
        and not found.filters
        and found.level <= logging.INFO
    ):
        return found
    return None


def gunicorn_logconfig(level: str = "INFO", fmt: str = "auto") -> dict[str, Any]:
    """gunicorn's ``logconfig_dict``: its master's and workers' own lines in the same
    format (its access log is off: the app logs each request itself)."""
    text = resolved(fmt) == "text"
    factory = {"()": "service.logs.TextLines" if text else "service.logs.JsonLines"}
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
