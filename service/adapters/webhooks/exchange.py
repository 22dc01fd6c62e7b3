"""One webhook POST on a connection to the address service/adapters/webhooks/url_policy.py
checked: the request written and the receiver's answer read, in HTTP/1.1 as the `h11`
library writes and reads it.

h11 is a well-kept sans-I/O implementation of HTTP/1.1: it turns events into bytes and
bytes into events, and opens no connection and looks up no name of its own. So the
sender still makes every connection itself, to the checked address (never to the name
again: no DNS rebinding; TLS verifying the certificate for the name), and only hands h11
the bytes; h11 does the parsing a hand-written client gets wrong (status lines, headers,
chunk sizes and their bounds, trailers, 1xx answers, whether the connection may carry
another request).

A connection is an :class:`asyncio.Protocol` of ours rather than asyncio's streams, so
that what the receiver sent and h11 has not read yet is ours to look at: a connection
kept for the next POST is closed as soon as a byte nobody asked for (or its end) comes,
and never carries an answer meant for another request.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import Mapping
from dataclasses import dataclass

import h11

from service.adapters.webhooks.url_policy import Target

MAX_ANSWER = 64 * 1024  # of a receiver's answer, read and thrown away
MAX_HEAD = 64 * 1024  # what h11 holds of an answer's head not yet whole


@functools.cache
def tls() -> ssl.SSLContext:
    """One client context for every attempt: loading the CA store costs more than a
    delivery (thread-safe once made). It verifies the certificate and its name."""
    return ssl.create_default_context()


@dataclass(frozen=True, slots=True)
class Answer:
    status: int  # of the final answer (1xx skipped)
    retry_after: str | None  # its Retry-After field, as it came
    reusable: bool  # the connection may carry another request


class BadAnswer(Exception):
    """The receiver's answer is not HTTP/1.1 as h11 reads it, or is framed two ways."""


class NoAnswer(Exception):
    """The connection ended before a byte of the answer came: on a kept connection, the
    receiver had closed it meanwhile (the request can go again on a new one)."""


class CutShort(Exception):
    """The connection ended in the middle of the answer (the request is not sent again:
    the receiver had it)."""


def request(target: Target, body: bytes, headers: Mapping[str, str]) -> h11.Request:
    """The POST of ``body`` to ``target`` with ``headers`` (h11 refuses a header name or
    value that could end its line): JSON unless ``headers`` say another Content-Type
    (a push is application/octet-stream)."""
    host = target.host
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    if target.port != (443 if target.scheme == "https" else 80):
        host = f"{host}:{target.port}"
    try:
        host_header = host.encode("ascii")
    except UnicodeEncodeError:
        host_header = host.encode("idna")
    given = {name.lower() for name in headers}
    fields = [
        (b"Host", host_header),
        *([] if "content-type" in given else [(b"Content-Type", b"application/json")]),
        (b"User-Agent", b"yokai"),
        (b"Content-Length", str(len(body)).encode("ascii")),
    ]
    fields += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()]
    return h11.Request(method=b"POST", target=target.path.encode("ascii"), headers=fields)


async def connect(target: Target) -> Connection:
    """A new connection to the checked address (not to the name), over TLS for https
    with the certificate verified for the name."""
    https = target.scheme == "https"
    _, connection = await asyncio.get_running_loop().create_connection(
        Connection,
        target.address,
        target.port,
        ssl=tls() if https else None,
        server_hostname=target.host if https else None,
    )
    return connection


