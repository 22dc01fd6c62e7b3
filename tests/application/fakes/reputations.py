"""Reputations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.reputation.model import LIFTED, Abandonment, Mark, Standing
from service.application.reputation.ports import Kept, PlayerMark
from service.application.reputation.rebuild import standings
from service.application.seeks.ports import SeekStatus
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeReputations:
    """Marks and reputations kept beside the tables (as FakeRatings keeps ratings): each
    mark's player is the seat's as the commit finds it (``before``, as every part of one
    statement does, or bound in it), and a player's reputation is their marks folded."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow
        self._db = uow.db

    def mark(
        self,
        game_id: UUID,
        rated: bool,
        at: datetime,
        marks: Sequence[Mark],
        bound: Mapping[int, UUID],
    ) -> None:
        def write(c: Commit) -> None:
            quick = any(s.game_id == game_id for s in c.before.seeks.values())
            for m in marks:
                player = bound.get(m.seat) or c.before.seat_players.get((game_id, m.seat))
                if player is not None:
                    banning = m.how.abandoned and (rated or quick)
                    for s in list(c.after.seeks.values()):
                        if banning and s.player_id == player and s.status is SeekStatus.OPEN:
                            c.after.seeks[s.id] = replace(
                                s, status=SeekStatus.CANCELLED, ended_at=at
                            )
                    c.db.reputation_marks.append(
                        PlayerMark(at, game_id, m.seq, player, m.how, banning)
                    )

        self._uow.queue(write)

    def _standing(self, player_id: UUID) -> Standing:
        mine = [m for m in self._db.reputation_marks if m.player_id == player_id]
        return standings(mine).get(player_id, Standing())

    def of(self, player_id: UUID, since: datetime) -> Kept:
        recent = [
            m
            for m in sorted(self._db.reputation_marks)
            if m.player_id == player_id and m.banning and m.at > since
        ]
        return Kept(
            self._standing(player_id),
            [Abandonment(m.at, m.how) for m in recent],
            self._db.lifted.get(player_id),
        )

    def scores(self, player_ids: Sequence[UUID]) -> dict[UUID, int]:
        return {p: self._standing(p).score for p in player_ids}

    def lift(self, player_id: UUID, at: datetime) -> None:
        def write(c: Commit) -> None:
            c.db.lifted[player_id] = at

        self._uow.queue(write)

    def games(self) -> list[UUID]:
        return sorted(self._uow.read().games)

    def holders(self, game_id: UUID) -> tuple[dict[int, UUID], bool]:
        t = self._uow.read()
        held = {seat: p for (g, seat), p in t.seat_players.items() if g == game_id}
        return held, any(s.game_id == game_id for s in t.seeks.values())

    def lifts(self) -> dict[UUID, datetime]:
        found: dict[UUID, datetime] = {}
        for e in self._uow.read().player_audit:
            if e.action == LIFTED:
                found[e.player_id] = max(e.at, found.get(e.player_id, e.at))
        return found

    def marked(self) -> list[PlayerMark]:
        return sorted(self._db.reputation_marks)

    def standings(self) -> dict[UUID, tuple[Standing, datetime | None]]:
        players = {m.player_id for m in self._db.reputation_marks} | set(self._db.lifted)
        return {p: (self._standing(p), self._db.lifted.get(p)) for p in players}

    def rewrite(
        self,
        marks: Sequence[PlayerMark],
        standings: Mapping[UUID, Standing],
        lifted: Mapping[UUID, datetime],
    ) -> None:
        def write(c: Commit) -> None:
            c.db.reputation_marks[:] = sorted(marks)
            c.db.lifted = dict(lifted)

        self._uow.queue(write)
