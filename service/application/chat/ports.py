"""The store of chat messages (migration 0022): one row per message, in a game's order.

A message's ``id`` is global and grows with the order its game's messages were written:
a message is added under a lock of its game taken before its id is drawn, so a reader of
the messages after an id misses none committed later (see :meth:`ChatStore.post`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

TABLE = "table"
SPECTATORS = "spectators"
CHANNELS = (TABLE, SPECTATORS)


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """A message as stored: ``name`` and ``text`` sealed when a player wrote them."""

    id: int
    game_id: UUID
    at: datetime
    channel: str
    seat: int | None
    player_id: UUID | None
    name: str
    text: str | None
    preset: str | None


@dataclass(frozen=True, slots=True)
class Posted:
    """What writing a message gave: its id and the name it was written under (None: the
    sender was muted, or had written ``limit`` messages in the window already, and
    nothing was written)."""

    id: int | None
    name: str | None
    muted_until: datetime | None = None  # an operator's mute of the sender runs: nothing


class ChatStore(Protocol):
    def post(
        self,
        message: ChatMessage,
        sender: str,
        since: datetime,
        limit: int,
        *,
        named: UUID | None,
        atomic: bool,
    ) -> Posted:
        """Write ``message`` (its id drawn here; its name the player ``named``'s as stored,
        when one is given: a spectator's) unless ``sender`` wrote ``limit`` messages
        since ``since`` or an operator's mute of the sender runs, and announce it to the
        game's readers. One statement, which takes the game's chat lock before the id is
        drawn and commits with itself, unless ``atomic`` (the unit of work's transaction
        then holds the lock until it commits)."""
        ...

    def page(
        self, game_id: UUID, channels: tuple[str, ...], after: int | None, limit: int
    ) -> list[ChatMessage]:
        """The game's messages of ``channels`` after the message ``after``, oldest
        first."""
        ...

    def newest(self, game_id: UUID) -> int:
        """The id of the game's newest message (0: none)."""
        ...
