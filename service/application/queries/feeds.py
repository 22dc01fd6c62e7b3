"""A game's events, page by page: redacted for a seat, complete for an operator's audit."""

from __future__ import annotations

from uuid import UUID

from service.application.codec import decode
from service.application.deps import Deps
from service.application.errors import GameNotFoundError
from service.application.identity import Operator, Principal, guard, require_operator, seat_of
from service.application.ports import StoredEvent
from service.application.results import AuditTrail, Feed, FeedEvent
from service.rules import SeatViewer, redact, to_data


def feed(deps: Deps, game_id: UUID, principal: Principal, after: int, limit: int) -> Feed:
    """Events after ``after`` as the principal may see them (an operator sees all)."""
    seat = None if isinstance(principal, Operator) else seat_of(game_id, principal)
    version, rows, next_after = _page(deps, game_id, principal, after, limit)
    events = []
    for row in rows:
        event = decode(row)
        if seat is not None:
            event = redact(event, SeatViewer(seat))
        events.append(FeedEvent(row.seq, row.type, to_data(event), row.recorded_at, row.actor))
    return Feed(game_id, version, events, next_after)


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
