"""A clock the test sets."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class FixedClock:
    """A clock that says what it is told (``moment``), until told otherwise."""

    def __init__(self, moment: datetime = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) -> None:
        self.moment = moment

    def now(self) -> datetime:
        return self.moment

    def advance(self, delta: timedelta = timedelta(seconds=1)) -> None:
        self.moment += delta
