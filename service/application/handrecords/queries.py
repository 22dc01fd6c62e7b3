"""Hand records of games (docs/record-format.md) for each viewer, and the operators'
export of many games, page by page in the order they last changed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from uuid import UUID

from service import rules
from service.application.deps import Deps
from service.application.errors import GameNotFoundError
from service.application.games.codec import decode
from service.application.games.ports import GameSummary
from service.application.games.seating import held_seat, viewer_of
from service.application.handrecords.as_json import to_json
from service.application.handrecords.build import build
from service.application.handrecords.model import HandRecord
from service.application.identity.principals import Principal, guard, require_operator
from service.application.ports import StoredEvent

EXPORT_PAGE = 100
"""Games read per transaction by the export: memory stays bounded by one page."""


def _record(rows: list[StoredEvent], viewer: rules.Viewer) -> HandRecord:
    events = [decode(r) for r in rows]
    return build(events, rules.fold(events), viewer)


def record(deps: Deps, game_id: UUID, principal: Principal) -> HandRecord:
    """The game's record as ``principal`` may see it: a seat its own hands and passes
    until the end, the public none; everyone everything once it is over."""
    viewer = viewer_of(game_id, principal)
    with deps.uow(snapshot=True) as uow:
        guard(uow, principal)
        rows = uow.events.load(game_id)
    if not rows:
        raise GameNotFoundError(f"no game {game_id}")
    built = _record(rows, viewer)
    if isinstance(viewer, rules.SeatViewer):
        held_seat(rules.fold(decode(r) for r in rows), viewer.seat)
    return built


def export_line(summary: GameSummary, record: HandRecord) -> bytes:
    """One game of the export: a line of NDJSON (GET /v1/export, yokai export)."""
    line = {
        "id": str(summary.id),
        "created_at": summary.created_at.isoformat(),
        "updated_at": summary.updated_at.isoformat(),
        "version": summary.version,
        "record": to_json(record),
    }
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def export(
    deps: Deps,
    principal: Principal,
    status: str | None,
    since: datetime | None,
    *,
    page_size: int | None = None,
) -> Iterator[tuple[GameSummary, HandRecord]]:
    """Every game (of ``status``) that changed at or after ``since``, oldest change
    first (ties by id), with its whole record; read ``page_size`` games (default
    :data:`EXPORT_PAGE`) per transaction, each page after the last one's
    ``(updated_at, id)``."""
    require_operator(principal)
    size = page_size or EXPORT_PAGE
    after: tuple[datetime, UUID] | None = None
    while True:
        with deps.uow(snapshot=True) as uow:
            page = uow.games.changed(status=status, since=since, after=after, limit=size)
            histories = [(g, uow.events.load(g.id)) for g in page]
        for summary, rows in histories:
            yield summary, _record(rows, rules.OPERATOR)
        if len(page) < size:
            return
        after = (page[-1].updated_at, page[-1].id)
