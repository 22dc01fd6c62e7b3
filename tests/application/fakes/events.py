"""The event store."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.ports import AppendConflictError, Position, StoredEvent
from tests.application.fakes.tables import Commit, EventRow, Tables

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeEventStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        return _load(self._uow.read(), game_id, after, upto, limit)

    def page(self, game_id: UUID, after: int, limit: int) -> tuple[int, list[StoredEvent]] | None:
        tables = self._uow.read()  # the version and the events read together
        summary = tables.games.get(game_id)
        if summary is None:
            return None
        return summary.version, _load(tables, game_id, after, summary.version, limit)

    def append(self, events: Sequence[StoredEvent]) -> None:
        uow = self._uow
        uow.check_writable()
        if not events:
            return
        uow.before_append(events)
        rows = list(events)

        def write(c: Commit) -> None:
            for e in rows:  # the key is checked as each row goes in
                stream = c.after.events.get(e.game_id, {})
                if e.seq in stream:
                    raise AppendConflictError(e.game_id)
                position = Position(c.txid, c.db._position())
                c.after.events[e.game_id] = {**stream, e.seq: EventRow(e, position)}
                c.games[e.game_id] = max(e.seq, c.games.get(e.game_id, 0))
            for game_id in {e.game_id for e in rows}:
                c.game(game_id, "events")

        uow.queue(write)

    def commits(self, game_id: UUID, after: int) -> list[list[StoredEvent]]:
        stream = self._uow.read().events.get(game_id, {})
        groups: list[list[StoredEvent]] = []
        last = None
        for seq in sorted(s for s in stream if s > after):
            row = stream[seq]
            if row.position.transaction != last or not groups:
                groups.append([])
                last = row.position.transaction
            groups[-1].append(row.event)
        return groups

    def read_all(self, after: Position | None, limit: int) -> list[tuple[Position, StoredEvent]]:
        """Every commit is done at once: none is ever running, so none is waited for."""
        rows = [
            row
            for stream in self._uow.read().events.values()
            for row in stream.values()
            if after is None or row.position > after
        ]
        rows.sort(key=lambda row: row.position)
        return [(row.position, row.event) for row in rows[:limit]]


def _load(
    tables: Tables, game_id: UUID, after: int, upto: int | None, limit: int | None
) -> list[StoredEvent]:
    stream = tables.events.get(game_id, {})
    seqs = [s for s in sorted(stream) if s > after and (upto is None or s <= upto)]
    if limit is not None:
        seqs = seqs[:limit]
    return [stream[s].event for s in seqs]
