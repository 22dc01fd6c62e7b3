"""Real sockets for the live-delivery tests: an app served on 127.0.0.1 (Werkzeug's
threaded server, in a thread of the test process) and a small Server-Sent Events
client that reads one message at a time, each read bounded by a deadline."""

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
class Message:
    event: str
    id: int | None
    data: Any


class SseStream:
    """One GET on a stream: its status and headers, then its messages."""

    def __init__(
        self, host: str, path: str, headers: dict[str, str] | None = None, timeout: float = 10
    ) -> None:
        self.conn = http.client.HTTPConnection(host, timeout=timeout)
        self.conn.request("GET", path, headers=headers or {})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.comments = 0

    def problem(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.response.read())
        return body

    def next(self, deadline: float | None = None) -> Message | None:
        """The next message (comments are counted and skipped); None when the server
        ended the stream. A read that waits past the timeout raises TimeoutError, and so
        does one still reading (keep-alives, say) at ``deadline`` (time.monotonic)."""
        event, ident, data = "message", None, list[str]()
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("the stream went on past its deadline")
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\r\n")
            if text == "":
                if data:
                    return Message(event, ident, json.loads("\n".join(data)))
                continue
            if text.startswith(":"):
                self.comments += 1
                continue
            name, _, value = text.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "id":
                ident = int(value)
            elif name == "data":
                data.append(value)

    def next_comment(self) -> list[Message]:
        """Read up to the next comment line; the messages that came before it."""
        before: list[Message] = []
        count = self.comments
        while True:
            line = self.response.readline()
            assert line, "the stream ended"
            text = line.decode().rstrip("\r\n")
            if text.startswith(":"):
                self.comments = count + 1
                return before
            if text.startswith("event:"):
                before.append(Message(text[6:].strip(), None, None))

    def until(self, event: str, ident: int | None = None) -> list[Message]:
        """Messages up to and including the first ``event`` (with ``id`` ident)."""
        seen: list[Message] = []
        while True:
            message = self.next()
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
