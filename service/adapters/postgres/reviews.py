"""Hand reviews (migration 0020): a row per game whose review was asked for; the worker
appends its decisions one at a time, each only after the ones it followed (the count
guards the append, so two workers never store a decision twice)."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from service.adapters.postgres.session import Session, Statement
from service.adapters.postgres.wakeups import CHANNEL
from service.application.review.ports import REVIEW_NOTE, Status, StoredReview

_COLUMNS = "game_id, status, level, seed, players, decisions"
_WAITING = "status IN ('queued', 'running')"


class SqlReviews:
    def __init__(self, session: Session) -> None:
        self._session = session

    def request(self, game_id: UUID, level: str, seed: int, players: int, at: datetime) -> None:
        self._session.write(
            Statement(
                "INSERT INTO reviews (game_id, status, level, seed, players, decisions, "
                "requested_at, updated_at) VALUES (%s, 'queued', %s, %s, %s, '[]', %s, %s) "
                "ON CONFLICT (game_id) DO UPDATE SET status = 'queued', seed = EXCLUDED.seed, "
                "decisions = '[]', requested_at = EXCLUDED.requested_at, "
                "updated_at = EXCLUDED.updated_at WHERE reviews.status = 'failed'",
                (game_id, level, seed, players, at, at),
            )
        )
        self._session.notify(CHANNEL, REVIEW_NOTE)

    def get(self, game_id: UUID) -> StoredReview | None:
        rows = self._session.fetch(
            f"SELECT {_COLUMNS} FROM reviews WHERE game_id = %s", [game_id], one_row=True
        )
        return _review(rows[0]) if rows else None

    def next_waiting(self) -> StoredReview | None:
        rows = self._session.fetch(
            f"SELECT {_COLUMNS} FROM reviews WHERE {_WAITING} ORDER BY requested_at LIMIT 1",
            one_row=True,
        )
        return _review(rows[0]) if rows else None

    def waiting(self) -> int:
        rows = self._session.fetch(f"SELECT count(*) FROM reviews WHERE {_WAITING}", one_row=True)
        return int(rows[0][0])

    def add(
        self,
        game_id: UUID,
        done: int,
        decision: dict[str, Any] | None,
        status: Status,
        at: datetime,
    ) -> None:
        added = Jsonb([] if decision is None else [decision])
        self._session.write(
            Statement(
                "UPDATE reviews SET decisions = decisions || %s, status = %s, updated_at = %s "
                f"WHERE game_id = %s AND {_WAITING} AND jsonb_array_length(decisions) = %s",
                (added, status.value, at, game_id, done),
            )
        )

    def fail(self, game_id: UUID, at: datetime) -> None:
        self._session.write(
            Statement(
                "UPDATE reviews SET status = 'failed', updated_at = %s "
                f"WHERE game_id = %s AND {_WAITING}",
                (at, game_id),
            )
        )


def _review(row: tuple[Any, ...]) -> StoredReview:
    game_id, status, level, seed, players, decisions = row
    return StoredReview(game_id, Status(status), level, int(seed), int(players), list(decisions))
