"""The server's VAPID key (RFC 8292): the P-256 key pair that identifies this service to
push services. Browsers bind each subscription to its public key
(``PushManager.subscribe({applicationServerKey})``), and every push carries a JWT signed
with its private key, which the push service checks against that public key: a service
whose key changes loses every subscription made before.

``YOKAI_VAPID_PRIVATE_KEY`` gives the key (PEM, or the 32-byte private scalar in
base64url as web-push libraries print it); without it one is made on first use and kept
in a file of the data folder, as the chain key is (service/adapters/keyfile.py).
"""

from __future__ import annotations

import base64
import binascii
import logging
from pathlib import Path
from urllib.parse import urlsplit

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from service.adapters import keyfile

log = logging.getLogger(__name__)

KEY_FILE = "vapid.key"

EXPIRES = 12 * 3600
"""A signature's lifetime in seconds (RFC 8292 allows at most 24 h)."""

SETTING = "YOKAI_VAPID_PRIVATE_KEY"


def b64url(data: bytes) -> str:
    """base64url without padding, as Web Push writes keys."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    """base64url, with or without padding (ValueError on any other character)."""
    text = text.strip()
    try:
        return base64.b64decode(
            text.translate(str.maketrans("-_", "+/")) + "=" * (-len(text) % 4), validate=True
        )
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def check_subject(subject: str) -> str:
    """The subject a push service may write to (RFC 8292 section 2.1): a ``mailto:`` or
    ``https:`` URI; ValueError otherwise."""
    if not (subject.startswith("mailto:") and len(subject) > 7) and not (
        subject.startswith("https://") and len(subject) > 8
    ):
        raise ValueError(f"a VAPID subject is a mailto: or https: URI, not {subject!r}")
    return subject


def origin(url: str) -> str:
    """The origin of ``url`` (scheme://host[:port], the port left out when it is the
    scheme's own), the audience of a VAPID signature."""
    parts = urlsplit(url)
    host = parts.hostname
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"not an http(s) URL with a host: {url!r}")
    if ":" in host:
        host = f"[{host}]"
    port = parts.port
    if port is not None and port != (443 if parts.scheme == "https" else 80):
        host = f"{host}:{port}"
    return f"{parts.scheme}://{host}"


class VapidKey:
    """A P-256 private key and what Web Push makes of it."""

    def __init__(self, private_key: ec.EllipticCurvePrivateKey) -> None:
        if not isinstance(private_key.curve, ec.SECP256R1):
            raise ValueError(f"a VAPID key is on P-256, not {private_key.curve.name}")
        self._private = private_key
        point = private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self._public = b64url(point)

    @classmethod
    def from_setting(cls, text: str, name: str = SETTING) -> VapidKey:
        """The key in ``text``: PEM (PKCS8 or SEC1), or the private scalar's 32 bytes in
        base64url (padding optional). ValueError, naming ``name``, otherwise."""
        text = text.strip()
        if text.startswith("-----BEGIN"):
            try:
                key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
            except (ValueError, TypeError, UnicodeEncodeError):
                raise ValueError(f"{name}: not a PEM private key without a password") from None
            if not isinstance(key, ec.EllipticCurvePrivateKey):
                raise ValueError(f"{name}: a VAPID key is an EC key on P-256")
            try:
                return cls(key)
            except ValueError as refused:
                raise ValueError(f"{name}: {refused}") from None
        try:
            scalar = unb64url(text)
        except ValueError:
            scalar = b""
        if len(scalar) != 32:
            hint = " (65 bytes is a public key: the setting is the private one)"
            raise ValueError(
                f"{name}: a VAPID key is PEM, or a P-256 private key's 32 bytes in "
                f"base64url{hint if len(scalar) == 65 else ''}"
            )
        try:
            key = ec.derive_private_key(int.from_bytes(scalar, "big"), ec.SECP256R1())
        except ValueError:
            raise ValueError(f"{name}: those 32 bytes are not a P-256 private key") from None
        return cls(key)

    @classmethod
    def generate(cls) -> VapidKey:
        return cls(ec.generate_private_key(ec.SECP256R1()))

    def to_setting(self) -> str:
        """The private key as PKCS8 PEM text (what :meth:`from_setting` reads)."""
        return self._private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode("ascii")

    @property
    def public_key(self) -> str:
        """The 65-byte uncompressed point in base64url without padding: the
        ``applicationServerKey`` browsers subscribe with."""
        return self._public

    def authorization(self, endpoint: str, subject: str, now: int) -> str:
        """The ``Authorization`` header of a push to ``endpoint`` (RFC 8292 section 3):
        ``vapid t=<JWT>, k=<public key>``, the JWT (ES256) for the endpoint's origin,
        expiring EXPIRES seconds after ``now`` (Unix seconds)."""
        claims = {"aud": origin(endpoint), "exp": now + EXPIRES, "sub": check_subject(subject)}
        token = jwt.encode(claims, self._private, algorithm="ES256")
        return f"vapid t={token}, k={self._public}"


def vapid_key(setting: str | None, key_file: Path) -> VapidKey:
    """The key of ``YOKAI_VAPID_PRIVATE_KEY`` when set, else the one kept in ``key_file``
    (made there, readable by its owner only, on first use)."""
    if setting:
        return VapidKey.from_setting(setting)
    text, made = keyfile.kept(key_file, lambda: VapidKey.generate().to_setting())
    if made:
        log.warning(
            "made a VAPID key in %s: back it up, and give every process of the service the "
            "same key (push subscriptions are bound to it)",
            key_file,
        )
    return VapidKey.from_setting(text, str(key_file))
