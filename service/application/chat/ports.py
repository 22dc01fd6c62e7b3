"""The store of chat messages (migration 0022): one row per message, in a game's order.

A message's ``id`` is global and grows with the order its game's messages were written:
a message is added under a lock of its game taken before its id is drawn, so a reader of
the messages after an id misses none committed later (see :meth:`ChatStore.draw`)."""

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
class Drawn:
    """What posting a message reads first: its id, the sender's messages in the rate
    limit's window, and a spectator's name."""

    id: int
    recent: int
    name: str | None  # the name of the player asked for, as stored (None: not asked)


class ChatStore(Protocol):
    def draw(self, game_id: UUID, sender: str, since: datetime, named: UUID | None = None) -> Drawn:
        """Lock the game's chat until commit, draw the next message id, count the
        sender's messages since ``since`` and read the name of the player ``named`` (a
        spectator's: one round trip for all of it)."""
        ...

    def add(self, message: ChatMessage, sender: str) -> None:
        """Write a message drawn by :meth:`draw` and announce it to the game's
        readers."""
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
