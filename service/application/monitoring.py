"""What monitoring (/metrics, /readyz) reads of the store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class StoreStats:
    """What the store says of the service's work, for monitoring (/metrics)."""

    games_by_status: dict[str, int]
    jobs_due: int
    job_lag_seconds: float
    deliveries_pending: int
    delivery_lag_seconds: float
    # How long the oldest committed command the relay has not announced has waited (0:
    # none); None where no relay has run (YOKAI_REDIS_URL unset).
    relay_lag_seconds: float | None = None
    reviews_waiting: int = 0  # hand reviews queued or being computed (the worker's queue)


class Stats(Protocol):
    def read(self) -> StoreStats: ...

    def pool(self) -> tuple[int, int]:
        """This process's database connections in use, and its pool's size."""
        ...


class Health(Protocol):
    def ready(self) -> tuple[bool, str]:
        """Whether the database answers and is migrated to the head revision, and why not."""
        ...
