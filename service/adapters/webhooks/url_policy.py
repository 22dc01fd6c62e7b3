"""Which URLs a webhook may be posted to, so the sender is not a proxy into private
networks (SSRF).

A URL is checked when an endpoint is registered and again at every delivery (DNS can
change): only http and https, no credentials in the URL, and a host whose every address
is public (not loopback, private, link-local, multicast, reserved or unspecified, IPv4
mapped into IPv6 included). The delivery then connects to the address it checked, not
to the name again, so a name that changes its answer between the check and the connect
(DNS rebinding) cannot slip through; TLS still verifies the certificate for the name
(service/adapters/webhooks/sender.py).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

MAX_URL = 2000


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


class AddressPolicy:
    def __init__(self, *, allow_private: bool) -> None:
        self._allow_private = allow_private

    def problem(self, url: str) -> str | None:
        try:
            check_url(url, allow_private=self._allow_private)
        except UrlForbiddenError as refused:
            return refused.reason
        return None
