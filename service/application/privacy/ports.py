"""Where the keys that seal personal data are kept."""

from __future__ import annotations

from collections.abc import Collection, Mapping, MutableMapping
from datetime import date, datetime
from typing import Protocol
from uuid import UUID


class KeyVault(Protocol):
    """Keys by subject (``p<player id hex>``, ``d<YYYYMMDD>``): 32 random bytes each.
    Destroying a key is what erases everything sealed under it."""

    def key(self, subject: str) -> bytes:
        """The subject's key, made now if it has none (for sealing)."""
        ...

    def keys(self, subjects: Collection[str]) -> Mapping[str, bytes]:
        """The keys that exist of ``subjects`` (for revealing; never makes one)."""
        ...

    def opened(self, subjects: Collection[str]) -> Mapping[str, MutableMapping[str, str]]:
        """Where the values of the subjects' tokens opened in this process are kept
        (token text to value), for those of ``subjects`` whose keys this process holds:
        kept as long as the key is, and dropped with it when it is destroyed."""
        ...

    def destroy(self, subjects: Collection[str]) -> int:
        """Destroy these subjects' keys; how many there were."""
        ...

    def destroy_days_before(self, day: date) -> int:
        """Destroy the day keys of the days before ``day``; how many there were."""
        ...


class Erasures(Protocol):
    """What an erasure changes besides the games' histories (one transaction)."""

    def erase(self, player_id: UUID, at: datetime) -> None:
        """Mark the player erased; revoke every token of theirs (their streams end);
        drop their linked identities and link codes; cancel their open seeks; delete
        the reports about them."""
        ...

    def games_of(self, player_id: UUID) -> list[tuple[UUID, int]]:
        """The games (and seats) the player holds or is invited to."""
        ...

    def close_seat(self, game_id: UUID, seat: int, *, free: bool) -> None:
        """The seat's tokens stop (their streams end); ``free``: the seat is no longer
        the player's (its binding and inbox entry go: a waiting game's freed seat)."""
        ...
