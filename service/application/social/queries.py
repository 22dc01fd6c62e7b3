"""A player's lists of blocks and follows, paged oldest first, each with an ETag of what
the page shows (a followed player going online, or sitting at a public table, changes
it)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Generic, TypeVar

from service.application.deps import Deps
from service.application.identity.principals import Principal, guard, require_player
from service.application.notify.pushes import WATCHED
from service.application.paging import decode_cursor, encode
from service.application.social.ports import Friend, Listed

ONLINE = WATCHED
"""A followed player is online while a stream of theirs (a game's, or their player
stream) was seen this recently: the same rule that holds their pushes back."""

T = TypeVar("T", Listed, Friend)


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    players: list[T]
    next_cursor: str | None
    etag: str


def blocks(deps: Deps, principal: Principal, cursor: str | None, limit: int) -> Page[Listed]:
    """The players this player blocked, oldest block first."""
    player = require_player(principal)
    after = decode_cursor(cursor) if cursor else None
    with deps.uow() as uow:
        guard(uow, principal)
        rows = uow.blocks.page(player.player_id, after, limit + 1)
    return _page(rows, limit, cursor)


def follows(deps: Deps, principal: Principal, cursor: str | None, limit: int) -> Page[Friend]:
    """The players this player follows, oldest follow first, whether each is online and
    the public games each sits in that are not over."""
    player = require_player(principal)
    after = decode_cursor(cursor) if cursor else None
    online_since = deps.clock.now() - ONLINE
    with deps.uow() as uow:
        guard(uow, principal)
        rows = uow.follows.page(player.player_id, after, limit + 1, online_since)
    return _page(rows, limit, cursor)


def _page(rows: list[T], limit: int, cursor: str | None) -> Page[T]:
    shown = rows[:limit]
    last = shown[-1] if len(rows) > limit else None
    stamp = "|".join(map(repr, shown)) + f"|{cursor}|{limit}"
    etag = hashlib.sha256(stamp.encode()).hexdigest()[:32]
    return Page(shown, encode(last.since, last.player_id) if last else None, etag)
