"""Wake-ups of the worker."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from tests.application.fakes.tables import Commit, Tables

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeWakeups:
    """Rows of the wakeups table; a claim is done at once (as the real one is)."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def set(self, game_id: UUID, due_at: datetime | None, version: int) -> None:
        def write(c: Commit) -> None:
            if due_at is None:  # DELETE ... WHERE version <= version
                row = c.before.wakeups.get(game_id)
                if row is not None and row[1] <= version:
                    c.after.wakeups.pop(game_id, None)
                return
            row = c.after.wakeups.get(game_id)  # INSERT ... ON CONFLICT DO UPDATE WHERE
            if row is None or row[1] <= version:
                c.after.wakeups[game_id] = (due_at, version)
            c.game(game_id, "wakeups")

        self._uow.queue(write)

    def claim(self, now: datetime, lease_until: datetime, limit: int) -> list[UUID]:
        def edit(t: Tables) -> list[UUID]:
            due = sorted((d, g) for g, (d, _) in t.wakeups.items() if d <= now)
            claimed = [g for _, g in due[:limit]]
            for g in claimed:
                t.wakeups[g] = (lease_until, t.wakeups[g][1])
            return claimed

        return self._uow.at_once(edit)

    def release(self, game_ids: Sequence[UUID], lease_until: datetime, now: datetime) -> None:
        def edit(t: Tables) -> None:
            for g in game_ids:
                row = t.wakeups.get(g)
                if row is not None and row[0] == lease_until:
                    t.wakeups[g] = (now, row[1])

        self._uow.at_once(edit)

    def next_due(self) -> datetime | None:
        return min((d for d, _ in self._uow.read().wakeups.values()), default=None)
