"""What the lobby needs from the store: one row per public game that waits or waited for
players."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from service.rules import TurnClock


@dataclass(frozen=True, slots=True)
class LobbySeat:
    """A seat as the lobby shows it: never a card, only who sits there."""

    seat: int
    name: str | None
    bot: str | None = None
    player_id: UUID | None = None  # filled when read: the player who holds the seat
    reserved_for: UUID | None = None  # an invited player's seat


@dataclass(frozen=True, slots=True)
class LobbyEntry:
    """A public game as the lobby lists it; ``open_seats`` 0: it left the lobby (full,
    started or expired) at ``updated_at``."""

    game_id: UUID
    players: int
    scoring: str
    variant: str
    rated: bool
    clock: TurnClock | None
    seats: tuple[LobbySeat, ...]
    open_seats: int
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class LobbyFilter:
    players: int | None = None
    variant: str | None = None
    scoring: str | None = None
    rated: bool | None = None


class Lobby(Protocol):
    def put(self, entry: LobbyEntry) -> None:
        """(Queued.) The game's row as it now stands (its ``created_at`` is kept from its
        first put); every process hears that the lobby changed."""
        ...

    def page(
        self, where: LobbyFilter, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[LobbyEntry]:
        """Games with an open seat, oldest first (created_at, game_id), strictly after
        ``after``; their seats with the players who hold them."""
        ...

    def stamp(self, where: LobbyFilter) -> tuple[int, datetime | None]:
        """How many games of the filter have an open seat, and when the latest row of
        the filter changed (a game that left changes it too)."""
        ...

    def changed(self, where: LobbyFilter, since: datetime) -> list[LobbyEntry]:
        """The rows of the filter changed at or after ``since`` (those that left the
        lobby too), by when they changed."""
        ...

    def forget(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` rows of games that left the lobby before ``before``
        (done at once); how many went."""
        ...
