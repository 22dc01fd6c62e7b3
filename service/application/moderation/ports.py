"""The store of reports (migration 0024), and the chat messages moderation reads
(``chat_messages``, migration 0022: the chat's own table, read here as it is)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

ACTIONS = ("none", "warn", "mute", "suspend")


@dataclass(frozen=True, slots=True)
class Resolution:
    """How an operator closed a report. ``until``: a mute's end; ``note`` sealed under
    the reported player's key."""

    at: datetime
    by: str | None
    action: str
    minutes: int | None
    until: datetime | None
    note: str


@dataclass(frozen=True, slots=True)
class Report:
    """A report as stored: ``reason`` sealed under the reporter's key."""

    id: UUID
    reporter_id: UUID
    player_id: UUID
    game_id: UUID | None
    message_id: int | None
    reason: str
    created_at: datetime
    resolution: Resolution | None = None


@dataclass(frozen=True, slots=True)
class Message:
    """A chat message as stored (its name and a player's text sealed)."""

    id: int
    game_id: UUID
    channel: str
    seat: int | None
    player_id: UUID | None
    name: str
    text: str | None
    preset: str | None
    at: datetime


@dataclass(frozen=True, slots=True)
class Listed:
    """A report of the operators' list, with both players' names (as stored) and
    whether each is erased."""

    report: Report
    reporter_name: str
    player_name: str
    erased: tuple[bool, bool]  # the reporter's, the reported player's


class Reports(Protocol):
    def add(self, report: Report) -> None:
        """(Queued.) A new open report."""
        ...

    def get(self, report_id: UUID, *, lock: bool = False) -> Report | None:
        """The report; ``lock``: held until this unit of work ends (a resolution)."""
        ...

    def resolve(self, report_id: UUID, resolution: Resolution) -> None:
        """(Queued.) Close the report."""
        ...

    def made_since(self, reporter_id: UUID, since: datetime) -> int:
        """How many reports the player made after ``since``."""
        ...

    def muted_until(self, player_id: UUID, now: datetime) -> datetime | None:
        """The end of the player's longest mute running at ``now``, if any."""
        ...

    def message(self, message_id: int) -> Message | None: ...

    def page(self, resolved: bool, after: tuple[datetime, UUID] | None, limit: int) -> list[Listed]:
        """Open reports oldest first, or closed ones newest first (by when they were
        made), after the cursor's (created_at, id)."""
        ...

    def listed(self, report_id: UUID) -> Listed | None:
        """One report as :meth:`page` gives it."""
        ...

    def around(
        self, message_ids: Sequence[int], before: int, after: int
    ) -> dict[int, list[Message]]:
        """For each message, the messages of its game and channel around it (``before``
        ones before it, itself, ``after`` ones after), oldest first."""
        ...
