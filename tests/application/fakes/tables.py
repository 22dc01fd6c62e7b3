"""Rows, tables and commits: what the fake database holds, and the errors it raises as
PostgreSQL would."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from service.application.games.ports import (
    GameSummary,
    InboxEntry,
    Snapshot,
)
from service.application.identity.ports import (
    LinkCode,
    PlayerAuditEntry,
    PlayerRecord,
    PlayerToken,
)
from service.application.lobby.ports import LobbyEntry
from service.application.ports import Position, StoredEvent
from service.application.seeks.ports import (
    Seek,
)
from service.application.webhooks.ports import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from service.application.write.ports import SealedRecord

if TYPE_CHECKING:
    from tests.application.fakes.database import Database


class IntegrityViolation(Exception):
    """A constraint the database enforces that the ports do not translate (a foreign
    key, a duplicate game id or seat token): a 500 in production."""


class WouldBlockError(Exception):
    """The statement would wait for another open transaction; with one thread it would
    wait forever."""


class TransactionError(Exception):
    """A unit of work used outside its transaction, after a failed statement or a
    commit, or written to in a read-only snapshot."""


@dataclass(frozen=True, slots=True)
class EventRow:
    event: StoredEvent
    position: Position


@dataclass(frozen=True, slots=True)
class CredentialRow:
    token_sha256: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class IdempotencyRow:
    record: SealedRecord
    created_at: datetime


@dataclass(frozen=True, slots=True)
class WebhookRow:
    endpoint: WebhookEndpoint
    secret: str


@dataclass(frozen=True, slots=True)
class DeliveryRow:
    """A webhook delivery: a row of the outbox of kind ``webhook``."""

    id: int
    webhook_id: UUID
    game_id: UUID | None
    message_id: str
    payload: dict[str, Any]
    created_at: datetime
    available_at: datetime
    attempts: int = 0
    last_error: str | None = None
    done_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class AttemptRow:
    id: int
    webhook_id: UUID
    attempt: WebhookAttempt


Recorded = tuple[WebhookDelivery, WebhookAttempt, bool]


@dataclass(frozen=True, slots=True)
class TokenRow:
    token: PlayerToken
    revoked_at: datetime | None = None


@dataclass
class Tables:
    """The rows of every table. Never changed in place once committed: a commit (or a
    change made at once) replaces :attr:`Database.committed` with a changed copy, so a
    snapshot keeps the tables it first read. A game's events are copied on write too."""

    events: dict[UUID, dict[int, EventRow]] = field(default_factory=dict)
    games: dict[UUID, GameSummary] = field(default_factory=dict)
    credentials: dict[tuple[UUID, int], CredentialRow] = field(default_factory=dict)
    idempotency: dict[tuple[str, str], IdempotencyRow] = field(default_factory=dict)
    snapshots: dict[UUID, Snapshot] = field(default_factory=dict)
    players: dict[UUID, PlayerRecord] = field(default_factory=dict)
    player_tokens: dict[UUID, TokenRow] = field(default_factory=dict)
    identities: dict[tuple[str, str], UUID] = field(default_factory=dict)
    link_codes: dict[str, tuple[LinkCode, datetime | None]] = field(default_factory=dict)
    player_audit: list[PlayerAuditEntry] = field(default_factory=list)
    lobby: dict[UUID, LobbyEntry] = field(default_factory=dict)
    seeks: dict[UUID, Seek] = field(default_factory=dict)
    seat_players: dict[tuple[UUID, int], UUID] = field(default_factory=dict)
    inbox: dict[tuple[UUID, UUID], InboxEntry] = field(default_factory=dict)
    wakeups: dict[UUID, tuple[datetime, int]] = field(default_factory=dict)  # (due_at, version)
    webhooks: dict[UUID, WebhookRow] = field(default_factory=dict)
    deliveries: dict[int, DeliveryRow] = field(default_factory=dict)
    attempts: dict[int, AttemptRow] = field(default_factory=dict)
    # Not tables, for the tests' assertions: what commits told webhooks (game, event,
    # bound seats), and the webhook attempts they recorded, in commit order.
    told: list[tuple[UUID, WebhookEvent, tuple[tuple[int, UUID], ...]]] = field(
        default_factory=list
    )
    recorded: list[Recorded] = field(default_factory=list)

    def copy(self) -> Tables:
        return Tables(
            dict(self.events),
            dict(self.games),
            dict(self.credentials),
            dict(self.idempotency),
            dict(self.snapshots),
            dict(self.players),
            dict(self.player_tokens),
            dict(self.identities),
            dict(self.link_codes),
            list(self.player_audit),
            dict(self.lobby),
            dict(self.seeks),
            dict(self.seat_players),
            dict(self.inbox),
            dict(self.wakeups),
            dict(self.webhooks),
            dict(self.deliveries),
            dict(self.attempts),
            list(self.told),
            list(self.recorded),
        )


@dataclass
class Commit:
    """The writes of one commit being done: each reads ``before`` (the rows as committed
    before it, as every part of one statement does) and writes ``after``, where keys are
    checked as rows go in; foreign keys (``references``) are checked once all are in."""

    db: Database
    before: Tables
    after: Tables
    txid: int
    references: list[tuple[Callable[[Tables], bool], str]] = field(default_factory=list)
    games: dict[UUID, int] = field(default_factory=dict)  # appended to: the last seq
    players: set[UUID] = field(default_factory=set)  # whose inbox changed
    revoked: set[str] = field(default_factory=set)  # tokens revoked (their digests)
    lobby: bool = False  # the lobby changed
    seeks: bool = False  # a seek was added (announced to the workers)
    followed: set[UUID] = field(default_factory=set)  # seated at a public game (follows)

    def game(self, game_id: UUID, table: str) -> None:
        self.references.append((lambda t: game_id in t.games, f"{table}: no game {game_id}"))

    def player(self, player_id: UUID, table: str) -> None:
        self.references.append(
            (lambda t: player_id in t.players, f"{table}: no player {player_id}")
        )

    def webhook(self, webhook_id: UUID, table: str) -> None:
        self.references.append(
            (lambda t: webhook_id in t.webhooks, f"{table}: no webhook {webhook_id}")
        )


Write = Callable[[Commit], None]
"""A queued write, done at commit."""
