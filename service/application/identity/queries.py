"""A player's own things: who they are, and their tokens."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import UnauthenticatedError
from service.application.identity.ports import PlayerRecord
from service.application.identity.principals import Principal, guard, require_player
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
