"""Posting webhooks without becoming a proxy into private networks (SSRF).

A URL is checked when an endpoint is registered and again at every delivery (DNS can
change): only http and https, no credentials in the URL, and a host whose every address
is public (not loopback, private, link-local, multicast, reserved or unspecified, IPv4
mapped into IPv6 included). The delivery then connects to the address it checked, not
to the name again, so a name that changes its answer between the check and the connect
(DNS rebinding) cannot slip through; TLS still verifies the certificate for the name.
Redirects are never followed, and the whole attempt is bounded by one deadline, so a
receiver that hangs or trickles its answer holds it no longer than ``timeout``.

Every attempt of a process runs on one asyncio event loop, in a thread of its own
(:class:`Poster`): a worker sending hundreds of deliveries a second on a machine it
shares with the API spent more CPU switching between 32 threads, each blocked in
http.client, than it spent sending. The HTTP it speaks is the small part of HTTP/1.1 a
webhook needs (one POST with a Content-Length body; an answer's status, and its body
read and thrown away when it has a length or is chunked, so that the connection can
carry the next POST): standard library
only, as a few lines on a connection we make ourselves are easier to keep safe than a
general client told not to resolve names on its own.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import ipaddress
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

MAX_URL = 2000
MAX_ANSWER = 64 * 1024  # of a receiver's answer, read and thrown away
MAX_HEAD = 64 * 1024  # an answer's status line and headers
IDLE_PER_TARGET = 32  # kept-alive connections to one receiver address
IDLE_SECONDS = 30.0  # a kept connection unused this long is closed
LOOKUPS = 32  # threads for name lookups (getaddrinfo blocks)


class UrlForbiddenError(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str
    address: str  # the checked address to connect to


@dataclass(frozen=True, slots=True)
class Delivered:
    status: int | None
    error: str | None
    seconds: float


@functools.lru_cache(maxsize=4096)  # a pure function; ipaddress parses slowly
def _forbidden(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", maxsplit=1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return (
        ip.is_loopback
        or ip.is_private
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    )


@dataclass(frozen=True, slots=True)
class _Parts:
    scheme: str
    host: str
    port: int
    path: str


@functools.lru_cache(maxsize=4096)  # parsed once per endpoint, not at every delivery
def _parts(url: str) -> _Parts:
    """What a URL names, or UrlForbiddenError: everything but the host's addresses."""
    if len(url) > MAX_URL:
        raise UrlForbiddenError(f"longer than {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise UrlForbiddenError(f"not a URL: {error}") from None
    if parts.scheme not in ("http", "https"):
        raise UrlForbiddenError("only http and https URLs")
    if parts.username is not None or parts.password is not None:
        raise UrlForbiddenError("no credentials in the URL")
    host = parts.hostname
    if not host:
        raise UrlForbiddenError("no host")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    if any(c <= " " or c == "\x7f" for c in path) or not path.isascii():
        # It goes into the request line as it is: a space or a line break would end it.
        raise UrlForbiddenError("not a URL: spaces, controls or non-ASCII in the path")
    return _Parts(parts.scheme, host, port or (443 if parts.scheme == "https" else 80), path)


def _checked(parts: _Parts, addresses: list[str], *, allow_private: bool) -> Target:
    if not addresses:
        raise UrlForbiddenError(f"{parts.host} does not resolve")
    if not allow_private:
        refused = [a for a in addresses if _forbidden(a)]
        if refused:
            raise UrlForbiddenError(f"{parts.host} resolves to a non-public address ({refused[0]})")
    return Target(parts.scheme, parts.host, parts.port, parts.path, addresses[0])


@functools.lru_cache(maxsize=4096)
def _literal(host: str) -> str | None:
    """The host itself when it is an IP address (nothing to resolve)."""
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return None


def resolve(url: str, *, allow_private: bool) -> Target:
    """The URL's parts and a checked address to connect to, or UrlForbiddenError."""
    parts = _parts(url)
    address = _literal(parts.host)
    if address is not None:
        return _checked(parts, [address], allow_private=allow_private)
    try:
        found = socket.getaddrinfo(parts.host, parts.port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UrlForbiddenError(f"{parts.host} does not resolve") from None
    return _checked(parts, [str(info[4][0]) for info in found], allow_private=allow_private)


async def _resolved(url: str, *, allow_private: bool) -> Target:
    """:func:`resolve` on the event loop: a name is looked up in the loop's executor."""
    parts = _parts(url)
    address = _literal(parts.host)
    if address is not None:
        return _checked(parts, [address], allow_private=allow_private)
    try:
        found = await asyncio.get_running_loop().getaddrinfo(
            parts.host, parts.port, type=socket.SOCK_STREAM
        )
    except (OSError, UnicodeError):
        raise UrlForbiddenError(f"{parts.host} does not resolve") from None
    return _checked(parts, [str(info[4][0]) for info in found], allow_private=allow_private)


def check_url(url: str, *, allow_private: bool) -> None:
    resolve(url, allow_private=allow_private)


@functools.cache
def _tls() -> ssl.SSLContext:
    """One client context for every attempt: loading the CA store costs more than a
    delivery (thread-safe once made)."""
    return ssl.create_default_context()


class _BadAnswer(Exception):
    """The receiver's answer is not HTTP as this client reads it."""


_Key = tuple[str, str, int, str]  # scheme, host, port, the checked address
_Stream = tuple[asyncio.StreamReader, asyncio.StreamWriter]
_Kept = tuple[asyncio.StreamReader, asyncio.StreamWriter, float]  # and when it was kept


def _request(target: Target, body: bytes, headers: Mapping[str, str]) -> bytes:
    host = target.host
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address
    if target.port != (443 if target.scheme == "https" else 80):
        host = f"{host}:{target.port}"
    try:
        host_header = host.encode("ascii")
    except UnicodeEncodeError:
        host_header = host.encode("idna")
    lines = [
        f"POST {target.path} HTTP/1.1".encode("ascii"),
        b"Host: " + host_header,
        b"Content-Type: application/json",
        b"User-Agent: yokai",
        b"Content-Length: " + str(len(body)).encode("ascii"),
    ]
    for name, value in headers.items():
        line = f"{name}: {value}"
        if "\r" in line or "\n" in line:
            raise ValueError(f"a line break in the header {name!r}")
        lines.append(line.encode("latin-1"))
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class _NoAnswer(Exception):
    """The connection ended before a byte of the answer came: on a kept connection, the
    receiver had closed it meanwhile (the request can go again on a new one)."""


_HEX = frozenset(b"0123456789abcdefABCDEF")


async def _answer(reader: asyncio.StreamReader) -> tuple[int, bool]:
    """The status of the receiver's answer, once it has been read to its end (up to
    MAX_ANSWER of its body), and whether the connection may carry another request: only
    when the answer's framing is exact and nothing follows it."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as cut:
        if not cut.partial:
            raise _NoAnswer from None
        raise
    except ConnectionResetError:
        raise _NoAnswer from None
    while True:
        first, *lines = head[:-4].split(b"\r\n")
        version, _, rest = first.partition(b" ")
        code = rest[:3]
        if not version.startswith(b"HTTP/1.") or len(code) != 3 or not code.isdigit():
            raise _BadAnswer(f"not an HTTP/1.x status line: {first[:80]!r}")
        status = int(code)
        if status >= 200:
            break
        if status == 101:
            raise _BadAnswer("switching protocols")
        # Any other 1xx is informational: the final answer follows.
        head = await reader.readuntil(b"\r\n\r\n")
    fields: dict[bytes, bytes] = {}
    for line in lines:
        name, colon, value = line.partition(b":")
        if not colon:
            raise _BadAnswer(f"a header line without a colon: {line[:80]!r}")
        name = name.strip().lower()
        value = value.strip()
        fields[name] = fields[name] + b"," + value if name in fields else value
    tokens = {t.strip() for t in fields.get(b"connection", b"").lower().split(b",")}
    reusable = b"close" not in tokens and (version == b"HTTP/1.1" or b"keep-alive" in tokens)
    if status in (204, 304):
        return status, reusable and not _left_over(reader)
    codings = fields.get(b"transfer-encoding", b"").lower()
    if codings:
        if codings.split(b",")[-1].strip() != b"chunked":
            raise _BadAnswer("a transfer coding other than chunked last")
        if b"content-length" in fields:
            raise _BadAnswer("both Transfer-Encoding and Content-Length")
        read = 0
        while True:
            size_line = await reader.readuntil(b"\r\n")
            digits = size_line[:-2].split(b";", 1)[0].strip()
            if not digits or len(digits) > 8 or not _HEX.issuperset(digits):
                raise _BadAnswer(f"a bad chunk size: {size_line[:40]!r}")
            size = int(digits, 16)
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":  # trailer fields
                    pass
                return status, reusable and not _left_over(reader)
            read += size
            if read > MAX_ANSWER:
                return status, False  # enough: the rest is not read, the connection closed
            if (await reader.readexactly(size + 2))[-2:] != b"\r\n":
                raise _BadAnswer("a chunk longer than its size")
    if b"content-length" in fields:
        length_field = fields[b"content-length"]
        if not length_field.isdigit() or len(length_field) > 12:
            raise _BadAnswer("a bad Content-Length")
        length = int(length_field)
        if length > MAX_ANSWER:
            return status, False
        await reader.readexactly(length)
        return status, reusable and not _left_over(reader)
    return status, False  # a body up to the close: not read, the connection closed


def _left_over(reader: asyncio.StreamReader) -> bool:
    """Whether bytes came after the answer: the next answer on this connection would not
    be the next request's (StreamReader has no public way to ask)."""
    return bool(getattr(reader, "_buffer", b""))


_Then = Callable[[Delivered], None]


STOPPED = "the sender stopped"


class Poster:
    """Makes every POST on one event loop, in a daemon thread started at the first:
    :meth:`start` returns at once and calls ``then`` (in the loop's thread) with the
    outcome; an attempt never raises for the network's or the receiver's trouble.
    Connections a receiver keeps alive are used again, each only for the address that
    was checked for it. Names are looked up in threads of the loop's own (a lookup that
    hangs holds one of them, not the deliveries to other hosts)."""

    def __init__(self, *, allow_private: bool, timeout: float = 10.0) -> None:
        self._allow_private = allow_private
        self._timeout = timeout
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._lookups: ThreadPoolExecutor | None = None
        self._closed = False
        self._asked: collections.deque[tuple[str, bytes, Mapping[str, str], _Then]] = (
            collections.deque()
        )
        self._tasks: set[asyncio.Task[None]] = set()
        self._idle: dict[_Key, list[_Kept]] = {}
        self._sweeping: asyncio.TimerHandle | None = None

    def start(self, url: str, body: bytes, headers: Mapping[str, str], then: _Then) -> None:
        """Begin one POST of ``body`` to ``url`` (thread-safe). Once the poster is closed,
        ``then`` hears at once that nothing was sent."""
        with self._lock:
            if self._closed:
                loop = None
            else:
                if self._loop is None:
                    self._loop = asyncio.new_event_loop()
                    self._lookups = ThreadPoolExecutor(
                        LOOKUPS, thread_name_prefix="yokai-webhook-lookup"
                    )
                    self._loop.set_default_executor(self._lookups)
                    self._thread = threading.Thread(
                        target=self._loop.run_forever, name="yokai-webhook-sender", daemon=True
                    )
                    self._thread.start()
                first = not self._asked
                self._asked.append((url, body, headers, then))
                loop = self._loop
        if loop is None:
            then(Delivered(None, STOPPED, 0.0))
        elif first:  # the loop takes everything asked meanwhile at once: one wake-up
            loop.call_soon_threadsafe(self._take_asked)

    def post(self, url: str, body: bytes, headers: Mapping[str, str]) -> Delivered:
        """One POST, waited for."""
        outcome: list[Delivered] = []
        ended = threading.Event()

        def then(done: Delivered) -> None:
            outcome.append(done)
            ended.set()

        self.start(url, body, headers, then)
        ended.wait()  # an attempt ends within its timeout
        return outcome[0]

    def close(self) -> None:
        """Stop for good: attempts under way are cancelled (``then`` hears of each),
        kept connections closed; a later :meth:`start` sends nothing."""
        with self._lock:
            self._closed = True
            loop, thread, lookups = self._loop, self._thread, self._lookups
        if loop is None or thread is None or lookups is None:
            return
        asyncio.run_coroutine_threadsafe(self._shut(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
        lookups.shutdown(wait=False)  # a lookup that hangs ends on its own

    async def _shut(self) -> None:
        self._take_asked()  # what was asked before the close hears that it was not sent
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._sweeping is not None:
            self._sweeping.cancel()
        for kept in self._idle.values():
            for _, writer, _ in kept:
                writer.close()
        self._idle.clear()

    def _take_asked(self) -> None:
        with self._lock:
            asked, self._asked = self._asked, collections.deque()
            closed = self._closed
        loop = asyncio.get_running_loop()
        for url, body, headers, then in asked:
            if closed:
                try:
                    then(Delivered(None, STOPPED, 0.0))
                except Exception:
                    log.exception("webhook POST to %s: its outcome could not be handed on", url)
                continue
            task = loop.create_task(self._attempt(url, body, headers, then))
            self._tasks.add(task)  # a strong reference until it ends
            task.add_done_callback(self._tasks.discard)

    async def _attempt(
        self, url: str, body: bytes, headers: Mapping[str, str], then: _Then
    ) -> None:
        started = time.monotonic()
        try:
            async with asyncio.timeout(self._timeout):
                status, error = await self._post(url, body, headers)
        except TimeoutError:
            status, error = None, "timeout"
        except asyncio.CancelledError:
            status, error = None, STOPPED
        except Exception as failure:  # a bug here must not lose the attempt's outcome
            log.exception("webhook POST to %s", url)
            status, error = None, f"{type(failure).__name__}: {failure}"[:300]
        try:
            then(Delivered(status, error, time.monotonic() - started))
        except Exception:
            log.exception("webhook POST to %s: its outcome could not be handed on", url)

    async def _post(
        self, url: str, body: bytes, headers: Mapping[str, str]
    ) -> tuple[int | None, str | None]:
        try:
            target = await _resolved(url, allow_private=self._allow_private)
        except UrlForbiddenError as refused:
            return None, f"forbidden address: {refused.reason}"
        key: _Key = (target.scheme, target.host, target.port, target.address)
        request = _request(target, body, headers)
        for _ in range(2):
            stream, kept = self._take(key), True
            if stream is None:
                kept = False
                try:
                    stream = await asyncio.open_connection(
                        target.address,
                        target.port,
                        ssl=_tls() if target.scheme == "https" else None,
                        server_hostname=target.host if target.scheme == "https" else None,
                        limit=MAX_HEAD,
                    )
                except ConnectionRefusedError:
                    return None, "connection refused"
                except ssl.SSLError as error:
                    return None, f"tls: {error.reason or error}"
                except OSError as error:
                    return None, f"{type(error).__name__}: {error}"[:300]
            reader, writer = stream
            answered = False
            try:
                writer.write(request)
                status, reusable = await _answer(reader)
                answered = True
            except (_NoAnswer, BrokenPipeError):
                if kept:
                    continue  # the receiver closed a kept connection: once more, on a new one
                return None, "connection reset"
            except (asyncio.IncompleteReadError, ConnectionResetError):
                return None, "connection reset"  # mid-answer: not sent again
            except ssl.SSLError as error:
                return None, f"tls: {error.reason or error}"
            except _BadAnswer as error:
                return None, f"bad answer: {error}"
            except asyncio.LimitOverrunError:
                return None, "bad answer: a line over 64 KiB"
            except OSError as error:
                return None, f"{type(error).__name__}: {error}"[:300]
            finally:
                if not answered:
                    writer.close()
            if reusable:
                self._keep(key, stream)
            else:
                writer.close()
            return status, None
        return None, "connection reset"

    def _take(self, key: _Key) -> _Stream | None:
        kept = self._idle.get(key)
        now = time.monotonic()
        while kept:
            reader, writer, at = kept.pop()
            if now - at > IDLE_SECONDS or _unusable(reader, writer):
                writer.close()  # closed by the receiver meanwhile, or about to be
                continue
            return reader, writer
        return None

    def _keep(self, key: _Key, stream: _Stream) -> None:
        kept = self._idle.setdefault(key, [])
        if len(kept) < IDLE_PER_TARGET:
            kept.append((*stream, time.monotonic()))
            if self._sweeping is None:
                loop = asyncio.get_running_loop()
                self._sweeping = loop.call_later(IDLE_SECONDS / 2, self._sweep)
        else:
            stream[1].close()

    def _sweep(self) -> None:
        """Close the kept connections unused for IDLE_SECONDS or closed by their receiver
        (endpoints come and go, and each connection holds a file descriptor); again
        later while any is kept."""
        self._sweeping = None
        now = time.monotonic()
        for key, kept in list(self._idle.items()):
            fresh = []
            for reader, writer, at in kept:
                if now - at > IDLE_SECONDS or _unusable(reader, writer):
                    writer.close()
                else:
                    fresh.append((reader, writer, at))
            if fresh:
                self._idle[key] = fresh
            else:
                del self._idle[key]
        if self._idle:
            loop = asyncio.get_running_loop()
            self._sweeping = loop.call_later(IDLE_SECONDS / 2, self._sweep)


def _unusable(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
    """A kept connection its receiver closed, or that holds bytes nobody asked for."""
    return reader.at_eof() or writer.is_closing() or _left_over(reader)
