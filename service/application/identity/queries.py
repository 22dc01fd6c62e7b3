"""A player's own things: who they are, and their tokens."""

from __future__ import annotations

import base64
import binascii
import hashlib
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import InvalidInputError, UnauthenticatedError
from service.application.identity.players import PlayerNotFoundError
from service.application.identity.ports import PlayerAuditEntry, PlayerRecord
from service.application.identity.principals import (
    Principal,
    guard,
    require_operator,
    require_player,
)
from service.application.paging import decode_cursor, encode


def me(deps: Deps, principal: Principal) -> PlayerRecord:
    player = require_player(principal)
    with deps.uow() as uow:
        guard(uow, principal)
        found = uow.players.get(player.player_id)
    if found is None:  # pragma: no cover - identified by it a moment ago
        raise UnauthenticatedError("the bearer token is not valid")
    return found


@dataclass(frozen=True, slots=True)
class TokenEntry:
    id: UUID
    created_at: datetime
    last_used_at: datetime | None
    via: str
    current: bool  # the token this request was sent with


@dataclass(frozen=True, slots=True)
class TokenPage:
    tokens: list[TokenEntry]
    next_cursor: str | None
    etag: str


def tokens(deps: Deps, principal: Principal, cursor: str | None, limit: int) -> TokenPage:
    """The player's tokens that are not revoked, newest first."""
    player = require_player(principal)
    after = decode_cursor(cursor) if cursor else None
    with deps.uow() as uow:
        guard(uow, principal)
        rows = uow.player_tokens.of(player.player_id, after, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    entries = [
        TokenEntry(t.id, t.created_at, t.last_used_at, t.via, t.token_sha256 == player.token_sha256)
        for t in rows
    ]
    stamp = "|".join(f"{e.id}{e.last_used_at}{e.current}" for e in entries) + f"|{cursor}|{limit}"
    etag = hashlib.sha256(stamp.encode()).hexdigest()[:32]
    last = rows[-1] if more and rows else None
    return TokenPage(entries, encode(last.created_at, last.id) if last else None, etag)


@dataclass(frozen=True, slots=True)
class AuditPage:
    player_id: UUID
    entries: list[PlayerAuditEntry]
    next_cursor: str | None
    etag: str


def player_audit(
    deps: Deps, principal: Principal, player_id: UUID, cursor: str | None, limit: int
) -> AuditPage:
    """What was done to a player (suspensions, renames, revoked tokens), oldest first
    (operators)."""
    require_operator(principal)
    after = _audit_after(cursor) if cursor else 0
    with deps.uow() as uow:
        if uow.players.get(player_id) is None:
            raise PlayerNotFoundError("no such player")
        rows = uow.player_audit.page(player_id, after, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    last = rows[-1].id if rows else after
    etag = hashlib.sha256(f"{player_id}|{after}|{last}|{limit}".encode()).hexdigest()[:32]
    next_cursor = base64.urlsafe_b64encode(f"a{last}".encode()).decode().rstrip("=")
    return AuditPage(player_id, rows, next_cursor if more else None, etag)


def _audit_after(cursor: str) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        if not raw.startswith("a") or not raw[1:].isdigit():
            raise ValueError(raw)
        return int(raw[1:])
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise InvalidInputError(
            "cursor is not one this server gave", code="invalid_cursor"
        ) from None
