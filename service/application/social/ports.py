"""What blocks and follows keep (migration 0023): who blocked whom, who follows whom, and
which games are public (what a followed player is ``playing``)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID


@dataclass(frozen=True, slots=True)
class Listed:
    """Another player in a player's list of blocks or follows: ``name`` sealed under that
    player's key, as stored (revealed as the answer leaves)."""

    player_id: UUID
    name: str
    since: datetime


@dataclass(frozen=True, slots=True)
class Friend:
    """A followed player as their follower's list shows them."""

    player_id: UUID
    name: str  # sealed
    since: datetime
    online: bool
    playing: tuple[UUID, ...]  # public games they sit in that are not over, oldest first


class Blocks(Protocol):
    def add(self, player_id: UUID, other_id: UUID, at: datetime) -> None:
        """(Queued.) ``player_id`` blocks ``other_id`` (blocked already: nothing changes)."""
        ...

    def remove(self, player_id: UUID, other_id: UUID) -> None:
        """(Queued.) The block, if any, is lifted."""
        ...

    def blocked_by(self, player_id: UUID) -> frozenset[UUID]:
        """The players ``player_id`` blocked (whose chat messages they never see)."""
        ...

    def apart(self, players: Collection[UUID]) -> frozenset[frozenset[UUID]]:
        """The pairs of ``players`` of which one blocked the other (either way)."""
        ...

    def page(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Listed]:
        """The players ``player_id`` blocked, oldest block first, after ``after`` (a
        block's time and player), at most ``limit``."""
        ...

    def forget(self, player_id: UUID) -> None:
        """(Queued.) Every block of the player and of them goes (an erasure)."""
        ...


class Follows(Protocol):
    def add(self, player_id: UUID, other_id: UUID, at: datetime) -> None:
        """(Queued.) ``player_id`` follows ``other_id`` (followed already: nothing changes)."""
        ...

    def remove(self, player_id: UUID, other_id: UUID) -> None:
        """(Queued.) ``player_id`` no longer follows ``other_id``."""
        ...

    def followed(self, player_id: UUID) -> list[UUID]:
        """The players ``player_id`` follows."""
        ...

    def page(
        self,
        player_id: UUID,
        after: tuple[datetime, UUID] | None,
        limit: int,
        online_since: datetime,
    ) -> list[Friend]:
        """The players ``player_id`` follows, oldest follow first, after ``after``, at
        most ``limit``: each ``online`` if a stream of theirs was seen at or after
        ``online_since``, with the public games they sit in that are not over."""
        ...

    def playing(self, players: Collection[UUID]) -> list[tuple[UUID, UUID]]:
        """(player, game) for each public game one of ``players`` sits in that is not
        over, oldest game first."""
        ...

    def public(self, game_id: UUID) -> None:
        """(Queued.) The new game ``game_id`` is public."""
        ...

    def seated(self, player_id: UUID) -> None:
        """(Announced with the commit.) ``player_id`` took a seat of a public game: their
        followers' streams look again (service/application/live/hub.py ``follow_key``)."""
        ...

    def forget(self, player_id: UUID) -> None:
        """(Queued.) Every follow of the player and of them goes (an erasure)."""
        ...
