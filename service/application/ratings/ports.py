"""The store of ratings: players' ratings by ladder, their histories, and the queue of
finished rated games waiting for their update (migration 0013)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from service.application.ratings.model import Rating


@dataclass(frozen=True, slots=True)
class Change:
    """One update of one player's rating, by one game."""

    game_id: UUID
    at: datetime
    before: Rating
    after: Rating


@dataclass(frozen=True, slots=True)
class Ranked:
    """A leaderboard's row: a person's, or a bot level's (``bot``: its level)."""

    player_id: UUID
    name: str
    rating: Rating
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """How a finished game went for one of its players (profiles: stats, recent games).
    ``abandoned``: the player left (a bot played on), resigned or forfeited on the clock."""

    player_id: UUID
    game_id: UUID
    seat: int
    finished_at: datetime
    rated: bool
    won: bool
    abandoned: bool


@dataclass(frozen=True, slots=True)
class Stats:
    games: int
    wins: int
    rated_games: int
    abandoned: int


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """One of a player's finished games, as their profile lists it."""

    result: PlayerResult
    players: int
    scoring: str
    variant: str


class Ratings(Protocol):
    def ordinals(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, float]:
        """Each player's ordinal in the ladder (the default's for a player without a
        rating): what pairing compares with rated seeks' ranges."""
        ...

    def finished(self, game_id: UUID, at: datetime) -> None:
        """A rated game finished (in the command's own transaction): queued for its
        update, and the workers told."""
        ...

    def results(self, rows: Sequence[PlayerResult]) -> None:
        """A game finished (in the command's own transaction): how it went for each of
        its players."""
        ...

    def stats(self, player_id: UUID) -> Stats:
        """The player's finished games counted."""
        ...

    def finished_games(
        self, player_id: UUID, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[FinishedGame]:
        """The player's finished games, the most recently finished first, after the one
        (finished at, game id) ``before``."""
        ...

    def due_at(self) -> datetime | None:
        """When the oldest finished rated game not rated yet finished (None: none)."""
        ...

    def next_due(self) -> UUID | None:
        """The oldest finished rated game not rated yet, held until this unit of work
        ends (another worker waits for it, then finds it rated): one update at a time,
        in the order the games finished."""
        ...

    def hold(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, Rating]:
        """The players' ratings in the ladder (the default for one without), held until
        this unit of work ends."""
        ...

    def apply(
        self,
        game_id: UUID,
        ladder: str,
        before: Mapping[UUID, Rating],
        after: Mapping[UUID, Rating],
        at: datetime,
    ) -> None:
        """Write the game's update: the new ratings, a history entry per player, and the
        game marked rated (in the order of application: :meth:`rated_games`)."""
        ...

    def of(self, player_id: UUID) -> dict[str, Rating]:
        """The player's rating in each ladder they have played."""
        ...

    def history(self, player_id: UUID, ladder: str) -> list[Change]:
        """The player's updates in the ladder, oldest first."""
        ...

    def leaderboard(
        self, ladder: str, after: tuple[float, int, UUID] | None, limit: int, bots: bool = False
    ) -> list[Ranked]:
        """People not provisional in the ladder (with ``bots``, every bot level rated in
        it too) by ordinal, highest first (ties: more games, then player id), after the
        row ``(ordinal, games, player_id)``."""
        ...

    def rated_games(self) -> list[UUID]:
        """Every rated game updated so far, in the order the updates were made; no
        update is made by another unit of work until this one ends (a rebuild)."""
        ...

    def rewrite(
        self,
        ratings: Mapping[tuple[UUID, str], Rating],
        changes: Sequence[tuple[UUID, UUID, Rating, Rating]],
    ) -> None:
        """A rebuild's result: every rating (by player and ladder) as given, and each
        history entry ``(game_id, player_id, before, after)`` (the entries there are,
        each rewritten where it is: its time and place in the history stay). A rating or
        an entry the rebuild did not make goes: the rule no longer rates it (a bot level
        on both sides of a game, rated before ratings were for people)."""
        ...
