"""Games across the store: the operators' listing, and proving stored histories."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import GameNotFoundError
from service.application.games.paging import decode_cursor, encode_cursor
from service.application.identity.principals import Principal, require_operator
from service.application.integrity.anchors import Anchor
from service.application.integrity.verify import verify_history
from service.application.results import GamePage, VerifyReport


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


def verify(
    deps: Deps, game_id: UUID, anchors: Sequence[Anchor] = (), *, allow_unkeyed: bool = False
) -> VerifyReport:
    """Recompute the hash chain and replay every event under the rules; also check the
    history is as long as the games table recorded with the last command, and holds
    each of ``anchors`` (the game's anchored heads, their signatures checked)."""
    with deps.uow(snapshot=True) as uow:
        summary = uow.games.get(game_id)
        rows = uow.events.load(game_id)
    if summary is None:
        raise GameNotFoundError(f"no game {game_id}")
    return verify_history(
        game_id, rows, summary.version, deps.chain, anchors, allow_unkeyed=allow_unkeyed
    )


def verify_for(deps: Deps, principal: Principal, game_id: UUID) -> VerifyReport:
    """`verify` for an operator (GET /v1/games/{id}/verify): the same check as
    `yokai verify`."""
    require_operator(principal)
    return verify(deps, game_id)
