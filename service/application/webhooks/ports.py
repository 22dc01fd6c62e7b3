"""What webhooks need from the outside world: endpoints and their deliveries in the
store, and a policy for the URLs they may be sent to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

PER_ENDPOINT = 2
"""Deliveries to one endpoint a claimer has under way at once (claimed, their attempt
not yet ended), unless its claim raises that endpoint's limit."""


@dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    """Where a player (``player_id``) or the operators (None) hear of games."""

    id: UUID
    player_id: UUID | None
    url: str
    events: tuple[str, ...]
    created_at: datetime
    failing_since: datetime | None = None
    disabled_at: datetime | None = None
    disabled_reason: str | None = None


@dataclass(frozen=True, slots=True)
class WebhookEvent:
    """Something a commit tells webhooks: its type, and for ``turn`` the seat that must
    act (the endpoints of the player holding it hear of it); never a card."""

    type: str
    data: dict[str, Any]
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class WebhookDelivery:
    """One message to one endpoint, claimed for an attempt."""

    id: int
    webhook_id: UUID
    message_id: str
    url: str
    secret: str
    payload: dict[str, Any]
    created_at: datetime
    attempts: int


@dataclass(frozen=True, slots=True)
class WebhookAttempt:
    message_id: str
    event_type: str
    attempted_at: datetime
    status: int | None
    error: str | None
    next_attempt_at: datetime | None


class Webhooks(Protocol):
    def add(self, endpoint: WebhookEndpoint, secret: str) -> None:
        """(Queued.)"""
        ...

    def get(self, webhook_id: UUID) -> WebhookEndpoint | None: ...

    def of(self, player_id: UUID | None) -> list[WebhookEndpoint]:
        """A player's endpoints (None: the operators'), oldest first."""
        ...

    def delete(self, webhook_id: UUID) -> None:
        """(Queued.) With its pending deliveries and its log."""
        ...

    def attempts(self, webhook_id: UUID, limit: int) -> list[WebhookAttempt]:
        """The endpoint's latest attempts, newest first."""
        ...

    def fan_out(
        self,
        game_id: UUID,
        events: Sequence[WebhookEvent],
        bound: Sequence[tuple[int, UUID]],
        now: datetime,
        left: Sequence[int] = (),
    ) -> None:
        """(Queued with the events that cause them.) A delivery to every enabled endpoint
        that wants each event: the operators' for every game, a player's for the games
        where they hold a seat (for ``turn``: the seat that must act). ``bound``: seats
        taken by players in this same transaction (not yet visible to its statement);
        ``left``: seats a bot holds now, whose player (if any) left and hears no more."""
        ...

    def claim(
        self,
        now: datetime,
        lease_until: datetime,
        limit: int,
        busy: Mapping[UUID, int],
        limits: Mapping[UUID, int] | None = None,
    ) -> list[WebhookDelivery]:
        """Due deliveries, the oldest due taken first (listed in no particular order),
        so that no endpoint has more than its limit under way (``busy``: how many each
        endpoint has under way already; ``limits``: the endpoints whose limit is not
        PER_ENDPOINT, with theirs); each is due again at ``lease_until`` unless its
        attempt is recorded. Done at once."""
        ...

    def record(
        self,
        attempts: Sequence[tuple[WebhookDelivery, WebhookAttempt, bool]],
        *,
        disable_failing_since: datetime,
    ) -> None:
        """(Queued.) Log the attempts; each delivery is done (the bool) or due again at
        its attempt's ``next_attempt_at``. An endpoint's failing streak starts, goes on
        or ends; one failing since before ``disable_failing_since`` is disabled."""
        ...

    def next_due(self, busy: Sequence[UUID]) -> datetime | None: ...

    def forget(self, before: datetime, limit: int) -> int:
        """Delete up to ``limit`` finished deliveries (delivered or given up) and logged
        attempts older than ``before``; how many rows went."""
        ...


class UrlPolicy(Protocol):
    def problem(self, url: str) -> str | None:
        """Why webhooks may not be sent to ``url`` (None: they may)."""
        ...
