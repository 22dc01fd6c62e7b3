"""Where an answer leaves the service, its sealed personal data is opened with the keys
that exist at that moment (the vault keeps them only while it hears every key
destroyed: docs/privacy.md): HTTP bodies, stream messages, webhook bodies, the command
line's output."""

from __future__ import annotations

from service.application.privacy.ports import KeyVault
from service.application.privacy.sealing import Revealer

MARK = b"pd1."


def json_bytes(vault: KeyVault | None, body: bytes) -> bytes:
    """A JSON document (or SSE messages of JSON) with its tokens opened."""
    if vault is None or MARK not in body:
        return body
    return Revealer(vault.keys, vault.opened).json(body.decode()).encode()


def json_text(vault: KeyVault | None, body: str) -> str:
    if vault is None or "pd1." not in body:
        return body
    return Revealer(vault.keys, vault.opened).json(body)


def text_bytes(vault: KeyVault | None, body: bytes) -> bytes:
    """Plain text (a hand record) with its tokens opened."""
    if vault is None or MARK not in body:
        return body
    return Revealer(vault.keys, vault.opened).text(body.decode()).encode()
