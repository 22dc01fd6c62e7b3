"""Idempotent commands: a retry with the same key and body gets the first response.

The store keeps only the SHA-256 of each key, and the response encrypted (AES-GCM) under
a key derived from the raw Idempotency-Key. A seat's token appears once, in the response
to its join; sealing the stored copy keeps it out of reach of anyone who reads the
database without the client's key (as long as clients use random keys, e.g. UUIDs).

A refused command is remembered too, so the same key and body get the same refusal
(it is raised again rather than replayed as a body: the web layer renders errors).
"""

from __future__ import annotations

import hashlib
import json
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from service.application.errors import ApplicationError, InvalidInputError, SeatNotFoundError
from service.application.model import Reply
from service.application.ports import SealedResponse
from service.rules import RuleViolationError, Violation

_NONCE = 12
REFUSED = 0  # the stored status of a refusal


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _cipher(raw_key: str, scope: str) -> AESGCM:
    kdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=scope.encode(), info=b"yokai-idem")
    return AESGCM(kdf.derive(raw_key.encode()))


def seal(raw_key: str, scope: str, fingerprint: str, reply: Reply) -> SealedResponse:
    plain = json.dumps({"body": reply.body, "headers": reply.headers}).encode()
    nonce = os.urandom(_NONCE)
    box = _cipher(raw_key, scope).encrypt(nonce, plain, fingerprint.encode())
    return SealedResponse(fingerprint=fingerprint, status=reply.status, body=nonce + box)


def unseal(raw_key: str, scope: str, sealed: SealedResponse) -> Reply:
    """The stored reply; a stored refusal is raised again."""
    nonce, box = sealed.body[:_NONCE], sealed.body[_NONCE:]
    try:
        plain = _cipher(raw_key, scope).decrypt(nonce, box, sealed.fingerprint.encode())
    except InvalidTag as exc:  # pragma: no cover - the key digest matched, so must the key
        raise ValueError("stored response does not open with this key") from exc
    content = json.loads(plain)
    if sealed.status == REFUSED:
        raise _refusal_error(content["body"])
    return Reply(sealed.status, content["body"], content["headers"])


# Refusals that depend only on the request and the game: the same request refused again.
Refusal = RuleViolationError | InvalidInputError | SeatNotFoundError


def refusal_reply(exc: Refusal) -> Reply:
    kind = "rule" if isinstance(exc, RuleViolationError) else type(exc).__name__
    return Reply(REFUSED, {"kind": kind, "code": str(exc.code), "detail": exc.detail})


def _refusal_error(body: dict[str, str]) -> Exception:
    kind, code, detail = body["kind"], body["code"], body["detail"]
    if kind == "rule":
        return RuleViolationError(Violation(code), detail)
    if kind == SeatNotFoundError.__name__:
        return SeatNotFoundError(detail)
    if kind == InvalidInputError.__name__:
        return InvalidInputError(detail, code=code)
    return ApplicationError(detail)  # pragma: no cover - only the kinds above are stored
