"""One webhook POST on a connection service/adapters/webhooks/sender.py made to the checked
address: the request written, the receiver's answer read. The HTTP it speaks is the small
part of HTTP/1.1 a webhook needs (one POST with a Content-Length body; an answer's
status, and its body read and thrown away when it has a length or is chunked, so that the
connection can carry the next POST): standard library only, as a few lines on a
connection we make ourselves are easier to keep safe than a general client told not to
resolve names on its own.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import Mapping

from service.adapters.webhooks.url_policy import Target

MAX_ANSWER = 64 * 1024  # of a receiver's answer, read and thrown away
MAX_HEAD = 64 * 1024  # an answer's status line and headers


@functools.cache
def _tls() -> ssl.SSLContext:
    """One client context for every attempt: loading the CA store costs more than a
    delivery (thread-safe once made)."""
    return ssl.create_default_context()


class _BadAnswer(Exception):
    """The receiver's answer is not HTTP as this client reads it."""


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


def _unusable(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
    """A kept connection its receiver closed, or that holds bytes nobody asked for."""
    return reader.at_eof() or writer.is_closing() or _left_over(reader)
