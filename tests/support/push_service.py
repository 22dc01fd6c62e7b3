"""A push service of our own for tests and benchmarks: a real HTTP server on 127.0.0.1 in
a thread, speaking Web Push as a browser's push service does (RFC 8030), that checks each
message's VAPID signature (RFC 8292) and decrypts it with the subscriber's keys
(RFC 8291), by the `PyJWT` and `http_ece` packages rather than the project's own code
(of which it uses only the base64url helpers).

    with PushService() as service:
        subscriber = service.subscribe(vapid_public_key)
        ... # the server is handed subscriber.subscription, and pushes
        (got,) = service.wait_for(lambda received: len(received) >= 1, timeout=30)
        got.json()  # the payload, decrypted

``subscribe`` makes a subscriber as a browser would: a fresh P-256 key pair and a
16-byte authentication secret, bound to the application server key it was given, with
the endpoint ``{url}/push/{id}``. A ``POST /push/{id}`` is checked:

- an unknown id: 404;
- a body without Content-Length: 411; over 4096 bytes: 413;
- ``Content-Encoding: aes128gcm``, a ``TTL`` of digits, an ``Urgency`` (when given) of
  RFC 8030's four, a ``Topic`` (when given) of at most 32 base64url characters, no
  field given twice: else 400;
- ``Authorization: vapid t=<JWT>, k=<key>``: missing or unreadable, 401; ``k`` other
  than the key the subscription was made with, 403; a JWT that does not verify (ES256
  with that key) or whose ``aud`` is not this service's origin, whose ``exp`` is past or
  more than 24 h ahead, or whose ``sub`` is not a ``mailto:`` or ``https:`` URI: 401;
- the body: one aes128gcm record whose key id is the sender's P-256 key, decrypted
  with the subscriber's private key and secret: else 400.

A message passing every check is answered as :meth:`PushService.answer` scripted (a 410
to say the subscription is gone, a 429 with ``Retry-After`` ...), or else 201 and
recorded as :class:`Received`. Every request is in ``attempts`` with its status and the
reason, so a test reads what was refused and why.

Part of the harness bench/ shares with the tests (tests/support/__init__.py): no pytest.
"""

from __future__ import annotations

import json
import re
import secrets
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.adapters.push.vapid import b64url, unb64url
from tests.support.waiting import WaitedTooLongError

MAX_BODY = 4096  # RFC 8030 section 7.2: what a push service must accept, at least
MAX_AHEAD = 24 * 3600  # RFC 8292 section 2: a JWT's exp at most 24 h ahead
URGENCIES = ("very-low", "low", "normal", "high")
_TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")
_AUTHORIZATION = re.compile(r"vapid\s+(.*)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Received:
    """A message the service accepted: its headers (names as sent) and its payload,
    decrypted; ``at``, when its request arrived, in Unix seconds (time.time(), comparable
    between processes)."""

    subscriber_id: str
    headers: dict[str, str]
    payload: bytes
    at: float

    def json(self) -> Any:
        return json.loads(self.payload)


@dataclass(frozen=True)
class Attempt:
    """A request and how it was answered: 201 "accepted", a scripted status
    ("scripted"), or a refusal and its reason."""

    subscriber_id: str
    status: int
    reason: str
    at: float


@dataclass(frozen=True)
class Subscriber:
    id: str
    endpoint: str
    application_server_key: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes

    @property
    def public_key(self) -> bytes:
        """The 65-byte uncompressed point (``keys.p256dh``)."""
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )

    @property
    def subscription(self) -> dict[str, Any]:
        """As a browser's ``PushSubscription.toJSON()`` gives it."""
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64url(self.public_key), "auth": b64url(self.auth)},
        }


