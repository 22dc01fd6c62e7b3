"""A player's inbox ("my games, my turn"): their games, those where they must act first."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from datetime import datetime
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import InvalidInputError
from service.application.games.ports import InboxCursor, InboxEntry
from service.application.identity.principals import PlayerHolder, Principal, guard, require_player
from service.application.results import InboxPage, InboxUnchanged
from service.rules import PUBLIC_STATUSES, Phase

STATUSES = {
    "active": tuple(s for s in PUBLIC_STATUSES if s != Phase.FINISHED),
    "finished": (Phase.FINISHED.value,),
    "all": PUBLIC_STATUSES,
}


def inbox(
    deps: Deps,
    principal: Principal,
    status: str,
    cursor: str | None,
    limit: int,
    unless: frozenset[str] = frozenset(),
    game: UUID | None = None,
) -> InboxPage | InboxUnchanged:
    """A page of the player's games of ``status`` (active, finished or all) in inbox
    order; :class:`InboxUnchanged` when its tag is one the caller named (the long-poll
    that waits for a change is live/longpolls.py). With ``game``: that game's entry
    alone, if the player has one (whether they hold a seat of it, asked before its
    seat's view, which refuses a player without one)."""
    player = require_player(principal)
    if game is not None:
        return _of_game(deps, player, game, status, unless)
    return _inbox(deps, player, status, cursor, limit, unless)


def _of_game(
    deps: Deps, player: PlayerHolder, game: UUID, status: str, unless: frozenset[str]
) -> InboxPage | InboxUnchanged:
    with deps.uow() as uow:
        guard(uow, player)
        found = uow.inbox.of_game(player.player_id, game)
    rows = [found] if found is not None and found.status in STATUSES[status] else []
    latest = rows[0].updated_at if rows else None
    tag = _tag(len(rows), latest, sum(e.version for e in rows), status, str(game))
    if tag in unless or "*" in unless:
        return InboxUnchanged(tag)
    return InboxPage(rows, None, tag)


def _inbox(
    deps: Deps,
    player: PlayerHolder,
    status: str,
    cursor: str | None,
    limit: int,
    unless: frozenset[str],
) -> InboxPage | InboxUnchanged:
    statuses = STATUSES[status]
    after = _decode(cursor) if cursor else None
    with deps.uow() as uow:
        guard(uow, player)
        if unless:  # the stamp first: an unchanged inbox reads no entries
            stamp = uow.inbox.stamp(player.player_id, statuses)
            tag = _tag(*stamp, status, cursor, limit)
            if tag in unless or "*" in unless:
                return InboxUnchanged(tag)
            rows = uow.inbox.page(player.player_id, statuses, after, limit + 1)
        else:
            stamp, rows = uow.inbox.stamped_page(player.player_id, statuses, after, limit + 1)
            tag = _tag(*stamp, status, cursor, limit)
    more = len(rows) > limit
    rows = rows[:limit]
    return InboxPage(rows, _encode(rows[-1]) if more and rows else None, tag)


def _tag(count: int, latest: datetime | None, versions: int, *query: object) -> str:
    """The inbox's version: a command in any of its games raises the sum of the versions,
    any other change to an entry (a deadline) moves its updated_at."""
    stamp = f"{count}|{latest.isoformat() if latest else ''}|{versions}|{query}"
    return hashlib.sha256(stamp.encode()).hexdigest()[:32]


def _encode(last: InboxEntry) -> str:
    key = [
        last.my_turn,
        last.deadline.isoformat() if last.deadline else None,
        last.due_since.isoformat() if last.due_since else None,
        last.updated_at.isoformat(),
        str(last.game_id),
    ]
    return base64.urlsafe_b64encode(json.dumps(key).encode()).decode().rstrip("=")


def _decode(cursor: str) -> InboxCursor:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        my_turn, deadline, due_since, updated_at, game_id = json.loads(raw)
        return InboxCursor(
            bool(my_turn),
            datetime.fromisoformat(deadline) if deadline else None,
            datetime.fromisoformat(due_since) if due_since else None,
            datetime.fromisoformat(updated_at),
            UUID(game_id),
        )
    except (ValueError, TypeError, binascii.Error, UnicodeDecodeError):
        raise InvalidInputError("cursor is not one this server gave", "invalid_cursor") from None
