"""What the application needs from the outside world. Adapters implement these."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from types import TracebackType
from typing import Any, Protocol, Self
from uuid import UUID

from service.rules import DealRound, GameConfig


class ActorKind(StrEnum):
    SEAT = "seat"
    OPERATOR = "operator"
    SYSTEM = "system"  # the server itself: deals, and games created by anonymous clients


@dataclass(frozen=True, slots=True)
class Actor:
    kind: ActorKind
    seat: int | None = None


SYSTEM = Actor(ActorKind.SYSTEM)


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """One row of the event store: an event with its place, author and chain hash."""

    game_id: UUID
    seq: int
    type: str
    schema_version: int
    data: dict[str, Any]
    recorded_at: datetime
    actor: Actor
    request_id: str | None
    idempotency_key: str | None  # SHA-256 of the Idempotency-Key header, hex
    prev_hash: str
    hash: str


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A row of the games projection, for listings and cheap version checks."""

    id: UUID
    created_at: datetime
    updated_at: datetime
    players: int
    scoring: str
    variant: str
    status: str
    version: int


@dataclass(frozen=True, slots=True)
class SealedResponse:
    """A stored response to an idempotent command, encrypted with the client's key."""

    fingerprint: str
    status: int
    body: bytes


class AppendConflictError(Exception):
    """Another writer appended to this game first (the (game_id, seq) key is taken)."""


class DuplicateKeyError(Exception):
    """Another request stored a response under this idempotency key first."""


class EventStore(Protocol):
    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``after < seq <= upto``, oldest first, at most ``limit``."""
        ...

    def append(self, events: Sequence[StoredEvent]) -> None:
        """Insert events; :class:`AppendConflictError` if a ``(game_id, seq)`` is taken."""
        ...


class GameIndex(Protocol):
    def add(self, summary: GameSummary) -> None: ...

    def update(self, game_id: UUID, *, status: str, version: int, updated_at: datetime) -> None: ...

    def get(self, game_id: UUID) -> GameSummary | None: ...

    def ids(self) -> list[UUID]:
        """Every game, oldest first."""
        ...

    def page(
        self, *, status: str | None, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[GameSummary]:
        """Games newest first, strictly older than ``before`` (created_at, id)."""
        ...


class Credentials(Protocol):
    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        """Store a seat's token digest; :class:`AppendConflictError` if the seat has one
        (a racing join of the same seat: the caller decides again and finds it taken)."""
        ...

    def find(self, token_sha256: str) -> tuple[UUID, int] | None: ...


class IdempotencyStore(Protocol):
    def lock(self, scope: str, key_sha256: str) -> None:
        """Hold this key until the transaction ends: a twin request waits, then replays."""
        ...

    def get(self, scope: str, key_sha256: str) -> SealedResponse | None: ...

    def add(
        self, scope: str, key_sha256: str, response: SealedResponse, created_at: datetime
    ) -> None:
        """Store a response; :class:`DuplicateKeyError` if the key is taken."""
        ...


class UnitOfWork(Protocol):
    """One database transaction: everything written through it commits together or not."""

    @property
    def events(self) -> EventStore: ...

    @property
    def games(self) -> GameIndex: ...

    @property
    def credentials(self) -> Credentials: ...

    @property
    def idempotency(self) -> IdempotencyStore: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None: ...

    def commit(self) -> None: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self, *, snapshot: bool = False) -> UnitOfWork:
        """A write transaction, or (snapshot) a read-only one that sees a single snapshot."""
        ...


class Clock(Protocol):
    def now(self) -> datetime: ...


class Dealer(Protocol):
    def deal(self, config: GameConfig, seed: int | None, round_number: int) -> DealRound:
        """A shuffled deal: from ``seed`` deterministically, else from a secure source."""
        ...


class Health(Protocol):
    def ready(self) -> tuple[bool, str]:
        """Whether the database answers and is migrated to the head revision, and why not."""
        ...
