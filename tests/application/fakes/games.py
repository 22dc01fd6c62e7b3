"""The games index."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.games.ports import (
    GameSummary,
    Head,
)
from tests.application.fakes.tables import Commit, IntegrityViolation, Tables

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeGameIndex:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, summary: GameSummary) -> None:
        def write(c: Commit) -> None:
            if summary.id in c.after.games:
                raise IntegrityViolation(f"games: duplicate id {summary.id}")
            c.after.games[summary.id] = summary

        self._uow.queue(write)

    def update(self, game_id: UUID, *, status: str, version: int, updated_at: datetime) -> None:
        def write(c: Commit) -> None:
            current = c.before.games.get(game_id)
            if current is None:
                return  # UPDATE ... WHERE id = ... matched no row
            c.after.games[game_id] = replace(
                current, status=status, version=version, updated_at=updated_at
            )

        self._uow.queue(write)

    def get(self, game_id: UUID) -> GameSummary | None:
        return self._uow.read().games.get(game_id)

    def ids(self) -> list[UUID]:
        games = sorted(self._uow.read().games.values(), key=lambda g: (g.created_at, g.id))
        return [g.id for g in games]

    def page(
        self, *, status: str | None, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[GameSummary]:
        games = [
            g
            for g in self._uow.read().games.values()
            if (status is None or g.status == status)
            and (before is None or (g.created_at, g.id) < before)
        ]
        games.sort(key=lambda g: (g.created_at, g.id), reverse=True)
        return games[:limit]

    def idle(self, *, status: str, before: datetime, limit: int) -> list[UUID]:
        games = [
            g
            for g in self._uow.read().games.values()
            if g.status == status and g.updated_at < before
        ]
        games.sort(key=lambda g: (g.updated_at, g.id))
        return [g.id for g in games[:limit]]

    def changed(
        self,
        *,
        status: str | None,
        since: datetime | None,
        after: tuple[datetime, UUID] | None,
        limit: int,
    ) -> list[GameSummary]:
        return self._changed(self._uow.read(), status, since, after)[:limit]

    def heads(
        self, *, since: datetime | None, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Head]:
        tables = self._uow.read()
        out: list[Head] = []
        for g in self._changed(tables, None, since, after):
            head = tables.events.get(g.id, {}).get(g.version)
            if head is not None:  # a join: a game without its event at its version has none
                out.append(Head(g.id, g.version, head.event.hash, g.updated_at))
        return out[:limit]

    @staticmethod
    def _changed(
        tables: Tables,
        status: str | None,
        since: datetime | None,
        after: tuple[datetime, UUID] | None,
    ) -> list[GameSummary]:
        games = [
            g
            for g in tables.games.values()
            if (status is None or g.status == status)
            and (since is None or g.updated_at >= since)
            and (after is None or (g.updated_at, g.id) > after)
        ]
        games.sort(key=lambda g: (g.updated_at, g.id))
        return games
