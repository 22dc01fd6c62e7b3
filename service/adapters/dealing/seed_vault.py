"""The server seeds of provably fair games, sealed under a key kept outside the database.

A fair game's server seed must stay secret until the game is over (docs/fairness.md), yet
the service needs it at every deal, from any process. It is stored in the game's
``GameCreated`` event sealed with AES-256-GCM (the ``cryptography`` package) under a key
from the environment (``YOKAI_FAIRNESS_KEY``), with the game's id as associated data so
a sealed seed cannot be moved to another game. Whoever reads the database, a backup or
the audit sees only the ciphertext; the key holder (the service) can open it. What this
does not protect against: someone holding both the key and the database (a compromised
service host), who could read the seeds of games under way.

The sealed form is ``v1.<key id>.<nonce>.<ciphertext>`` (base64url without padding); the
key id is the first 8 hex digits of the key's SHA-256, so after a rotation the old keys
(``YOKAI_FAIRNESS_OLD_KEYS``) still open the seeds sealed under them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import logging
import secrets
from pathlib import Path
from uuid import UUID

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.adapters import keyfile
from service.rules import FairShuffle

log = logging.getLogger(__name__)

KEY_FILE = "fairness.key"


class FairnessKeyError(RuntimeError):
    """A fairness key that is missing, malformed, or does not open a sealed seed."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def parse_key(text: str) -> bytes:
    """A key as configured: 32 bytes in base64url (padding optional) or 64 hex digits."""
    text = text.strip()
    try:
        key = bytes.fromhex(text) if len(text) == 64 else _unb64(text)
    except (ValueError, binascii.Error):
        raise FairnessKeyError("a fairness key is 32 bytes in base64url or hex") from None
    if len(key) != 32:
        raise FairnessKeyError("a fairness key is 32 bytes in base64url or hex")
    return key


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:8]


def new_key() -> str:
    """A new key, as ``YOKAI_FAIRNESS_KEY`` takes it."""
    return _b64(secrets.token_bytes(32))


class SeedVault:
    """Seals server seeds under the current key; opens them under any known key."""

    def __init__(self, key: bytes, old_keys: tuple[bytes, ...] = ()) -> None:
        self._current = key_id(key)
        self._keys = {key_id(k): AESGCM(k) for k in (*old_keys, key)}

    def seal(self, game_id: UUID, seed: bytes) -> str:
        nonce = secrets.token_bytes(12)
        sealed = self._keys[self._current].encrypt(nonce, seed, game_id.bytes)
        return f"v1.{self._current}.{_b64(nonce)}.{_b64(sealed)}"

    def open(self, game_id: UUID, sealed: str) -> bytes:
        try:
            version, kid, nonce, data = sealed.split(".")
        except ValueError:
            raise FairnessKeyError("not a sealed seed") from None
        aead = self._keys.get(kid)
        if version != "v1" or aead is None:
            raise FairnessKeyError(
                f"the seed was sealed under key {kid}, which this service does not have "
                "(YOKAI_FAIRNESS_KEY, YOKAI_FAIRNESS_OLD_KEYS)"
            )
        try:
            return aead.decrypt(_unb64(nonce), _unb64(data), game_id.bytes)
        except (InvalidTag, ValueError, binascii.Error):
            raise FairnessKeyError("the sealed seed does not open: altered or moved") from None

    @classmethod
    def configured(cls, key: str | None, old_keys: str | None, data_dir: Path) -> SeedVault:
        """The vault of the settings: ``key`` (YOKAI_FAIRNESS_KEY), else a key kept in
        ``data_dir`` (made on first use, readable by its owner only), which suits one
        machine only: instances that share a database must share the key."""
        olds = tuple(parse_key(k) for k in (old_keys or "").split(",") if k.strip())
        if key:
            return cls(parse_key(key), olds)
        path = data_dir / KEY_FILE
        text, made = keyfile.kept(path, new_key)
        if made:
            log.warning(
                "YOKAI_FAIRNESS_KEY is not set: made a fairness key in %s; back it up, and "
                "give every instance that shares the database the same key",
                path,
            )
        return cls(parse_key(text), olds)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def new_fair_shuffle(vault: SeedVault, game_id: UUID) -> FairShuffle:
    """A new game's commitment: a secret 32-byte server seed, committed to and sealed."""
    seed = secrets.token_bytes(32)
    return FairShuffle(commitment(seed), vault.seal(game_id, seed))
