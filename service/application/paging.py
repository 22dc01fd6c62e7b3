"""Opaque cursors for lists kept newest first by (created_at, id): the operators' games,
a player's tokens."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from uuid import UUID

from service.application.errors import InvalidInputError
from service.application.games.ports import GameSummary


def encode_cursor(last: GameSummary) -> str:
    return encode(last.created_at, last.id)


def encode(created_at: datetime, ident: UUID) -> str:
    raw = f"{created_at.isoformat()}|{ident}"
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment, ident = raw.split("|")
        return datetime.fromisoformat(moment), UUID(ident)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidInputError(
            "cursor is not one this server gave", code="invalid_cursor"
        ) from None
