"""A game's views: the public one, a seat's, and an operator's complete state; at the
current version, or at a given one (what a command's response shows, also on a retry)."""

from __future__ import annotations

from uuid import UUID

from service.application.cache import Loaded
from service.application.commands import ANY_VERSION
from service.application.deps import Deps
from service.application.errors import GameNotFoundError, InvalidInputError
from service.application.identity import Principal, require_operator, seat_of
from service.application.loading import load, load_at
from service.application.ports import UnitOfWork
from service.application.results import Unchanged, Versioned
from service.rules import (
    OPERATOR,
    PUBLIC,
    OperatorView,
    PublicView,
    SeatView,
    SeatViewer,
    observe,
)

NO_TAGS: frozenset[int] = frozenset()


def public_view(
    deps: Deps, game_id: UUID, *, unless: frozenset[int] = NO_TAGS, at: int | None = None
) -> Versioned[PublicView] | Unchanged:
    """The table as anyone may see it; :class:`Unchanged` when the game is still at a
    version in ``unless``."""
    loaded = _loaded(deps, game_id, unless, at)
    if isinstance(loaded, Unchanged):
        return loaded
    return Versioned(game_id, loaded.version, observe(loaded.state, PUBLIC))


def seat_view(
    deps: Deps,
    game_id: UUID,
    principal: Principal,
    *,
    unless: frozenset[int] = NO_TAGS,
    at: int | None = None,
) -> Versioned[SeatView] | Unchanged:
    """The table as the principal's seat sees it: its hand, what it may do now."""
    seat = seat_of(game_id, principal)
    loaded = _loaded(deps, game_id, unless, at)
    if isinstance(loaded, Unchanged):
        return loaded
    return Versioned(game_id, loaded.version, observe(loaded.state, SeatViewer(seat)))


def operator_state(
    deps: Deps, game_id: UUID, principal: Principal, at: int | None = None
) -> Versioned[OperatorView]:
    """Everything (every hand, the passes), after event ``at`` or the last one."""
    require_operator(principal)
    with deps.uow(snapshot=True) as uow:
        if at is None:
            loaded = load(uow, deps.cache, game_id)
        else:
            version = current_version(uow, game_id)
            if not 1 <= at <= version:
                raise InvalidInputError(
                    f"at must be between 1 and {version}", code="at_out_of_range"
                )
            loaded = load_at(uow, deps.cache, game_id, at)
    return Versioned(game_id, loaded.version, observe(loaded.state, OPERATOR))


def current_version(uow: UnitOfWork, game_id: UUID) -> int:
    summary = uow.games.get(game_id)
    if summary is None:
        raise GameNotFoundError(f"no game {game_id}")
    return summary.version


def _loaded(
    deps: Deps, game_id: UUID, unless: frozenset[int], at: int | None
) -> Loaded | Unchanged:
    if at is not None and (cached := deps.cache.get(game_id)) and cached.version == at:
        return cached  # a command's own result: no need to ask the database
    with deps.uow(snapshot=True) as uow:
        if unless:
            version = current_version(uow, game_id)
            if version in unless or ANY_VERSION in unless:
                return Unchanged(game_id, version)
        if at is None:
            return load(uow, deps.cache, game_id)
        return load_at(uow, deps.cache, game_id, at)
