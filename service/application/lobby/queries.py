"""The lobby as anyone may read it: public games waiting with an open seat, oldest
first, with filters and paging, and a tag that changes whenever what it lists does."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from service.application.deps import Deps
from service.application.lobby.ports import LobbyEntry, LobbyFilter
from service.application.paging import decode_cursor, encode


@dataclass(frozen=True, slots=True)
class LobbyPage:
    games: list[LobbyEntry]
    next_cursor: str | None
    etag: str


@dataclass(frozen=True, slots=True)
class LobbyUnchanged:
    etag: str


def page(
    deps: Deps,
    where: LobbyFilter,
    cursor: str | None,
    limit: int,
    unless: frozenset[str] = frozenset(),
) -> LobbyPage | LobbyUnchanged:
    """A page of the lobby; :class:`LobbyUnchanged` when its tag is one the caller named."""
    after = decode_cursor(cursor) if cursor else None
    with deps.uow() as uow:
        count, latest = uow.lobby.stamp(where)
        stamp = f"{count}|{latest.isoformat() if latest else ''}|{where}|{cursor}|{limit}"
        tag = hashlib.sha256(stamp.encode()).hexdigest()[:32]
        if tag in unless or "*" in unless:
            return LobbyUnchanged(tag)
        rows = uow.lobby.page(where, after, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    last = rows[-1] if more and rows else None
    return LobbyPage(rows, encode(last.created_at, last.game_id) if last else None, tag)
