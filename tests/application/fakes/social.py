"""Blocks and follows, kept beside the tables (as FakeNotifications keeps choices). Who is
online is the adapter's alone (the watchers' rows): here nobody is."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.social.ports import Friend, Listed
from service.rules import Phase
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork

_OVER = {Phase.FINISHED.value, Phase.EXPIRED.value}


class _FakeChoices:
    def __init__(self, uow: FakeUnitOfWork, rows: dict[tuple[UUID, UUID], datetime]) -> None:
        self._uow = uow
        self._rows = rows

    def add(self, player_id: UUID, other_id: UUID, at: datetime) -> None:
        def write(c: Commit) -> None:
            c.player(other_id, "choices")
            self._rows.setdefault((player_id, other_id), at)

        self._uow.queue(write)

    def remove(self, player_id: UUID, other_id: UUID) -> None:
        def write(c: Commit) -> None:
            self._rows.pop((player_id, other_id), None)

        self._uow.queue(write)

    def forget(self, player_id: UUID) -> None:
        def write(c: Commit) -> None:
            for pair in [p for p in self._rows if player_id in p]:
                del self._rows[pair]

        self._uow.queue(write)

    def _others(self, player_id: UUID) -> list[UUID]:
        self._uow.read()
        return [o for p, o in self._rows if p == player_id]

    def _listed(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Listed]:
        players = self._uow.read().players
        found = sorted(
            (at, o) for (p, o), at in self._rows.items() if p == player_id and o in players
        )
        return [
            Listed(o, players[o].name, at) for at, o in found if after is None or (at, o) > after
        ][:limit]


class FakeBlocks(_FakeChoices):
    def __init__(self, uow: FakeUnitOfWork) -> None:
        super().__init__(uow, uow.db.blocks)

    def blocked_by(self, player_id: UUID) -> frozenset[UUID]:
        return frozenset(self._others(player_id))

    def apart(self, players: Collection[UUID]) -> frozenset[frozenset[UUID]]:
        self._uow.read()
        return frozenset(frozenset(pair) for pair in self._rows if set(pair) <= set(players))

    def page(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Listed]:
        return self._listed(player_id, after, limit)


class FakeFollows(_FakeChoices):
    def __init__(self, uow: FakeUnitOfWork) -> None:
        super().__init__(uow, uow.db.follows)

    def followed(self, player_id: UUID) -> list[UUID]:
        return self._others(player_id)

    def page(
        self,
        player_id: UUID,
        after: tuple[datetime, UUID] | None,
        limit: int,
        online_since: datetime,
    ) -> list[Friend]:
        listed = self._listed(player_id, after, limit)
        playing = self.playing([p.player_id for p in listed])
        return [
            Friend(
                p.player_id,
                p.name,
                p.since,
                False,
                tuple(g for who, g in playing if who == p.player_id),
            )
            for p in listed
        ]

    def playing(self, players: Collection[UUID]) -> list[tuple[UUID, UUID]]:
        t = self._uow.read()
        found = [
            (t.games[game_id].created_at, game_id, player)
            for (game_id, _), player in t.seat_players.items()
            if player in players
            and game_id in self._uow.db.public_games
            and t.games[game_id].status not in _OVER
        ]
        return [(player, game_id) for _, game_id, player in sorted(found)]

    def public(self, game_id: UUID) -> None:
        self._uow.queue(lambda c: c.db.public_games.add(game_id))

    def seated(self, player_id: UUID) -> None:
        self._uow.queue(lambda c: c.followed.add(player_id))
