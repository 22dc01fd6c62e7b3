"""Games across the store: the operators' listing, and proving stored histories."""

from __future__ import annotations

from uuid import UUID

from service.application.deps import Deps
from service.application.identity.principals import Principal, require_operator
from service.application.paging import decode_cursor, encode_cursor
from service.application.results import GamePage


def list_games(
    deps: Deps, principal: Principal, status: str | None, cursor: str | None, limit: int
) -> GamePage:
    """Games newest first, ``limit`` per page, optionally of one status."""
    require_operator(principal)
    before = decode_cursor(cursor) if cursor else None
    with deps.uow(snapshot=True) as uow:
        rows = uow.games.page(status=status, before=before, limit=limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    return GamePage(rows, encode_cursor(rows[-1]) if more and rows else None)


def game_ids(deps: Deps) -> list[UUID]:
    """Every game, oldest first."""
    with deps.uow(snapshot=True) as uow:
        return uow.games.ids()
