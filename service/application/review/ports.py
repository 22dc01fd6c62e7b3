"""The store of hand reviews (migration 0020): one row per game whose review was asked
for, its decisions appended one at a time by the worker."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Protocol
from uuid import UUID

REVIEW_NOTE = "review"
"""What a review asked for announces on the worker's channel, with its commit."""


class Status(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class StoredReview:
    game_id: UUID
    status: Status
    level: str
    seed: int
    players: int
    decisions: list[dict[str, Any]]  # as model.as_json gives them, in game order


class Reviews(Protocol):
    def request(self, game_id: UUID, level: str, seed: int, players: int, at: datetime) -> None:
        """Queue the game's review (nothing if it was asked for before), and tell the
        workers."""
        ...

    def get(self, game_id: UUID) -> StoredReview | None: ...

    def next_waiting(self) -> StoredReview | None:
        """The review asked for first among those not done nor failed."""
        ...

    def waiting(self) -> int:
        """How many reviews are queued or running (the worker's queue)."""
        ...

    def add(
        self,
        game_id: UUID,
        done: int,
        decision: dict[str, Any] | None,
        status: Status,
        at: datetime,
    ) -> None:
        """Append ``decision`` (None: none, the game had no pass nor play) and set the
        status, if ``done`` decisions are stored (else another worker was first:
        nothing)."""
        ...

    def fail(self, game_id: UUID, at: datetime) -> None: ...