class Connection(asyncio.Protocol):
    """One connection to a receiver (made by :func:`connect`) and its h11 state. What the
    receiver sends waits here until :meth:`post` hands it to h11. While ``kept`` (idle,
    for the next POST), a byte from the receiver closes it at once."""

    def __init__(self) -> None:
        self._http = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)
        self._transport: asyncio.Transport | None = None
        self._received = bytearray()
        self._ended = False  # the receiver's end came, or the connection is lost
        self._failure: Exception | None = None  # why it was lost, if not by a clean end
        self._waiter: asyncio.Future[None] | None = None
        self.kept = False

    @property
    def usable(self) -> bool:
        """Open, and nothing came from the receiver since its last answer."""
        transport = self._transport
        return (
            transport is not None
            and not transport.is_closing()
            and not self._ended
            and not self._received
        )

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    async def post(self, request: h11.Request, body: bytes) -> Answer:
        """Send ``request`` with ``body``; the final answer (1xx skipped) once it has been
        read to its end (up to MAX_ANSWER of its body), and whether the connection may
        carry another request: only when h11 has both sides done and nothing follows the
        answer. NoAnswer, CutShort or BadAnswer otherwise."""
        http = self._http
        assert self._transport is not None
        self._transport.write(
            http.send(request) + http.send(h11.Data(data=body)) + http.send(h11.EndOfMessage())
        )
        heard = ended = False
        status = read = 0
        retry_after: str | None = None
        while True:
            try:
                event = http.next_event()
            except h11.RemoteProtocolError as error:
                if ended:
                    raise CutShort from None
                raise BadAnswer(str(error)) from None
            if event is h11.NEED_DATA:
                data = await self._more()
                if not data:
                    if not heard:
                        raise NoAnswer
                    ended = True
                heard = True
                http.receive_data(data)  # b"": the end, which h11 judges
            elif isinstance(event, h11.InformationalResponse):
                continue  # 1xx: the final answer follows (h11 refuses a 101 not asked for)
            elif isinstance(event, h11.Response):
                status = event.status_code
                retry_after = _field(event, b"retry-after")
                if not _read_to_end(event):
                    # not read further: the connection is closed
                    return Answer(status, retry_after, False)
            elif isinstance(event, h11.Data):
                read += len(event.data)
                if read > MAX_ANSWER:
                    return Answer(status, retry_after, False)  # enough: the rest is not read
            elif isinstance(event, h11.EndOfMessage):
                break
            else:
                raise BadAnswer(f"unexpected {type(event).__name__}")
        left, closed = http.trailing_data
        if (
            http.our_state is h11.DONE
            and http.their_state is h11.DONE
            and not left
            and not closed
            and self.usable
        ):
            http.start_next_cycle()
            return Answer(status, retry_after, True)
        return Answer(status, retry_after, False)

    async def _more(self) -> bytes:
        """What came since the last call, once something has; b"" at the connection's end
        (a reset is an end; another failure, such as TLS's, is raised)."""
        while not self._received and not self._ended:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        if self._received:
            data = bytes(self._received)
            self._received.clear()
            return data
        failure = self._failure
        if failure is not None and not isinstance(failure, ConnectionResetError | BrokenPipeError):
            raise failure
        return b""

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        if self.kept:
            self.close()  # bytes nobody asked for: the next answer would not be its own
            return
        self._received += data
        self._wake()

    def eof_received(self) -> bool:
        self._ended = True
        self._wake()
        return False  # the transport closes

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended = True
        self._failure = exc
        self._wake()


def _read_to_end(answer: h11.Response) -> bool:
    """Whether the answer's body is read (and the connection may then be kept): none, in
    chunks, or a length up to MAX_ANSWER; not a body that runs to the close, nor a longer
    one. h11 has checked the fields (a Content-Length of digits only, no coding but
    chunked) and gives their names in lower case; Content-Length beside Transfer-Encoding
    it lets Transfer-Encoding win, as RFC 9112 allows, but an answer framed two ways is
    refused here: a receiver or a proxy before it may have read it the other way."""
    if answer.status_code in (204, 304):
        return True  # no body, whatever the fields say
    chunked, length = False, None
    for name, value in answer.headers:
        if name == b"transfer-encoding":
            chunked = True
        elif name == b"content-length":
            length = int(value)
    if chunked:
        if length is not None:
            raise BadAnswer("both Transfer-Encoding and Content-Length")
        return True
    return length is not None and length <= MAX_ANSWER


def _field(answer: h11.Response, name: bytes) -> str | None:
    """The value of the answer's field ``name`` (lower case; the last one if repeated)."""
    found = None
    for field, value in answer.headers:
        if field == name:
            found = value.decode("latin-1")
    return found
