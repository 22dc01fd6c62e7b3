"""What an idempotent command leaves under its key: its outcome, sealed.

The store keeps only the SHA-256 of each key, and the outcome encrypted (AES-GCM) under
a key derived from the raw Idempotency-Key. A seat's token appears once, in the result
of its join; sealing the stored copy keeps it out of reach of anyone who reads the
database without the client's key (as long as clients use random keys, e.g. UUIDs).

An outcome is a command's result (the game and version it produced: a retry shows the
views at that version again) or its refusal (raised again, the same way). Records from
before outcomes were stored hold a rendered response; :func:`unseal` reads those too.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, fields
from datetime import datetime
from enum import Enum
from typing import Any
from uuid import UUID

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from service.application.commands import Command
from service.application.errors import ApplicationError, InvalidInputError, SeatNotFoundError
from service.application.results import (
    Acted,
    Advanced,
    BanLifted,
    ChatPosted,
    Created,
    EmailSet,
    EmailVerified,
    Joined,
    LinkCodeCreated,
    MailUnsubscribed,
    NotificationsChosen,
    Paired,
    PlayerCreated,
    PlayerRenamed,
    PlayerSuspended,
    PushSubscribed,
    PushUnsubscribed,
    Related,
    Rematched,
    ReportFiled,
    ReportResolved,
    Result,
    ReviewRequested,
    SeekCancelled,
    SeekCreated,
    SignedIn,
    TokenRevoked,
    WebhookCreated,
    WebhookDeleted,
)
from service.application.write.ports import SealedRecord
from service.rules import RuleViolationError, Violation, Visibility

_NONCE = 12

# Refusals that depend only on the command and the game: the same command is refused
# again the same way, so they are remembered under the key like results.
Refusal = RuleViolationError | InvalidInputError | SeatNotFoundError
REFUSALS = (RuleViolationError, InvalidInputError, SeatNotFoundError)

_RESULTS: dict[str, type[Result]] = {
    "created": Created,
    "joined": Joined,
    "acted": Acted,
    "rematched": Rematched,
    "player_created": PlayerCreated,
    "advanced": Advanced,
    "player_renamed": PlayerRenamed,
    "token_revoked": TokenRevoked,
    "signed_in": SignedIn,
    "link_code_created": LinkCodeCreated,
    "player_suspended": PlayerSuspended,
    "webhook_created": WebhookCreated,
    "webhook_deleted": WebhookDeleted,
    "push_subscribed": PushSubscribed,
    "push_unsubscribed": PushUnsubscribed,
    "notifications_chosen": NotificationsChosen,
    "email_set": EmailSet,
    "email_verified": EmailVerified,
    "mail_unsubscribed": MailUnsubscribed,
    "seek_created": SeekCreated,
    "seek_cancelled": SeekCancelled,
    "paired": Paired,
    "ban_lifted": BanLifted,
    "review_requested": ReviewRequested,
    "chat_posted": ChatPosted,
    "report_filed": ReportFiled,
    "report_resolved": ReportResolved,
    "related": Related,
}

# Fields commands gained after keys were first stored, with their defaults: left out
# while unused, so a command that does not use them has the fingerprint it always had.
_LATER_FIELDS: dict[str, Any] = {
    "clock": None,
    "bots": (),
    "visibility": Visibility.PRIVATE,
    "invite": (),
    "rated": False,
    "min_reputation": None,
}


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint(command: Command) -> str:
    """What a reused key must match: the command's kind and every field, canonically."""
    content = {"command": type(command).__name__, **asdict(command)}
    for name, default in _LATER_FIELDS.items():
        if name in content and content[name] == default:
            del content[name]
    return digest(json.dumps(content, sort_keys=True, separators=(",", ":"), default=_plain))


def _plain(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    raise TypeError(f"not part of a command: {value!r}")  # pragma: no cover


def _cipher(raw_key: str, scope: str) -> AESGCM:
    kdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=scope.encode(), info=b"yokai-idem")
    return AESGCM(kdf.derive(raw_key.encode()))


def _seal(raw_key: str, scope: str, fingerprint: str, content: dict[str, Any]) -> SealedRecord:
    nonce = os.urandom(_NONCE)
    plain = json.dumps(content).encode()
    box = _cipher(raw_key, scope).encrypt(nonce, plain, fingerprint.encode())
    return SealedRecord(fingerprint, nonce + box)


def seal_result(raw_key: str, scope: str, fingerprint: str, result: Result) -> SealedRecord:
    name = next(k for k, kind in _RESULTS.items() if isinstance(result, kind))
    values = {f.name: _plain_value(getattr(result, f.name)) for f in fields(result)}
    return _seal(raw_key, scope, fingerprint, {name: values})


def _plain_value(value: Any) -> Any:
    if isinstance(value, UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return list(value) if isinstance(value, tuple) else value


def _from_plain(name: str, value: Any) -> Any:
    """A result's field as it was before :func:`_plain_value`: by its name for ids
    (``game_id``, ``player_id``, ``webhook_id``) and times (``created_at``); None stays."""
    if value is None:
        return None
    if name.endswith("_id"):
        return UUID(value)
    if name.endswith("_at"):
        return datetime.fromisoformat(value)
    return tuple(value) if isinstance(value, list) else value


def seal_refusal(raw_key: str, scope: str, fingerprint: str, exc: Refusal) -> SealedRecord:
    kind = "rule" if isinstance(exc, RuleViolationError) else type(exc).__name__
    refusal = {"kind": kind, "code": str(exc.code), "detail": exc.detail}
    return _seal(raw_key, scope, fingerprint, {"refused": refusal})


def unseal(raw_key: str, scope: str, record: SealedRecord) -> Result:
    """The stored result; a stored refusal is raised again."""
    nonce, box = record.sealed[:_NONCE], record.sealed[_NONCE:]
    try:
        plain = _cipher(raw_key, scope).decrypt(nonce, box, record.fingerprint.encode())
    except InvalidTag as exc:  # pragma: no cover - the key digest matched, so must the key
        raise ValueError("stored outcome does not open with this key") from exc
    content: dict[str, Any] = json.loads(plain)
    if record.legacy_status is not None:
        return _legacy(record.legacy_status, content["body"])
    ((name, values),) = content.items()
    if name == "refused":
        raise _refusal_error(values)
    return _RESULTS[name](**{k: _from_plain(k, v) for k, v in values.items()})


_LEGACY_REFUSED = 0


def _legacy(status: int, body: dict[str, Any]) -> Result:
    """A record written before outcomes were stored: the response body a command was
    answered with (a join's ``{game_id, version, seat, token}``, else a game view)."""
    if status == _LEGACY_REFUSED:
        raise _refusal_error(body)
    if "token" in body:
        return Joined(UUID(body["game_id"]), body["version"], body["seat"], body["token"])
    if "seat" in body:
        return Acted(UUID(body["id"]), body["version"], body["seat"])
    return Created(UUID(body["id"]), body["version"])


def _refusal_error(refusal: dict[str, str]) -> Exception:
    kind, code, detail = refusal["kind"], refusal["code"], refusal["detail"]
    if kind == "rule":
        return RuleViolationError(Violation(code), detail)
    if kind == SeatNotFoundError.__name__:
        return SeatNotFoundError(detail)
    if kind == InvalidInputError.__name__:
        return InvalidInputError(detail, code=code)
    return ApplicationError(detail)  # pragma: no cover - only the kinds above are stored
