"""Erasure: PostgreSQL only."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID


class FakeErasures:
    """Erasure is tested against PostgreSQL only (tests/e2e/test_privacy.py): nothing
    here erases, and a test that tries says so."""

    def erase(self, player_id: UUID, at: datetime) -> None:
        raise NotImplementedError("erasure runs on PostgreSQL: tests/e2e/test_privacy.py")

    def games_of(self, player_id: UUID) -> list[tuple[UUID, int]]:
        raise NotImplementedError("erasure runs on PostgreSQL: tests/e2e/test_privacy.py")

    def close_seat(self, game_id: UUID, seat: int, *, free: bool) -> None:
        raise NotImplementedError("erasure runs on PostgreSQL: tests/e2e/test_privacy.py")
