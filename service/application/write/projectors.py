"""What the write path asks of each effect of a command (the games row, the inbox, the
lobby, a rating queued, a webhook's outbox, a snapshot, a wakeup): a projector. Given the
unit of work and what one command did to one game, it queues its writes on the unit of
work, which sends them with the events as the command's one statement.

Projectors live in the capability whose rows they keep (its ``projections`` module or
package); service/application/projections.py lists them, and bootstrap hands that list
to the application (``Deps.projections``), so the write path runs every one of them and
imports none (pyproject.toml's import contracts hold it to that).

Here rather than in service/application/ports.py: what a projector is given is the write
path's own vocabulary (a game before and after a command, the seats bound and the
webhook events told in its transaction), which the ports every capability shares need
not know; projectors depend on the write path, never the other way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from service.application.games.cache import Loaded
from service.application.ports import StoredEvent, UnitOfWork
from service.application.webhooks.ports import WebhookEvent


@dataclass(frozen=True, slots=True)
class Change:
    """What one command did to one game: the game before it and after it, and the rows
    of its new events (the rows of several commands a handler decided together)."""

    game_id: UUID
    before: Loaded
    after: Loaded
    rows: Sequence[StoredEvent]

    @property
    def first(self) -> bool:
        """Whether these are the game's first events (it had no row of its own before)."""
        return self.before.version == 0


@dataclass(frozen=True, slots=True)
class Known:
    """What the transaction knows of a change that its events do not say (read-only)."""

    now: datetime
    bound: Sequence[tuple[int, UUID]] = ()
    """Seats that players take in this transaction: (seat, player)."""
    dropped: Sequence[UUID] = ()
    """Players whose inbox entry of the game goes in this transaction."""
    rewake: bool = False
    """The game's wakeup is written whatever it was (the worker's claim moved it)."""
    told: Sequence[WebhookEvent] = ()
    """Webhook events besides those of the game's events (a seek matched)."""


class Projector(Protocol):
    def __call__(self, uow: UnitOfWork, change: Change, known: Known, /) -> None:
        """Queue the writes that ``change`` makes to this effect's rows. A read costs the
        command a round trip of its own: only for what is rare (a game that finished)."""
        ...


@dataclass(frozen=True)
class Projections:
    """Every projector the write path runs on each game a command changed, in the order
    their writes are queued (the order of the parts of the command's statement)."""

    referenced: tuple[Projector, ...]
    """Rows the events refer to: queued before the events."""
    following: tuple[Projector, ...]
    """Everything else: queued after the events."""
    seating: tuple[Projector, ...] = ()
    """Effects of a new game or of seats players take (``Known.bound``) only: queued
    after the others, and not even called otherwise (a play costs them nothing)."""
