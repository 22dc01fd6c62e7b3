"""What every capability shares of the outside world: who acted (Actor), the event store
and its rows, the clock, and the unit of work, one transaction whose properties are the
stores of every capability (their ports live beside each capability: games/ports.py,
identity/ports.py, write/ports.py, webhooks/ports.py, lobby/ports.py, seeks/ports.py,
social/ports.py). Adapters implement them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from types import TracebackType
from typing import Any, Protocol, Self
from uuid import UUID

from service.application.chat.ports import ChatStore
from service.application.games.ports import GameIndex, Inbox, SnapshotStore, Wakeups
from service.application.identity.ports import (
    Credentials,
    Identities,
    LinkCodes,
    Operators,
    PlayerAudit,
    Players,
    PlayerTokens,
)
from service.application.lobby.ports import Lobby
from service.application.moderation.ports import Reports
from service.application.notify.ports import Notifications
from service.application.privacy.ports import Erasures
from service.application.ratings.ports import Ratings
from service.application.reputation.ports import Reputations
from service.application.review.ports import Reviews
from service.application.seeks.ports import Seeks
from service.application.social.ports import Blocks, Follows
from service.application.webhooks.ports import Webhooks
from service.application.write.ports import IdempotencyStore


class ActorKind(StrEnum):
    SEAT = "seat"  # a seat's own token (``seat``: which)
    OPERATOR = "operator"  # an operator's token (``id``: its name)
    # The server itself: deals, turn clocks, expiry (and, before migration 0009, games
    # created by anonymous clients).
    SYSTEM = "system"
    BOT = "bot"  # a bot playing a seat (the worker)
    PLAYER = "player"  # a player acting with their player token (``id``: the player's)
    ANONYMOUS = "anonymous"  # a client without a token (``seat``: the seat it joined)


@dataclass(frozen=True, slots=True)
class Actor:
    kind: ActorKind
    seat: int | None = None
    # Who exactly, where the kind does not say: an operator token's name, a player's id.
    id: str | None = None


SYSTEM = Actor(ActorKind.SYSTEM)
# What a turn clock does at its deadline (TurnTimedOut, the autoplayed moves, a
# forfeit's end): the system's acts, which the audit tells from the others by this `id`
# (the keyed hash chain covers it, so no column nor migration was needed).
TIMEOUT = Actor(ActorKind.SYSTEM, id="timeout")


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
    idempotency_key: str | None  # SHA-256 of the command's idempotency key, hex
    prev_hash: str
    hash: str
    # The id of the chain key ``hash`` is an HMAC under; None: a plain SHA-256, as every
    # event was hashed before migration 0009 (service/application/integrity/chain.py).
    chain_key: str | None = None
    client_request_id: str | None = None  # the client's X-Request-ID, as it was sent
    client_address: str | None = None  # the client's address (after trusted proxies)
    # Migration 0014: an event written before personal data was sealed, sealed since
    # (service/application/privacy/legacy.py): "<key id>:<MAC>" attests it.
    resealed: str | None = None


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """An event's place in the global order of every game's events: the transaction that
    appended it, then its position in the append order. Transactions commit in any order,
    so readers of "everything after P" only go as far as the oldest transaction still
    running (see EventStore.read_all)."""

    transaction: int
    position: int


class AppendConflictError(Exception):
    """Another writer appended to this game first (the (game_id, seq) key is taken)."""

    def __init__(self, game_id: UUID) -> None:
        super().__init__(str(game_id))
        self.game_id = game_id


class StoreUnavailableError(Exception):
    """The store could not be reached, or the connection broke. ``maybe_committed``: it
    broke while a commit was on its way, so the work may or may not have been done."""

    def __init__(self, detail: str, *, maybe_committed: bool = False) -> None:
        super().__init__(detail)
        self.maybe_committed = maybe_committed


class EventStore(Protocol):
    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        """Events with ``after < seq <= upto``, oldest first, at most ``limit``."""
        ...

    def page(self, game_id: UUID, after: int, limit: int) -> tuple[int, list[StoredEvent]] | None:
        """The game's version and its events with ``after < seq <= version``, oldest
        first, at most ``limit`` (read together); None if there is no such game."""
        ...

    def append(self, events: Sequence[StoredEvent]) -> None:
        """Insert events; :class:`AppendConflictError` if a ``(game_id, seq)`` is taken."""
        ...

    def commits(self, game_id: UUID, after: int) -> list[list[StoredEvent]]:
        """The committed events with ``seq > after``, oldest first, grouped by the
        transaction (one command) that appended them."""
        ...

    def read_all(self, after: Position | None, limit: int) -> list[tuple[Position, StoredEvent]]:
        """Committed events of every game after ``after``, in global order, at most
        ``limit``. Never skips a transaction that commits later: events of transactions
        still running, and of every transaction after the oldest running one, wait for
        the next read."""
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

    @property
    def snapshots(self) -> SnapshotStore: ...

    @property
    def players(self) -> Players: ...

    @property
    def player_tokens(self) -> PlayerTokens: ...

    @property
    def identities(self) -> Identities: ...

    @property
    def link_codes(self) -> LinkCodes: ...

    @property
    def player_audit(self) -> PlayerAudit: ...

    @property
    def lobby(self) -> Lobby: ...

    @property
    def inbox(self) -> Inbox: ...

    @property
    def seeks(self) -> Seeks: ...

    @property
    def ratings(self) -> Ratings: ...

    @property
    def reputations(self) -> Reputations: ...

    @property
    def reviews(self) -> Reviews: ...

    @property
    def chat(self) -> ChatStore: ...

    @property
    def wakeups(self) -> Wakeups: ...

    @property
    def webhooks(self) -> Webhooks: ...

    @property
    def notifications(self) -> Notifications: ...

    @property
    def reports(self) -> Reports: ...

    @property
    def operators(self) -> Operators: ...

    @property
    def erasures(self) -> Erasures: ...

    @property
    def blocks(self) -> Blocks: ...

    @property
    def follows(self) -> Follows: ...

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
