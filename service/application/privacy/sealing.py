"""Sealed personal data: a value encrypted (AES-256-GCM) under its subject's key, written
as a token that travels wherever the clear value used to (event data, projections, the
events' client address), and is revealed only where an answer leaves the service.

A token reads ``pd1.<f>.<subject>.<base64url(nonce | ciphertext)>``: ``f`` says what an
unreadable token becomes (``n``: the name ERASED_NAME; ``t``: the text ERASED_TEXT, a
chat message's; ``x``: nothing, JSON null) and the
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
from collections.abc import Callable, Collection, Mapping, MutableMapping
from datetime import datetime
from uuid import UUID

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.rules import ERASED_NAME

NAME = "n"  # an unreadable token reads ERASED_NAME
NOTHING = "x"  # an unreadable token reads null (or nothing, in text)
TEXT = "t"  # an unreadable token reads ERASED_TEXT
ERASED_TEXT = "[erased]"
_PREFIX = "pd1."

TOKEN = re.compile(r"pd1\.([nxt])\.(p[0-9a-f]{32}|d[0-9]{8})\.([A-Za-z0-9_-]{24,})")
_QUOTED = re.compile(r'"pd1\.([nxt])\.(p[0-9a-f]{32}|d[0-9]{8})\.([A-Za-z0-9_-]{24,})"')

Keys = Callable[[Collection[str]], Mapping[str, bytes]]
Opened = Callable[[Collection[str]], Mapping[str, MutableMapping[str, str]]]
_json_string: Callable[[str], str] = json.encoder.encode_basestring_ascii  # as json.dumps


_UNREADABLE = {NAME: ERASED_NAME, TEXT: ERASED_TEXT}


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


OPENED_PER_SUBJECT = 256
"""At most this many opened values of one subject are kept (past it, they start again)."""


class Revealer:
    """Opens the tokens of one answer with the keys that exist now (fetched once per
    answer for every subject it names, and again for the tokens sealed inside).

    ``opened`` (the vault's) gives, for the subjects whose keys the process holds, where
    the values their tokens open to are kept: a name opened once is not decrypted again
    while its key is held, and is dropped with the key (an erasure drops it at once)."""

    def __init__(self, keys: Keys, opened: Opened | None = None) -> None:
        self._fetch = keys
        self._fetch_opened = opened
        self._keys: dict[str, bytes | None] = {}
        self._opened: dict[str, MutableMapping[str, str]] = {}

    def value(self, token: str) -> str | None:
        """The clear value of a whole token; None if its key (or an inner one) is gone."""
        m = TOKEN.fullmatch(token)
        return token if m is None else self._value(m)

    def _value(self, m: re.Match[str]) -> str | None:
        for _ in range(4):  # a token holds at most one more, but never loop on bad data
            subject = m.group(2)
            if subject not in self._keys:  # an inner token's: fetched now
                self._need({subject})
            key = self._keys.get(subject)
            opened = None if key is None else self._open(key, subject, m.group(3))
            if opened is None:
                return _UNREADABLE.get(m.group(1))
            inner = TOKEN.fullmatch(opened)
            if inner is None:
                return opened
            m = inner
        return None  # pragma: no cover - a chain of tokens no sealing makes

    def _open(self, key: bytes, subject: str, text: str) -> str | None:
        kept = self._opened.get(subject)
        found = None if kept is None else kept.get(text)
        if found is None:
            found = _open(key, subject, text)
            if kept is not None and found is not None:
                if len(kept) >= OPENED_PER_SUBJECT:
                    kept.clear()
                kept[text] = found
        return found

    def _need(self, wanted: set[str]) -> None:
        missing = wanted - self._keys.keys()
        if missing:
            found = self._fetch(missing)
            for s in missing:
                self._keys[s] = found.get(s)
            if self._fetch_opened is not None and found:
                self._opened.update(self._fetch_opened(found.keys()))

    def json(self, text: str) -> str:
        """A JSON document with every token opened: a whole string value becomes the
        value (null when it reads nothing); a token inside a longer string, its text."""
        if _PREFIX not in text:
            return text
        self._need(subjects(text))

        def whole(m: re.Match[str]) -> str:
            found = self._value(m)
            return "null" if found is None else _json_string(found)

        text = _QUOTED.sub(whole, text)
        return TOKEN.sub(lambda m: _json_string(self._value(m) or "")[1:-1], text)

    def text(self, text: str) -> str:
        """Plain text (a hand record) with every token opened."""
        if _PREFIX not in text:
            return text
        self._need(subjects(text))
        return TOKEN.sub(lambda m: self._value(m) or "", text)

    def data(self, value: object) -> object:
        """JSON-ready data (a webhook's payload, an export) with every token opened."""
        if isinstance(value, str):
            return self.value(value) if is_sealed(value) else value
        if isinstance(value, dict):
            return {k: self.data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.data(v) for v in value]
        return value
