"""Players' inboxes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.games.ports import (
    InboxCursor,
    InboxEntry,
    SeatTurn,
)
from tests.application.fakes.tables import Commit, IntegrityViolation

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeInbox:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, entry: InboxEntry) -> None:
        def write(c: Commit) -> None:
            key = (entry.player_id, entry.game_id)
            if key in c.after.inbox:
                raise IntegrityViolation(f"inbox: duplicate entry {key}")
            c.after.inbox[key] = entry
            c.players.add(entry.player_id)
            c.player(entry.player_id, "inbox")
            c.game(entry.game_id, "inbox")

        self._uow.queue(write)

    def update_game(
        self,
        game_id: UUID,
        *,
        status: str,
        version: int,
        scores: tuple[int, ...],
        winner: tuple[int, ...] | None,
        turns: Sequence[SeatTurn],
        updated_at: datetime,
        gone: Sequence[UUID] = (),
    ) -> None:
        actions = {t.seat: t.action for t in turns}
        deadlines = {t.seat: t.deadline for t in turns}

        def write(c: Commit) -> None:
            for key, e in c.before.inbox.items():
                if e.game_id != game_id or e.seat not in actions:
                    continue
                if e.player_id in gone:
                    del c.after.inbox[key]
                    continue
                action = actions[e.seat]
                due = None if action is None else e.due_since if e.action == action else updated_at
                c.after.inbox[key] = replace(
                    e,
                    status=status,
                    version=version,
                    scores=scores,
                    winner=winner,
                    my_turn=action is not None,
                    action=action,
                    due_since=due,
                    deadline=deadlines[e.seat],
                    updated_at=updated_at,
                )
                c.players.add(e.player_id)

        self._uow.queue(write)

    def _rows(self, player_id: UUID) -> list[InboxEntry]:
        """The player's entries, each with its inviter's name as it reads now."""
        tables = self._uow.read()

        def named(e: InboxEntry) -> InboxEntry:
            inviter = tables.players.get(e.invited_by) if e.invited_by else None
            return replace(e, invited_by_name=inviter.name if inviter else None)

        return [named(e) for e in tables.inbox.values() if e.player_id == player_id]

    def page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> list[InboxEntry]:
        def key(my_turn: bool, deadline: datetime | None, due: datetime | None,
                updated: datetime, game: UUID) -> tuple[object, ...]:  # fmt: skip
            far = datetime.max.replace(tzinfo=UTC)
            return (not my_turn, deadline or far, due or far, -updated.timestamp(), str(game))

        rows = [e for e in self._rows(player_id) if e.status in statuses]
        rows.sort(key=lambda e: key(e.my_turn, e.deadline, e.due_since, e.updated_at, e.game_id))
        if after is not None:
            start = key(after.my_turn, after.deadline, after.due_since, after.updated_at,
                        after.game_id)  # fmt: skip
            rows = [
                e
                for e in rows
                if key(e.my_turn, e.deadline, e.due_since, e.updated_at, e.game_id) > start
            ]
        return rows[:limit]

    def stamp(self, player_id: UUID, statuses: Sequence[str]) -> tuple[int, datetime | None, int]:
        rows = [e for e in self._uow.read().inbox.values() if e.player_id == player_id]
        rows = [e for e in rows if e.status in statuses]
        latest = max((e.updated_at for e in rows), default=None)
        return len(rows), latest, sum(e.version for e in rows)

    def stamped_page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> tuple[tuple[int, datetime | None, int], list[InboxEntry]]:
        return self.stamp(player_id, statuses), self.page(player_id, statuses, after, limit)

    def watched(self, player_id: UUID, since: datetime) -> list[InboxEntry]:
        rows = self._rows(player_id)
        rows = [e for e in rows if e.status != "finished" or e.updated_at >= since]
        return sorted(rows, key=lambda e: (e.updated_at, e.game_id))

    def of_game(self, player_id: UUID, game_id: UUID) -> InboxEntry | None:
        return next((e for e in self._rows(player_id) if e.game_id == game_id), None)
