"""A game's events, page by page: redacted for a seat, complete for an operator's audit.

Each event a viewer may see is made by :func:`feed_event`, for the feed, its long-poll
and the game's live stream alike."""

from __future__ import annotations

from uuid import UUID

from service.application.deps import Deps
from service.application.errors import GameNotFoundError
from service.application.games.codec import decode
from service.application.games.loading import load_at
from service.application.games.seating import held_seat
from service.application.identity.principals import (
    Operator,
    Principal,
    guard,
    require_operator,
    seat_of,
)
from service.application.ports import StoredEvent
from service.application.results import AuditTrail, Feed, FeedActor, FeedEvent
from service.rules import OPERATOR, SeatViewer, Viewer, redact, to_data


def feed_event(row: StoredEvent, viewer: Viewer) -> FeedEvent:
    """One stored event as ``viewer`` may see it."""
    event = redact(decode(row), viewer)
    actor = FeedActor(row.actor.kind, row.actor.seat)
    return FeedEvent(row.seq, row.type, to_data(event), row.recorded_at, actor)


def feed(deps: Deps, game_id: UUID, principal: Principal, after: int, limit: int) -> Feed:
    """Events after ``after`` as the principal may see them (an operator sees all); the
    long-poll that waits for them is live/longpolls.py."""
    viewer: Viewer = (
        OPERATOR if isinstance(principal, Operator) else SeatViewer(seat_of(game_id, principal))
    )
    return _feed(deps, game_id, principal, after, limit, viewer)


def _feed(
    deps: Deps, game_id: UUID, principal: Principal, after: int, limit: int, viewer: Viewer
) -> Feed:
    version, rows, next_after = _page(deps, game_id, principal, after, limit)
    if isinstance(viewer, SeatViewer):
        _check_held(deps, game_id, viewer.seat, version)
    return Feed(game_id, version, [feed_event(row, viewer) for row in rows], next_after)


def _check_held(deps: Deps, game_id: UUID, seat: int, version: int) -> None:
    """A seat whose player left is refused its feed too (its new hands are the bot's).
    A seat once a bot's stays one, so a cached state of any version that shows a bot
    is enough; else the state at ``version`` (cached, mostly) decides."""
    loaded = deps.cache.get(game_id)
    if loaded is None or (loaded.version < version and not loaded.state.bots[seat]):
        with deps.uow() as uow:
            loaded = load_at(uow, deps.cache, game_id, version)
    held_seat(loaded.state, seat)


def audit(deps: Deps, game_id: UUID, principal: Principal, after: int, limit: int) -> AuditTrail:
    """Every stored field of the events after ``after``: actors, request metadata, hashes."""
    require_operator(principal)
    version, rows, next_after = _page(deps, game_id, principal, after, limit)
    return AuditTrail(game_id, version, rows, next_after)


def _page(
    deps: Deps, game_id: UUID, principal: Principal, after: int, limit: int
) -> tuple[int, list[StoredEvent], int | None]:
    """The game's version, its events after ``after`` up to that version (at most
    ``limit``), and the ``after`` of the next page (None at the end)."""
    with deps.uow() as uow:
        guard(uow, principal)
        found = uow.events.page(game_id, after, limit)
    if found is None:
        raise GameNotFoundError(f"no game {game_id}")
    version, rows = found
    last = rows[-1].seq if rows else after
    return version, rows, last if last < version else None