class Refused(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


class PushService:
    """The push service, serving from construction until :meth:`close` (or the end of
    its ``with`` block)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._subscribers: dict[str, Subscriber] = {}
        self._scripted: dict[str, list[tuple[int, str | None]]] = {}
        self.received: list[Received] = []
        self.attempts: list[Attempt] = []
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # connections kept alive, as a push service does

            def do_POST(self) -> None:
                service._handle(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            # a short poll: close() waits for it (the default is half a second)
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="push-service",
            daemon=True,
        )
        self._thread.start()

    def __enter__(self) -> PushService:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def subscribe(self, application_server_key: str) -> Subscriber:
        """A new subscription bound to ``application_server_key`` (base64url, as given to
        ``PushManager.subscribe``)."""
        subscriber_id = secrets.token_urlsafe(12)
        subscriber = Subscriber(
            subscriber_id,
            f"{self.url}/push/{subscriber_id}",
            application_server_key,
            ec.generate_private_key(ec.SECP256R1()),
            secrets.token_bytes(16),
        )
        with self._changed:
            self._subscribers[subscriber_id] = subscriber
        return subscriber

    def answer(
        self, subscriber_id: str, status: int, *, retry_after: str | None = None, times: int = 1
    ) -> None:
        """Answer the next ``times`` messages to this subscriber that pass the checks with
        ``status`` (and ``Retry-After``), instead of accepting them."""
        with self._changed:
            self._scripted.setdefault(subscriber_id, []).extend([(status, retry_after)] * times)

    def wait_for(
        self, predicate: Callable[[list[Received]], bool], timeout: float = 60.0
    ) -> list[Received]:
        """The messages received, once ``predicate`` holds for them (WaitedTooLongError,
        an AssertionError, if it does not within ``timeout`` seconds)."""
        return self._wait(lambda: list(self.received), predicate, timeout, "pushes")

    def wait_for_attempts(
        self, predicate: Callable[[list[Attempt]], bool], timeout: float = 60.0
    ) -> list[Attempt]:
        """Every request answered so far, accepted or not, once ``predicate`` holds."""
        return self._wait(lambda: list(self.attempts), predicate, timeout, "push attempts")

    @property
    def rejections(self) -> list[Attempt]:
        """The requests refused by a check (not the scripted answers)."""
        with self._changed:
            return [a for a in self.attempts if a.reason not in ("accepted", "scripted")]

    def _wait(
        self,
        seen: Callable[[], list[Any]],
        predicate: Callable[[list[Any]], bool],
        timeout: float,
        what: str,
    ) -> list[Any]:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                now = seen()
                if predicate(now):
                    return now
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WaitedTooLongError(f"timed out waiting for {what}: {len(now)} so far")
                self._changed.wait(left)

    # the server's side

    def _handle(self, request: BaseHTTPRequestHandler) -> None:
        arrived = time.time()  # when the request reached the service, before its checks
        found = re.fullmatch(r"/push/([A-Za-z0-9_-]+)", request.path)
        subscriber_id = found.group(1) if found else ""
        headers = dict(request.headers.items())
        retry_after = None
        try:
            length = request.headers.get("Content-Length")
            if length is None or not length.isdigit():
                request.close_connection = True  # the body's end is unknown
                raise Refused(411, "no Content-Length")
            if int(length) > 64 * MAX_BODY:
                request.close_connection = True  # not read: the connection ends
                raise Refused(413, f"a body is at most {MAX_BODY} bytes")
            body = request.rfile.read(int(length))
            with self._changed:
                subscriber = self._subscribers.get(subscriber_id)
            if subscriber is None:
                raise Refused(404, "no such subscription")
            payload = self._checked(request, subscriber, body)
            with self._changed:
                scripted = self._scripted.get(subscriber_id)
                if scripted:
                    status, retry_after = scripted.pop(0)
                    self._attempted(Attempt(subscriber_id, status, "scripted", time.time()))
                else:
                    status = 201
                    self.received.append(Received(subscriber_id, headers, payload, arrived))
                    self._attempted(Attempt(subscriber_id, 201, "accepted", time.time()))
            reason = ""
        except Refused as refused:
            status, reason = refused.status, refused.reason
            with self._changed:
                self._attempted(Attempt(subscriber_id, status, reason, time.time()))
        text = reason.encode()
        request.send_response(status)
        if status == 201:
            request.send_header("Location", f"{self.url}/message/{secrets.token_urlsafe(12)}")
        if retry_after is not None:
            request.send_header("Retry-After", retry_after)
        request.send_header("Content-Type", "text/plain; charset=utf-8")
        request.send_header("Content-Length", str(len(text)))
        request.end_headers()
        request.wfile.write(text)

    def _attempted(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)
        self._changed.notify_all()

    def _checked(
        self, request: BaseHTTPRequestHandler, subscriber: Subscriber, body: bytes
    ) -> bytes:
        """The payload, decrypted, once every check has passed (Refused otherwise)."""
        fields = request.headers
        names = [name.lower() for name in fields]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise Refused(400, f"given twice: {', '.join(twice)}")
        if len(body) > MAX_BODY:
            raise Refused(413, f"a body is at most {MAX_BODY} bytes")
        if fields.get("Content-Encoding") != "aes128gcm":
            raise Refused(400, "Content-Encoding is not aes128gcm")
        ttl = fields.get("TTL")
        if ttl is None or not ttl.isascii() or not ttl.isdigit():
            raise Refused(400, "no TTL of digits")
        urgency = fields.get("Urgency")
        if urgency is not None and urgency not in URGENCIES:
            raise Refused(400, f"Urgency {urgency!r} is not one of RFC 8030's")
        topic = fields.get("Topic")
        if topic is not None and not _TOPIC.fullmatch(topic):
            raise Refused(400, "a Topic is at most 32 base64url characters")
        self._check_vapid(fields.get("Authorization"), subscriber)
        return self._decrypted(subscriber, body)

    def _check_vapid(self, authorization: str | None, subscriber: Subscriber) -> None:
        found = _AUTHORIZATION.fullmatch(authorization or "")
        if found is None:
            raise Refused(401, "no vapid Authorization")
        params = {}
        for part in found.group(1).split(","):
            name, equals, value = part.strip().partition("=")
            if equals:
                params[name.strip()] = value.strip()
        token, k = params.get("t"), params.get("k")
        if not token or not k:
            raise Refused(401, "the vapid Authorization lacks t or k")
        if k != subscriber.application_server_key:
            raise Refused(403, "k is not the key the subscription was made with")
        try:
            point = unb64url(k)
            key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        except ValueError:
            raise Refused(401, "k is not a P-256 public key") from None
        try:
            claims = jwt.decode(
                token,
                key,
                algorithms=["ES256"],
                audience=self.url,
                options={"require": ["aud", "exp", "sub"]},
            )
        except jwt.PyJWTError as error:
            raise Refused(401, f"the JWT does not verify: {error}") from None
        if claims["exp"] > time.time() + MAX_AHEAD:
            raise Refused(401, "the JWT expires more than 24 h ahead")
        sub = claims["sub"]
        if not isinstance(sub, str) or not re.match(r"(mailto:|https://).", sub):
            raise Refused(401, "sub is not a mailto: or https: URI")

    def _decrypted(self, subscriber: Subscriber, body: bytes) -> bytes:
        if len(body) < 21:
            raise Refused(400, "no aes128gcm header")
        record_size, id_length = struct.unpack("!LB", body[16:21])
        key_id = body[21 : 21 + id_length]
        try:
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key_id)
        except ValueError:
            raise Refused(400, "the key id is not the sender's P-256 key") from None
        if len(body) - 21 - id_length > record_size:
            raise Refused(400, "more than one record")  # RFC 8291 section 4
        try:
            payload = http_ece.decrypt(
                body,
                private_key=subscriber.private_key,
                auth_secret=subscriber.auth,
                version="aes128gcm",
            )
        except http_ece.ECEException as error:
            raise Refused(400, f"the body does not decrypt: {error.message}") from None
        except ValueError as error:
            raise Refused(400, f"the body does not decrypt: {error}") from None
        assert isinstance(payload, bytes)
        return payload
