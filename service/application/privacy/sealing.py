"""Sealed personal data: a value encrypted (AES-256-GCM) under its subject's key, written
as a token that travels wherever the clear value used to (event data, projections, the
events' client address), and is revealed only where an answer leaves the service.

A token reads ``pd1.<f>.<subject>.<base64url(nonce | ciphertext)>``: ``f`` says what an
unreadable token becomes (``n``: the name ERASED_NAME; ``x``: nothing, JSON null) and the
subject names the key (``p<player id hex>`` a player's, ``d<YYYYMMDD>`` a day's). The
subject is the additional data the cipher authenticates, so a token cannot be moved to
another subject's key. A token may hold another token: a client address is sealed under
its day's key, then under its player's, and reads only while both keys exist.

The hash chain covers the tokens as they are stored, so destroying a key changes no byte
of any event: every history still verifies and replays.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from uuid import UUID

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.rules import ERASED_NAME

NAME = "n"  # an unreadable token reads ERASED_NAME
NOTHING = "x"  # an unreadable token reads null (or nothing, in text)
_PREFIX = "pd1."

TOKEN = re.compile(r"pd1\.([nx])\.(p[0-9a-f]{32}|d[0-9]{8})\.([A-Za-z0-9_-]{24,})")
_QUOTED = re.compile(r'"(pd1\.[nx]\.(?:p[0-9a-f]{32}|d[0-9]{8})\.[A-Za-z0-9_-]{24,})"')

Keys = Callable[[Collection[str]], Mapping[str, bytes]]


def player_subject(player_id: UUID | str) -> str:
    return "p" + (player_id.hex if isinstance(player_id, UUID) else UUID(player_id).hex)


def day_subject(moment: datetime) -> str:
    return "d" + moment.strftime("%Y%m%d")


def is_sealed(value: str) -> bool:
    return value.startswith(_PREFIX)


def sealed_under(value: str, subject: str) -> bool:
    """Whether ``value`` is a token of ``subject``'s key (it may still not open)."""
    m = TOKEN.fullmatch(value)
    return m is not None and m.group(2) == subject


def seal(key: bytes, subject: str, value: str, unreadable: str = NOTHING) -> str:
    nonce = os.urandom(12)
    sealed = AESGCM(key).encrypt(nonce, value.encode(), subject.encode())
    text = base64.urlsafe_b64encode(nonce + sealed).rstrip(b"=").decode()
    return f"{_PREFIX}{unreadable}.{subject}.{text}"


def _open(key: bytes, subject: str, text: str) -> str | None:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return AESGCM(key).decrypt(raw[:12], raw[12:], subject.encode()).decode()
    except (InvalidTag, ValueError):
        return None


def subjects(text: str) -> set[str]:
    return {m.group(2) for m in TOKEN.finditer(text)}


class Revealer:
    """Opens the tokens of one answer with the keys that exist now (fetched once per
    answer for every subject it names, and again for the tokens sealed inside)."""

    def __init__(self, keys: Keys) -> None:
        self._fetch = keys
        self._keys: dict[str, bytes | None] = {}

    def value(self, token: str) -> str | None:
        """The clear value of a whole token; None if its key (or an inner one) is gone."""
        for _ in range(4):  # a token holds at most one more, but never loop on bad data
            m = TOKEN.fullmatch(token)
            if m is None:
                return token
            self._need({m.group(2)})
            key = self._keys.get(m.group(2))
            opened = None if key is None else _open(key, m.group(2), m.group(3))
            if opened is None:
                return ERASED_NAME if m.group(1) == NAME else None
            token = opened
        return None  # pragma: no cover - a chain of tokens no sealing makes

    def _need(self, wanted: set[str]) -> None:
        missing = wanted - self._keys.keys()
        if missing:
            found = self._fetch(missing)
            for s in missing:
                self._keys[s] = found.get(s)

    def json(self, text: str) -> str:
        """A JSON document with every token opened: a whole string value becomes the
        value (null when it reads nothing); a token inside a longer string, its text."""
        if _PREFIX not in text:
            return text
        self._need(subjects(text))

        def whole(m: re.Match[str]) -> str:
            return json.dumps(self.value(m.group(1)))

        text = _QUOTED.sub(whole, text)
        return TOKEN.sub(lambda m: json.dumps(self.value(m.group(0)) or "")[1:-1], text)

    def text(self, text: str) -> str:
        """Plain text (a hand record) with every token opened."""
        if _PREFIX not in text:
            return text
        self._need(subjects(text))
        return TOKEN.sub(lambda m: self.value(m.group(0)) or "", text)

    def data(self, value: object) -> object:
        """JSON-ready data (a webhook's payload, an export) with every token opened."""
        if isinstance(value, str):
            return self.value(value) if is_sealed(value) else value
        if isinstance(value, dict):
            return {k: self.data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(v) for v in value]
        return value
