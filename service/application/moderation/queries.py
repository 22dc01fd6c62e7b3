"""What operators read of reports: the queue (open reports, oldest first) and the closed
ones (newest first), a page at a time, each report that names a message with the
messages around it in its game and channel; and a report on its own."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from uuid import UUID

from service.application import paging
from service.application.deps import Deps
from service.application.identity.principals import (
    PlayerHolder,
    Principal,
    guard,
    require_operator,
    require_player,
)
from service.application.moderation.ports import Listed, Message, Report
from service.application.moderation.reports import ReportNotFoundError

BEFORE = 3  # messages shown before a reported one
AFTER = 3  # and after it


@dataclass(frozen=True, slots=True)
class ReportPage:
    reports: list[Listed]
    context: dict[int, list[Message]]  # by reported message id
    next_cursor: str | None
    etag: str


def page(
    deps: Deps, principal: Principal, resolved: bool, cursor: str | None, limit: int
) -> ReportPage:
    """Operators only. The ETag covers every stored value the page shows (a rename, a
    resolution, a message added in a context, an erasure change it)."""
    require_operator(principal)
    after = paging.decode_cursor(cursor) if cursor else None
    with deps.uow(snapshot=True) as uow:
        rows = uow.reports.page(resolved, after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        wanted = [r.report.message_id for r in rows if r.report.message_id is not None]
        context = uow.reports.around(wanted, BEFORE, AFTER) if wanted else {}
    last = rows[-1].report if rows else None
    next_cursor = paging.encode(last.created_at, last.id) if more and last else None
    seen = repr((resolved, cursor, limit, rows, sorted(context.items())))
    return ReportPage(rows, context, next_cursor, hashlib.sha256(seen.encode()).hexdigest()[:32])


def own(deps: Deps, principal: Principal, report_id: UUID) -> Report:
    """A report as the player who made it reads it (another's is as unknown as none)."""
    player = require_player(principal)
    with deps.uow() as uow:
        if isinstance(principal, PlayerHolder):
            guard(uow, principal)
        found = uow.reports.get(report_id)
    if found is None or found.reporter_id != player.player_id:
        raise ReportNotFoundError("no such report")
    return found


def one(deps: Deps, principal: Principal, report_id: UUID) -> ReportPage:
    """A report as operators read it in their list (after its resolution)."""
    require_operator(principal)
    with deps.uow(snapshot=True) as uow:
        found = uow.reports.listed(report_id)
        if found is None:
            raise ReportNotFoundError("no such report")
        wanted = found.report.message_id
        context = {} if wanted is None else uow.reports.around([wanted], BEFORE, AFTER)
    return ReportPage([found], context, None, "")
