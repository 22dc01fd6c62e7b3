"""A game's views: the public one, a seat's, and an operator's complete state; at the
current version, or at a given one (what a command's response shows, also on a retry)."""

from __future__ import annotations

from uuid import UUID

from service.application.commands import ANY_VERSION
from service.application.deps import Deps
from service.application.errors import InvalidInputError
from service.application.games.cache import Loaded
from service.application.games.loading import current_version, load, load_at
from service.application.games.seating import held_seat
from service.application.games.turnclocks import present
from service.application.identity.principals import Principal, guard, require_operator, seat_of
from service.application.results import Unchanged, Versioned
from service.rules import (
    OPERATOR,
    PUBLIC,
    OperatorView,
    PublicView,
    SeatView,
    SeatViewer,
)

NO_TAGS: frozenset[int] = frozenset()


def public_view(
    deps: Deps, game_id: UUID, *, unless: frozenset[int] = NO_TAGS
) -> Versioned[PublicView] | Unchanged:
    """The table as anyone may see it now; :class:`Unchanged` when the game is still at a
    version in ``unless``."""
    loaded = _current(deps, game_id, unless, None)
    if isinstance(loaded, Unchanged):
        return loaded
    return Versioned(game_id, loaded.version, present(loaded, PUBLIC))


def public_view_at(
    deps: Deps, game_id: UUID, version: int, known: Loaded | None = None
) -> Versioned[PublicView]:
    """The table at ``version``, which a command produced (``known``: its state then)."""
    loaded = _at(deps, game_id, version, known, None)
    return Versioned(game_id, version, present(loaded, PUBLIC))


def seat_view(
    deps: Deps, game_id: UUID, principal: Principal, *, unless: frozenset[int] = NO_TAGS
) -> Versioned[SeatView] | Unchanged:
    """The table as the principal's seat sees it now: its hand, what it may do."""
    seat = seat_of(game_id, principal)
    loaded = _current(deps, game_id, unless, principal)
    if isinstance(loaded, Unchanged):
        return loaded
    held_seat(loaded.state, seat)
    return Versioned(game_id, loaded.version, present(loaded, SeatViewer(seat)))


def seat_view_at(
    deps: Deps, game_id: UUID, principal: Principal, version: int, known: Loaded | None = None
) -> Versioned[SeatView]:
    """The seat's view at ``version``, which its command produced (``known``: the state
    then, when the command was just done)."""
    seat = seat_of(game_id, principal)
    loaded = _at(deps, game_id, version, known, principal)
    return Versioned(game_id, version, present(loaded, SeatViewer(seat)))


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
    return Versioned(game_id, loaded.version, present(loaded, OPERATOR))


def _current(
    deps: Deps, game_id: UUID, unless: frozenset[int], principal: Principal | None
) -> Loaded | Unchanged:
    """The game now: its version (one cheap read, with the principal's credential checked
    in the same round trip), then the cached state, or the events the cache lacks up to
    that version."""
    with deps.uow() as uow:
        if principal is not None:
            guard(uow, principal)
        version = current_version(uow, game_id)
        if version in unless or ANY_VERSION in unless:
            return Unchanged(game_id, version)
        return load_at(uow, deps.cache, game_id, version)


def _at(
    deps: Deps, game_id: UUID, version: int, known: Loaded | None, principal: Principal | None
) -> Loaded:
    # A command's response, made right after the command, whose credential was checked
    # with it: the state it left needs no second look at the store.
    for candidate in (known, deps.cache.get(game_id)):
        if candidate is not None and candidate.version == version:
            return candidate
    with deps.uow() as uow:
        if principal is not None:
            guard(uow, principal)
        return load_at(uow, deps.cache, game_id, version)
