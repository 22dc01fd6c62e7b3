"""A real webhook receiver for tests: an HTTP server on 127.0.0.1 in a thread, that
verifies each request's signature with the `standardwebhooks` package's own verifier
(not the project's code) and records what arrived.

How it answers is set by the test: ``answers`` (a queue of statuses for the next
requests, then 204), ``retry_after`` (a Retry-After sent with every answer that is not
2xx), ``hang`` (seconds to wait before answering).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook, WebhookVerificationError


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: bytes
    message: Any  # the JSON, once verified; None if the signature did not verify
    verified: bool
    answered: int
    peer: tuple[str, int]  # the client's address: one per connection


@dataclass
class Receiver:
    url: str = ""
    secret: str | None = None  # set once the webhook is registered
    answers: list[int] = field(default_factory=list)
    hang: float = 0.0
    location: str | None = None  # sent with a 3xx answer
    retry_after: str | None = None  # sent with an answer that is not 2xx
    drop_kept: bool = False  # close each connection after answering, without saying so
    received: list[Received] = field(default_factory=list)
    started: int = 0  # requests that arrived, answered or not yet
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, count: int, timeout: float = 60.0) -> list[Received]:
        """The first ``count`` requests, once they have arrived (AssertionError if they
        do not within ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self.received) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{len(self.received)} of {count} webhooks arrived")
                self._changed.wait(left)
            return list(self.received[:count])

    def wait_started(self, count: int, timeout: float = 60.0) -> None:
        """Until ``count`` requests have arrived (answered or not)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.started < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"{self.started} of {count} requests arrived")
                self._changed.wait(left)

    def _start(self) -> None:
        with self._changed:
            self.started += 1
            self._changed.notify_all()

    def _record(self, headers: dict[str, str], body: bytes, peer: tuple[str, int]) -> int:
        message, verified = None, False
        if self.secret is not None:
            try:
                message = Webhook(self.secret).verify(body, headers)
                verified = True
            except WebhookVerificationError:
                pass
        with self._changed:
            status = self.answers.pop(0) if self.answers else 204
            self.received.append(Received(headers, body, message, verified, status, peer))
            self._changed.notify_all()
        return status


@contextmanager
def receiving(*, keep_alive: bool = False) -> Iterator[Receiver]:
    """A receiver; ``keep_alive``: it speaks HTTP/1.1 and keeps connections open."""
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            receiver._start()
            if receiver.hang:
                time.sleep(receiver.hang)  # the receiver under test is slow on purpose
            peer = (str(self.client_address[0]), int(self.client_address[1]))
            status = receiver._record(dict(self.headers.items()), body, peer)
            self.send_response(status)
            if 300 <= status < 400 and receiver.location:
                self.send_header("Location", receiver.location)
            if not 200 <= status < 300 and receiver.retry_after is not None:
                self.send_header("Retry-After", receiver.retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()
            if receiver.drop_kept:
                self.close_connection = True  # as an idle timeout would, later

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, name="webhook-receiver", daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def messages(received: list[Received]) -> list[dict[str, Any]]:
    return [json.loads(r.body) for r in received]
