"""The chain key: the secret the events' hash chain is an HMAC under, kept outside the
database (service/application/integrity/chain.py, docs/security.md).

``YOKAI_CHAIN_KEY`` gives it (32 bytes, base64url or 64 hex digits), or
``YOKAI_CHAIN_KEY_FILE`` names a file holding it, made (readable by its owner only) when
missing: the embedded default keeps one in ``YOKAI_DATA_DIR/chain.key``. Keys rotated
out go to ``YOKAI_CHAIN_OLD_KEYS`` (comma-separated): what they hashed still verifies.
With neither set, a service on an external database uses a key file in its data folder,
warning that every process sharing the database needs the same key (a key made up per
machine would leave each instance's events unverifiable by the others); with
``YOKAI_STRICT_SECRETS=1`` it refuses to start instead (service/bootstrap.py).
"""

from __future__ import annotations

import base64
import binascii
import logging
import secrets
from pathlib import Path

from service.adapters import keyfile
from service.application.integrity.chain import KEY_BYTES, ChainKeys
from service.settings import ConfigurationError

log = logging.getLogger(__name__)

KEY_FILE = "chain.key"


class ChainKeyError(ConfigurationError):
    """A chain key that is missing or malformed."""


def parse_key(text: str, name: str = "YOKAI_CHAIN_KEY") -> bytes:
    """A key as configured: 32 bytes in base64url (padding optional) or 64 hex digits."""
    text = text.strip()
    try:
        if len(text) == 2 * KEY_BYTES:
            key = bytes.fromhex(text)
        else:
            key = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, binascii.Error):
        key = b""
    if len(key) != KEY_BYTES:
        raise ChainKeyError(
            f"{name}: a chain key is {KEY_BYTES} bytes in base64url or hex "
            "(e.g. openssl rand -hex 32)"
        )
    return key


def new_key() -> str:
    """A new key, as ``YOKAI_CHAIN_KEY`` takes it (64 hex digits)."""
    return secrets.token_hex(KEY_BYTES)


def chain_keys(key: str | None, old_keys: str | None, key_file: Path | None) -> ChainKeys:
    """The chain keys of the settings (:class:`ChainKeyError` when there is none)."""
    olds = [parse_key(k, "YOKAI_CHAIN_OLD_KEYS") for k in (old_keys or "").split(",") if k.strip()]
    if key:
        return ChainKeys(parse_key(key), olds)
    if key_file is None:
        raise ChainKeyError(
            "YOKAI_CHAIN_KEY is not set: the events' hash chain needs a secret key kept "
            "outside the database, the same for every process of the service. Make one "
            "(openssl rand -hex 32), keep it safe, and set YOKAI_CHAIN_KEY (or "
            "YOKAI_CHAIN_KEY_FILE to a file holding it); see docs/security.md"
        )
    text, made = keyfile.kept(key_file, new_key)
    if made:
        log.warning(
            "made a chain key in %s: back it up (without it no event can be verified), "
            "and give every process that shares the database the same key",
            key_file,
        )
    return ChainKeys(parse_key(text, str(key_file)), olds)
