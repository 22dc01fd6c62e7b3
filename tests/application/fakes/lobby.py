"""The lobby's rows."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.lobby.ports import LobbyEntry, LobbyFilter
from tests.application.fakes.tables import Commit, Tables

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeLobby:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def put(self, entry: LobbyEntry) -> None:
        def write(c: Commit) -> None:
            found = c.before.lobby.get(entry.game_id)
            created = found.created_at if found is not None else entry.created_at
            c.after.lobby[entry.game_id] = replace(entry, created_at=created)
            c.game(entry.game_id, "lobby")
            c.lobby = True

        self._uow.queue(write)

    def page(
        self, where: LobbyFilter, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[LobbyEntry]:
        t = self._uow.read()
        rows = [
            e
            for e in t.lobby.values()
            if e.open_seats > 0
            and _matches(e, where)
            and (after is None or (e.created_at, e.game_id) > after)
        ]
        rows.sort(key=lambda e: (e.created_at, e.game_id))
        return [_with_holders(t, e) for e in rows[:limit]]

    def stamp(self, where: LobbyFilter) -> tuple[int, datetime | None]:
        rows = [e for e in self._uow.read().lobby.values() if _matches(e, where)]
        latest = max((e.updated_at for e in rows), default=None)
        return sum(e.open_seats > 0 for e in rows), latest

    def changed(self, where: LobbyFilter, since: datetime) -> list[LobbyEntry]:
        t = self._uow.read()
        rows = [e for e in t.lobby.values() if e.updated_at >= since and _matches(e, where)]
        rows.sort(key=lambda e: (e.updated_at, e.game_id))
        return [_with_holders(t, e) for e in rows]

    def forget(self, before: datetime, limit: int) -> int:
        def edit(t: Tables) -> int:
            old = sorted(
                (e for e in t.lobby.values() if e.open_seats == 0 and e.updated_at < before),
                key=lambda e: e.updated_at,
            )[:limit]
            for e in old:
                del t.lobby[e.game_id]
            return len(old)

        return self._uow.at_once(edit)


def _matches(entry: LobbyEntry, where: LobbyFilter) -> bool:
    return all(
        wanted is None or got == wanted
        for wanted, got in (
            (where.players, entry.players),
            (where.variant, entry.variant),
            (where.scoring, entry.scoring),
            (where.rated, entry.rated),
        )
    )


def _with_holders(t: Tables, entry: LobbyEntry) -> LobbyEntry:
    seats = tuple(
        replace(s, player_id=t.seat_players.get((entry.game_id, s.seat))) for s in entry.seats
    )
    return replace(entry, seats=seats)
