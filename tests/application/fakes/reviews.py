"""Hand reviews, kept beside the tables (as FakeRatings keeps ratings)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from service.application.review.ports import Status, StoredReview
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork

_WAITING = (Status.QUEUED, Status.RUNNING)


class FakeReviews:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow
        self._db = uow.db

    def request(self, game_id: UUID, level: str, seed: int, players: int, at: datetime) -> None:
        def write(c: Commit) -> None:
            found = c.db.reviews.get(game_id)
            if found is None or found.status is Status.FAILED:
                queued = StoredReview(game_id, Status.QUEUED, level, seed, players, [])
                c.db.reviews[game_id] = queued
                c.db.review_order[game_id] = at

        self._uow.queue(write)

    def get(self, game_id: UUID) -> StoredReview | None:
        return self._db.reviews.get(game_id)

    def next_waiting(self) -> StoredReview | None:
        waiting = [r for r in self._db.reviews.values() if r.status in _WAITING]
        return min(waiting, key=lambda r: self._db.review_order[r.game_id], default=None)

    def waiting(self) -> int:
        return sum(1 for r in self._db.reviews.values() if r.status in _WAITING)

    def add(
        self,
        game_id: UUID,
        done: int,
        decision: dict[str, Any] | None,
        status: Status,
        at: datetime,
    ) -> None:
        def write(c: Commit) -> None:
            found = c.db.reviews.get(game_id)
            if found is None or found.status not in _WAITING or len(found.decisions) != done:
                return
            added = found.decisions + ([] if decision is None else [decision])
            c.db.reviews[game_id] = replace(found, status=status, decisions=added)

        self._uow.queue(write)

    def fail(self, game_id: UUID, at: datetime) -> None:
        def write(c: Commit) -> None:
            found = c.db.reviews.get(game_id)
            if found is not None and found.status in _WAITING:
                c.db.reviews[game_id] = replace(found, status=Status.FAILED)

        self._uow.queue(write)
