"""What turn notifications keep (migration 0019): each player's choices, their browsers'
push subscriptions, the codes that verify an address, who is looking at what, and the
pushes waiting in the outbox."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol
from uuid import UUID

DIGESTS = ("off", "hourly", "daily")


@dataclass(frozen=True, slots=True)
class Choices:
    """A player's choices (the defaults until they change one). ``email`` is sealed
    under the player's key, as stored."""

    push: bool = True
    mail: bool = True
    email: str | None = None
    email_verified: bool = False
    digest: str = "off"
    reminder_minutes: int | None = None


@dataclass(frozen=True, slots=True)
class Subscription:
    """A browser's push subscription; ``endpoint`` and ``keys`` (the JSON of
    ``{"p256dh", "auth"}``) sealed under the player's key, as stored."""

    id: UUID
    player_id: UUID
    endpoint: str
    keys: str
    created_at: datetime
    expires_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PushNotice:
    """A push a commit makes: to every subscription of the player holding ``seat``."""

    type: str  # turn | invited | matched
    seat: int
    urgent: bool  # a running clock: Urgency high


@dataclass(frozen=True, slots=True)
class Push:
    """A push claimed from the outbox, with its subscription (None once deleted),
    whether its player is looking at its game now, and whether they turned pushes off."""

    id: int
    game_id: UUID
    payload: dict[str, Any]
    created_at: datetime
    attempts: int
    subscription: Subscription | None
    watched: bool
    turned_off: bool = False  # the player turned pushes off since it was queued


@dataclass(frozen=True, slots=True)
class PushOutcome:
    push: Push
    done: bool  # sent, refused for good, not needed, or given up
    error: str | None
    retry_at: datetime | None
    gone: bool = False  # the push service says the subscription no longer exists


@dataclass(frozen=True, slots=True)
class EmailCode:
    sent_at: datetime
    address: str  # sealed
    code_hash: str
    expires_at: datetime
    tries: int


@dataclass(frozen=True, slots=True)
class Mail:
    """A message claimed from the outbox (kind ``mail``): its payload (``type``:
    verification, reminder or digest; ``player_id``; sealed values), and, for the
    reminders and digests, the player's address if mail is on and it is verified
    (sealed), their language and one-click token."""

    id: int
    game_id: UUID | None
    payload: dict[str, Any]
    created_at: datetime
    attempts: int
    address: str | None
    lang: str
    token: str | None


@dataclass(frozen=True, slots=True)
class MailOutcome:
    mail: Mail
    done: bool
    error: str | None
    retry_at: datetime | None


@dataclass(frozen=True, slots=True)
class Waiting:
    """A game waiting on a player (their inbox says ``my_turn``), for a digest."""

    game_id: UUID
    since: datetime | None
    deadline: datetime | None


class Notifications(Protocol):
    def choices(self, player_id: UUID) -> Choices: ...

    def choose(self, player_id: UUID, changes: dict[str, Any], token: str) -> None:
        """Upsert the given columns of the player's choices; ``token`` is the one-click
        unsubscribe token of a row made now."""
        ...

    def subscriptions(self, player_id: UUID) -> list[Subscription]: ...

    def subscription(self, player_id: UUID, endpoint_hash: str) -> Subscription | None: ...

    def subscribe(self, subscription: Subscription, endpoint_hash: str) -> None: ...

    def unsubscribe(self, player_id: UUID, subscription_id: UUID) -> bool:
        """Delete the subscription (and its waiting pushes); whether it was there."""
        ...

    def fan_out(
        self,
        game_id: UUID,
        version: int,
        notices: Sequence[PushNotice],
        bound: Sequence[tuple[int, UUID]],
        now: datetime,
    ) -> None:
        """Queue a push per notice and subscription of the seat's player (with this
        transaction's joins ``bound``), unless the player turned pushes off or one was
        queued for that subscription, game and version already."""
        ...

    # Addresses and their codes.
    def codes_since(self, player_id: UUID, since: datetime) -> int: ...

    def latest_code(self, player_id: UUID) -> EmailCode | None: ...

    def set_email(
        self, player_id: UUID, code: EmailCode, mail: dict[str, Any], lang: str, token: str
    ) -> None:
        """The player's new address (unverified), its code, and the message that sends it."""
        ...

    def tried(self, player_id: UUID, sent_at: datetime) -> None: ...

    def verified(self, player_id: UUID, address: str) -> bool:
        """Mark the address verified if it is still the player's; whether it was."""
        ...

    def unsubscribe_mail(self, token: str) -> bool: ...

    # The worker's side.
    def remind(self, now: datetime, mail: bool) -> int:
        """Queue a reminder (push, and mail if ``mail``: the server sends it; as each
        player chose) for every turn whose clock has the player's ``reminder_minutes``
        left, once per turn (its deadline)."""
        ...

    def queue_digests(self, now: datetime) -> int:
        """Queue a digest for every player whose period began since their last one and
        who has a game waiting on them."""
        ...

    def claim_mail(self, now: datetime, lease_until: datetime, limit: int) -> list[Mail]: ...

    def record_mail(self, outcomes: Sequence[MailOutcome], now: datetime) -> None: ...

    def next_mail(self) -> datetime | None: ...

    def waiting(self, player_id: UUID) -> list[Waiting]: ...

    def claim_pushes(
        self, now: datetime, lease_until: datetime, watched_since: datetime, limit: int
    ) -> list[Push]: ...

    def record_pushes(self, outcomes: Sequence[PushOutcome], now: datetime) -> None: ...

    def next_push(self) -> datetime | None: ...

    # Who looks at what (open streams).
    def watch(
        self, stream_id: UUID, player_id: UUID, game_id: UUID | None, now: datetime
    ) -> None: ...

    def seen(self, stream_ids: Sequence[UUID], now: datetime) -> None: ...

    def unwatch(self, stream_id: UUID) -> None: ...

    # The worker's housekeeping: rows that count no more, ``limit`` at a time; how many.
    def forget_watchers(self, before: datetime, limit: int) -> int:
        """Streams not refreshed since ``before``: a process that died left them."""
        ...

    def forget_codes(self, before: datetime, limit: int) -> int:
        """Codes sent to verify an address before ``before`` (past the day's count)."""
        ...

    def forget_reminders(self, before: datetime, limit: int) -> int:
        """The turns reminded of whose deadline was before ``before``: none is due again."""
        ...
