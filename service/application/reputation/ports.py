"""The store of reputations (migration 0018): each player's standing, the marks it was
made of, and when an operator last lifted their ban."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol
from uuid import UUID

from service.application.reputation.model import Abandonment, How, Mark, Standing


@dataclass(frozen=True, slots=True)
class Kept:
    """A player's reputation as the store keeps it, and what a ban is made of: their
    rated or quick-play abandonments since the time asked (oldest first) and when a ban
    of theirs was last lifted."""

    standing: Standing
    recent: Sequence[Abandonment]
    lifted: datetime | None


@dataclass(frozen=True, slots=True, order=True)
class PlayerMark:
    """A mark as kept: for the player who held the seat, at the time of the command that
    left it; ``banning``: an abandonment of a rated or quick-play game."""

    at: datetime
    game_id: UUID
    seq: int
    player_id: UUID
    how: How = field(compare=False)
    banning: bool = field(compare=False)


class Reputations(Protocol):
    def mark(
        self,
        game_id: UUID,
        rated: bool,
        at: datetime,
        marks: Sequence[Mark],
        bound: Mapping[int, UUID],
    ) -> None:
        """(Queued.) Each mark counted for the player who holds its seat (``bound``: seats
        taken in this transaction; else the game's seat players); a seat no player holds
        is left alone. An abandonment bans when the game is rated or quick play's (a seek
        was matched into it); then the player's open seek, if any, is cancelled."""
        ...

    def of(self, player_id: UUID, since: datetime) -> Kept:
        """The player's reputation (the start's for one without marks), with their
        banning abandonments after ``since``."""
        ...

    def scores(self, player_ids: Sequence[UUID]) -> dict[UUID, int]:
        """Each player's score (the start's for one without marks)."""
        ...

    def lift(self, player_id: UUID, at: datetime) -> None:
        """(Queued.) The player's bans of abandonments until ``at`` are lifted."""
        ...

    # -- a rebuild (``yokai reputation rebuild``) --------------------------------------

    def games(self) -> list[UUID]:
        """Every game with an event that may leave a mark, held from any command that
        would add marks until this unit of work ends."""
        ...

    def holders(self, game_id: UUID) -> tuple[dict[int, UUID], bool]:
        """Who holds the game's seats (seat to player), and whether a seek was matched
        into it."""
        ...

    def lifts(self) -> dict[UUID, datetime]:
        """When each player's ban was last lifted, from the players' audit."""
        ...

    def marked(self) -> list[PlayerMark]:
        """Every mark kept, in order."""
        ...

    def standings(self) -> dict[UUID, tuple[Standing, datetime | None]]:
        """Every player's reputation kept, with when their ban was last lifted."""
        ...

    def rewrite(
        self,
        marks: Sequence[PlayerMark],
        standings: Mapping[UUID, Standing],
        lifted: Mapping[UUID, datetime],
    ) -> None:
        """(Queued.) A rebuild's result in place of every mark and reputation kept."""
        ...
