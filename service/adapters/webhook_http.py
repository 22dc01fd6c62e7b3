"""Posting webhooks without becoming a proxy into private networks (SSRF).

A URL is checked when an endpoint is registered and again at every delivery (DNS can
change): only http and https, no credentials in the URL, and a host whose every address
is public (not loopback, private, link-local, multicast, reserved or unspecified, IPv4
mapped into IPv6 included). The delivery then connects to the address it checked, not
to the name again, so a name that changes its answer between the check and the connect
(DNS rebinding) cannot slip through; TLS still verifies the certificate for the name.
Redirects are never followed, and the whole attempt is bounded by one deadline, so a
receiver that hangs or trickles its answer holds it no longer than ``timeout``.

Standard library only: a few lines of http.client on a socket we connect ourselves are
easier to keep safe than a general HTTP client told not to resolve names on its own.
"""

from __future__ import annotations

import functools
import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL = 2000
MAX_ANSWER = 64 * 1024  # of a receiver's answer, read and thrown away


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


def resolve(url: str, *, allow_private: bool) -> Target:
    """The URL's parts and a checked address to connect to, or UrlForbiddenError."""
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
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise UrlForbiddenError(f"{host} does not resolve") from None
    addresses = [str(info[4][0]) for info in found]
    if not addresses:
        raise UrlForbiddenError(f"{host} does not resolve")
    if not allow_private:
        refused = [a for a in addresses if _forbidden(a)]
        if refused:
            raise UrlForbiddenError(f"{host} resolves to a non-public address ({refused[0]})")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, path, addresses[0])


def check_url(url: str, *, allow_private: bool) -> None:
    resolve(url, allow_private=allow_private)


class _Connection(http.client.HTTPConnection):
    """A connection to a checked address, for a host name (the Host header and, with
    ``tls``, SNI and the certificate check)."""

    def __init__(self, target: Target, timeout: float, tls: ssl.SSLContext | None) -> None:
        super().__init__(target.host, target.port, timeout=timeout)
        self._target = target
        self._tls = tls

    def connect(self) -> None:
        sock = socket.create_connection((self._target.address, self._target.port), self.timeout)
        # http.client writes the headers and the body with two send() calls: without
        # TCP_NODELAY the body waits for the receiver's (delayed) ACK of the headers,
        # up to 40 ms an attempt on Linux. urllib3 sets it for the same reason.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self._tls is not None:
            sock = self._tls.wrap_socket(sock, server_hostname=self._target.host)
        self.sock = sock


@functools.cache
def _tls() -> ssl.SSLContext:
    """One client context for every attempt: loading the CA store costs more than a
    delivery (thread-safe once made)."""
    return ssl.create_default_context()


_Key = tuple[str, str, int, str]  # scheme, host, port, the checked address
_idle: dict[_Key, list[_Connection]] = {}
_idle_lock = threading.Lock()
IDLE_PER_TARGET = 32  # kept-alive connections to one receiver address (one per delivery thread)


def _take(key: _Key, target: Target, timeout: float) -> tuple[_Connection, bool]:
    """A kept-alive connection to exactly this checked address (a host whose name now
    resolves elsewhere gets a new one), else a new one; and whether it was kept."""
    with _idle_lock:
        kept = _idle.get(key)
        if kept:
            conn = kept.pop()
            conn.timeout = timeout
            return conn, True
    return _Connection(target, timeout, _tls() if target.scheme == "https" else None), False


def _keep(key: _Key, conn: _Connection) -> None:
    with _idle_lock:
        kept = _idle.setdefault(key, [])
        if len(kept) < IDLE_PER_TARGET:
            kept.append(conn)
            return
    conn.close()


def post(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    allow_private: bool,
    timeout: float = 10.0,
) -> Delivered:
    """One POST of ``body``; never raises for the network's or the receiver's trouble.
    A connection kept alive from an earlier attempt to the same checked address is used
    again (once more on a new one if the receiver had closed it meanwhile)."""
    started = time.monotonic()
    deadline = started + timeout

    def done(status: int | None, error: str | None) -> Delivered:
        return Delivered(status, error, time.monotonic() - started)

    try:
        target = resolve(url, allow_private=allow_private)
    except UrlForbiddenError as refused:
        return done(None, f"forbidden address: {refused.reason}")
    key: _Key = (target.scheme, target.host, target.port, target.address)
    sent = {**headers, "Content-Type": "application/json", "User-Agent": "yokai"}
    for _ in range(2):
        conn, kept = _take(key, target, timeout)
        try:
            conn.request("POST", target.path, body=body, headers=sent)
            _left(conn, deadline)
            answer = conn.getresponse()
            status = answer.status
            while _left(conn, deadline) and answer.read(8192):
                if answer.length is not None and answer.length > MAX_ANSWER:
                    break
            if answer.isclosed() and not answer.will_close:
                _keep(key, conn)  # read to its end: the next attempt may use it
            else:
                conn.close()
            return done(status, None)
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            conn.close()
            if kept:
                continue  # the receiver closed a kept connection: once more, on a new one
            return done(None, "connection reset")
        except TimeoutError:
            conn.close()
            return done(None, "timeout")
        except ssl.SSLError as error:
            conn.close()
            return done(None, f"tls: {error.reason or error}")
        except ConnectionRefusedError:
            conn.close()
            return done(None, "connection refused")
        except (OSError, http.client.HTTPException) as error:
            conn.close()
            return done(None, f"{type(error).__name__}: {error}"[:300])
    return done(None, "connection reset")  # pragma: no cover - two kept connections closed


def _left(conn: http.client.HTTPConnection, deadline: float) -> bool:
    """Shorten the socket's timeout to what is left of the attempt (TimeoutError when
    nothing is)."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    if conn.sock is not None:
        conn.sock.settimeout(left)
    return True
