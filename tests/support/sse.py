"""Server-Sent Events from outside: the one parser of the tests and the benchmarks
(:class:`SseParser`, fed bytes as they arrive), a client that reads one stream a message
at a time, each read bounded by a deadline (:class:`SseStream`), and, for the
live-delivery tests, an app served on 127.0.0.1 (Werkzeug's threaded server, in a thread
of the test process).

Part of the harness that bench/ shares with the tests (see tests/support/__init__.py):
it imports no pytest.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from flask import Flask
from werkzeug.serving import make_server

from service.web.app import begin_shutdown


@contextmanager
def served(app: Flask) -> Iterator[str]:
    """``app`` on a socket of its own; its base URL. At the end its open streams are told
    the process stops (as SIGTERM does) and the server thread is joined."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_port}"
    finally:
        begin_shutdown(app)
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@dataclass(frozen=True)
class Frame:
    """One message as it came: its event name, its id (None: none) and its data lines."""

    event: str
    id: int | None
    data: bytes


class SseParser:
    """Messages out of a stream's body, fed as it arrives, in pieces of any size; its
    comments (keep-alives) are counted."""

    def __init__(self) -> None:
        self.comments = 0
        self._rest = b""
        self._event = "message"
        self._id: int | None = None
        self._data: list[bytes] = []

    def feed(self, chunk: bytes) -> list[Frame]:
        """The messages that ``chunk`` completes (a blank line ends one)."""
        lines = (self._rest + chunk).split(b"\n")
        self._rest = lines.pop()
        frames: list[Frame] = []
        for raw in lines:
            line = raw.rstrip(b"\r")
            if not line:
                if self._data:
                    frames.append(Frame(self._event, self._id, b"\n".join(self._data)))
                self._event, self._id, self._data = "message", None, []
            elif line.startswith(b":"):
                self.comments += 1
            else:
                name, _, value = line.partition(b":")
                value = value.removeprefix(b" ")
                if name == b"event":
                    self._event = value.decode()
                elif name == b"id":
                    self._id = int(value)
                elif name == b"data":
                    self._data.append(value)
        return frames


@dataclass(frozen=True)
class Message:
    event: str
    id: int | None
    data: Any

    @classmethod
    def of(cls, frame: Frame) -> Message:
        return cls(frame.event, frame.id, json.loads(frame.data))


class SseStream:
    """One GET on a stream: its status and headers, then its messages."""

    def __init__(
        self, host: str, path: str, headers: dict[str, str] | None = None, timeout: float = 10
    ) -> None:
        self.conn = http.client.HTTPConnection(host, timeout=timeout)
        self.conn.request("GET", path, headers=headers or {})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.parser = SseParser()

    @property
    def comments(self) -> int:
        return self.parser.comments

    def problem(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.response.read())
        return body

    def events(self) -> Iterator[Message | None]:
        """Each message as it arrives, and None for each comment (a keep-alive); ends
        when the server ends the stream. A read that waits past the timeout raises
        TimeoutError."""
        while True:
            line = self.response.readline()
            if not line:
                return
            comments = self.parser.comments
            for frame in self.parser.feed(line):
                yield Message.of(frame)
            if self.parser.comments != comments:
                yield None

    def next(self, deadline: float | None = None) -> Message | None:
        """The next message (comments are counted and skipped); None when the server
        ended the stream. A read that waits past the timeout raises TimeoutError, and so
        does one still reading (keep-alives, say) at ``deadline`` (time.monotonic)."""
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("the stream went on past its deadline")
            line = self.response.readline()
            if not line:
                return None
            for frame in self.parser.feed(line):
                return Message.of(frame)

    def next_comment(self) -> list[Message]:
        """Read up to the next comment line; the messages that came before it."""
        before: list[Message] = []
        for message in self.events():
            if message is None:
                return before
            before.append(message)
        raise AssertionError("the stream ended")

    def until(
        self, event: str, ident: int | None = None, *, seconds: float | None = None
    ) -> list[Message]:
        """Messages up to and including the first ``event`` (with ``id`` ident); with
        ``seconds``, TimeoutError past them even while keep-alives come."""
        deadline = None if seconds is None else time.monotonic() + seconds
        seen: list[Message] = []
        while True:
            message = self.next(deadline)
            assert message is not None, f"the stream ended before {event} {ident}: {seen}"
            seen.append(message)
            if message.event == event and (ident is None or message.id == ident):
                return seen

    def close(self) -> None:
        self.response.close()  # it holds the socket open too
        self.conn.close()

    def __enter__(self) -> SseStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
