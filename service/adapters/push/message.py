"""A push message for one subscription (RFC 8030): its payload encrypted for the
subscriber's keys (RFC 8291, the ``aes128gcm`` content coding of RFC 8188, by the
http_ece library), and the headers a push service takes it with, VAPID-signed
(service/adapters/push/vapid.py). And which endpoint URLs a subscription may name.
"""

from __future__ import annotations

import os
import re
from typing import cast
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec

from service.adapters.hosts import loopback
from service.adapters.push.vapid import VapidKey, unb64url

RECORD_SIZE = 4096
"""Push services take bodies up to 4096 bytes (RFC 8030 section 7.2): one record."""

MAX_PAYLOAD = RECORD_SIZE - 86 - 17
"""The most a payload may hold: 86 bytes of header (salt, record size, the sender's
public key) and, in the record, a delimiter and the 16-byte tag."""

MAX_ENDPOINT = 2048

URGENCIES = ("very-low", "low", "normal", "high")  # RFC 8030 section 5.3

_TOPIC = re.compile(r"[A-Za-z0-9_-]{1,32}")  # RFC 8030 section 5.4: base64url, 32 at most


def subscriber_keys(p256dh: str, auth: str) -> tuple[bytes, bytes]:
    """A subscription's keys as bytes: its P-256 public key (the 65-byte uncompressed
    point) and its 16-byte authentication secret, both given in base64url.
    ValueError, saying which, when either is not that."""
    try:
        point = unb64url(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        raise ValueError("keys.p256dh is not a P-256 public key in base64url") from None
    try:
        secret = unb64url(auth)
    except ValueError:
        secret = b""
    if len(secret) != 16:
        raise ValueError("keys.auth is not 16 bytes in base64url")
    return point, secret


def encrypt(
    payload: bytes,
    p256dh: str,
    auth: str,
    *,
    salt: bytes | None = None,
    sender: ec.EllipticCurvePrivateKey | None = None,
) -> bytes:
    """``payload`` encrypted for the subscriber whose keys these are (RFC 8291), one
    record. A fresh salt and key pair each time; ``salt`` and ``sender`` fix them only
    for RFC 8291's worked example (its Appendix A). ValueError for bad keys or a payload
    over MAX_PAYLOAD bytes."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"a push payload is at most {MAX_PAYLOAD} bytes, not {len(payload)}")
    point, secret = subscriber_keys(p256dh, auth)
    body = http_ece.encrypt(
        payload,
        salt=salt if salt is not None else os.urandom(16),
        private_key=sender if sender is not None else ec.generate_private_key(ec.SECP256R1()),
        dh=point,
        auth_secret=secret,
        rs=RECORD_SIZE,
        version="aes128gcm",
    )
    return cast(bytes, body)


def request(
    endpoint: str,
    payload: bytes,
    p256dh: str,
    auth: str,
    key: VapidKey,
    subject: str,
    *,
    ttl: int,
    urgency: str,
    topic: str | None,
    now: int,
    authorization: str | None = None,
) -> tuple[bytes, dict[str, str]]:
    """The body and headers of the POST of ``payload`` to a subscription's endpoint:
    encrypted, with ``TTL`` (seconds the push service may keep it), ``Urgency``, ``Topic``
    when given (a newer message of the same topic replaces one not yet delivered) and the
    VAPID ``Authorization`` at ``now`` (Unix seconds; or ``authorization``, one signed
    earlier for the same push service and still valid). ValueError for a bad one."""
    if not isinstance(ttl, int) or ttl < 0:
        raise ValueError(f"TTL is a number of seconds, not {ttl!r}")
    if urgency not in URGENCIES:
        raise ValueError(f"Urgency is one of {', '.join(URGENCIES)}, not {urgency!r}")
    if topic is not None and not _TOPIC.fullmatch(topic):
        raise ValueError(f"a Topic is 1 to 32 characters of base64url, not {topic!r}")
    body = encrypt(payload, p256dh, auth)
    headers = {
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(ttl),
        "Urgency": urgency,
        "Authorization": authorization or key.authorization(endpoint, subject, now),
    }
    if topic is not None:
        headers["Topic"] = topic
    return body, headers


def check_endpoint(url: str, allow_http: bool) -> str:
    """``url`` when a subscription may name it as its endpoint: ``https:`` with a host,
    or (``allow_http``: tests, a push service on this machine) ``http:`` to a loopback
    address or ``localhost``; no credentials; at most MAX_ENDPOINT characters.
    ValueError with the reason otherwise."""
    if len(url) > MAX_ENDPOINT:
        raise ValueError(f"an endpoint is at most {MAX_ENDPOINT} characters")
    if not url.isascii() or not url.isprintable() or " " in url:
        raise ValueError("an endpoint is a URL of printable ASCII without spaces")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (a port out of range or not a number raises)
    except ValueError:
        raise ValueError("not a URL") from None
    host = parts.hostname
    if parts.scheme not in ("https", "http") or not host:
        raise ValueError("an endpoint is an https: URL with a host")
    if parts.username is not None or "@" in parts.netloc:
        raise ValueError("an endpoint holds no credentials")
    if parts.fragment:
        raise ValueError("an endpoint has no fragment")
    if parts.scheme == "http":
        if not allow_http:
            raise ValueError("an endpoint is an https: URL")
        if not loopback(host):
            raise ValueError("an http: endpoint is on a loopback address or localhost")
    return url
