"""What the application needs from the outside world. Adapters implement these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from types import TracebackType
from typing import Any, Protocol, Self
from uuid import UUID

from service.application.errors import UnauthenticatedError
from service.rules import DealRound, FairShuffle, GameConfig


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
class Head:
    """The newest event of a game's chain: what an anchor records."""

    game_id: UUID
    version: int
    hash: str
    updated_at: datetime


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """An event's place in the global order of every game's events: the transaction that
    appended it, then its position in the append order. Transactions commit in any order,
    so readers of "everything after P" only go as far as the oldest transaction still
    running (see EventStore.read_all)."""

    transaction: int
    position: int


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player: one identity across games."""

    id: UUID
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class InboxEntry:
    """One of a player's games as the inbox shows it (a row of the inbox projection)."""

    player_id: UUID
    game_id: UUID
    seat: int
    status: str
    version: int
    players: int
    scoring: str
    variant: str
    scores: tuple[int, ...]
    winner: tuple[int, ...] | None
    my_turn: bool
    action: str | None
    due_since: datetime | None  # since when it has been the seat's turn
    deadline: datetime | None  # by when the seat must act (turn clocks)
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class SeatTurn:
    """Whether a seat must act now, how, and by when (turn clocks)."""

    seat: int
    action: str | None
    deadline: datetime | None = None


@dataclass(frozen=True, slots=True)
class InboxCursor:
    """Where a page of an inbox ended: the sort key of its last entry."""

    my_turn: bool
    deadline: datetime | None
    due_since: datetime | None
    updated_at: datetime
    game_id: UUID


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game's state folded up to ``version`` (whose event's hash is ``last_hash``), as
    the rules' snapshot data of ``schema_version``: a cache of the events, disposable."""

    game_id: UUID
    version: int
    last_hash: str
    schema_version: int
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SealedRecord:
    """What an idempotent command left under its key: its outcome, encrypted with the
    client's raw key (only the key's digest is stored). ``legacy_status`` is set only on
    records written before outcomes were stored (a rendered response and its status)."""

    fingerprint: str
    sealed: bytes
    legacy_status: int | None = None


@dataclass(frozen=True, slots=True)
class OutboxMessage:
    """Something to do after a commit, written in the same transaction as the events that
    cause it (so a rolled-back command leaves none and a committed one is never lost)."""

    kind: str
    payload: dict[str, Any]
    available_at: datetime
    game_id: UUID | None = None


@dataclass(frozen=True, slots=True)
class ClaimedMessage:
    id: int
    message: OutboxMessage
    attempts: int


class AppendConflictError(Exception):
    """Another writer appended to this game first (the (game_id, seq) key is taken)."""

    def __init__(self, game_id: UUID) -> None:
        super().__init__(str(game_id))
        self.game_id = game_id


class CredentialGoneError(UnauthenticatedError):
    """A credential the unit of work was told to require no longer holds (checked by the
    store in the same round trip as the work it guards)."""

    def __init__(self, detail: str = "the bearer token is not valid") -> None:
        super().__init__("the bearer token is not valid")


class StoreUnavailableError(Exception):
    """The store could not be reached, or the connection broke. ``maybe_committed``: it
    broke while a commit was on its way, so the work may or may not have been done."""

    def __init__(self, detail: str, *, maybe_committed: bool = False) -> None:
        super().__init__(detail)
        self.maybe_committed = maybe_committed


class DuplicateKeyError(Exception):
    """Another command stored its outcome under this idempotency key first."""


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

    def idle(self, *, status: str, before: datetime, limit: int) -> list[UUID]:
        """Games of ``status`` that have not changed since ``before``, oldest first."""
        ...

    def changed(
        self,
        *,
        status: str | None,
        since: datetime | None,
        after: tuple[datetime, UUID] | None,
        limit: int,
    ) -> list[GameSummary]:
        """Games by when they last changed, oldest first: at or after ``since``, and
        strictly after ``after`` (updated_at, id)."""
        ...

    def heads(
        self, *, since: datetime | None, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Head]:
        """The head of each game's chain (its event at the recorded version), by when the
        game last changed, oldest first, as :meth:`changed` pages them."""
        ...


class Credentials(Protocol):
    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        """Store a seat's token digest; :class:`AppendConflictError` if the seat has one
        (a racing join of the same seat: the caller decides again and finds it taken)."""
        ...

    def find(self, token_sha256: str) -> tuple[UUID, int] | None: ...

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        """Everything this unit of work reads or writes from now on holds only while this
        token still opens this seat: else :class:`CredentialGoneError`, and nothing of the
        unit of work is committed. (The store checks it with the work, not before.)"""
        ...


class Players(Protocol):
    def add(self, player: PlayerRecord, token_sha256: str) -> None: ...

    def get(self, player_id: UUID) -> PlayerRecord | None: ...

    def find(self, token_sha256: str) -> PlayerRecord | None: ...

    def seat_in(self, game_id: UUID, player_id: UUID) -> int | None:
        """The seat the player holds in this game, if any."""
        ...

    def bind(self, game_id: UUID, seat: int, player_id: UUID) -> None:
        """The player holds this seat (queued); at commit :class:`AlreadySeatedError` if
        the player holds another seat of the game, :class:`AppendConflictError` if the
        seat is held."""
        ...

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        """As :meth:`Credentials.require`, for a seat a player holds with this token."""
        ...


class Operators(Protocol):
    def find(self, token_sha256: str) -> str | None:
        """The name of the operator whose token (not revoked) has this digest."""
        ...


class Inbox(Protocol):
    def add(self, entry: InboxEntry) -> None:
        """A game joins a player's inbox (queued)."""
        ...

    def update_game(
        self,
        game_id: UUID,
        *,
        status: str,
        version: int,
        scores: tuple[int, ...],
        winner: tuple[int, ...] | None,
        turns: Sequence[SeatTurn],
        updated_at: datetime,
    ) -> None:
        """Every inbox entry of this game as it now stands (queued). An entry whose seat
        must act keeps its ``due_since`` while it still must act the same way."""
        ...

    def page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> list[InboxEntry]:
        """Entries of these statuses in inbox order (the seat's turn first, soonest
        deadline, longest waiting; then the others, most recently updated first)."""
        ...

    def stamp(self, player_id: UUID, statuses: Sequence[str]) -> tuple[int, datetime | None, int]:
        """How many entries of these statuses, when the latest changed, and the sum of
        their games' versions (which grows with every command in any of them)."""
        ...

    def watched(self, player_id: UUID, since: datetime) -> list[InboxEntry]:
        """The entries that may still change or changed lately: those of games not
        finished, and those updated at or after ``since``."""
        ...


class SnapshotStore(Protocol):
    def get(self, game_id: UUID, schema_version: int) -> Snapshot | None:
        """The game's snapshot, if there is one of this schema version."""
        ...

    def put(self, snapshot: Snapshot) -> None:
        """Keep this snapshot (queued with the unit of work's writes), unless the game has
        one of a later version already."""
        ...


class IdempotencyStore(Protocol):
    def lock(self, scope: str, key_sha256: str) -> None:
        """Hold this key until the transaction ends: a twin request waits, then replays."""
        ...

    def get(self, scope: str, key_sha256: str) -> SealedRecord | None: ...

    def add(self, scope: str, key_sha256: str, record: SealedRecord, created_at: datetime) -> None:
        """Store an outcome; :class:`DuplicateKeyError` if the key is taken."""
        ...

    def expire(self, before: datetime, limit: int) -> int:
        """Forget at most ``limit`` outcomes stored before ``before`` (done at once); how
        many were forgotten."""
        ...


class Outbox(Protocol):
    def add(self, messages: Sequence[OutboxMessage], created_at: datetime) -> None: ...

    def claim(self, kind: str, now: datetime, limit: int) -> list[ClaimedMessage]:
        """Due messages of ``kind`` no other transaction holds, locked until this one ends."""
        ...

    def done(self, message_id: int, at: datetime) -> None: ...

    def retry(self, message_id: int, at: datetime, error: str) -> None:
        """Count a failed attempt and make the message due again at ``at``."""
        ...


class Wakeups(Protocol):
    """When the worker must next look at each game (a bot's turn, a turn clock)."""

    def set(self, game_id: UUID, due_at: datetime | None, version: int) -> None:
        """(Queued.) Look at the game at ``due_at`` (None: never), as its ``version``
        says; what an earlier version said never overrides a later one's word."""
        ...

    def claim(self, now: datetime, lease_until: datetime, limit: int) -> list[UUID]:
        """Games due by ``now`` that no other worker is claiming, at most ``limit``, oldest
        due first. Each is due again at ``lease_until``, so that a worker that stops before
        it acts leaves the game to another. Done at once, outside any transaction."""
        ...

    def next_due(self) -> datetime | None:
        """When the soonest game is due, if any is."""
        ...


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
        self, now: datetime, lease_until: datetime, limit: int, busy: Mapping[UUID, int]
    ) -> list[WebhookDelivery]:
        """Due deliveries, oldest first, so that no endpoint has more than its limit
        under way (``busy``: how many each endpoint has under way already); each is due
        again at ``lease_until`` unless its attempt is recorded. Done at once."""
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
    def inbox(self) -> Inbox: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def wakeups(self) -> Wakeups: ...

    @property
    def webhooks(self) -> Webhooks: ...

    @property
    def operators(self) -> Operators: ...

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

    def commit(self, game_id: UUID) -> FairShuffle | None:
        """A new game's commitment to a secret server seed, sealed (docs/fairness.md);
        None when this dealer does not deal fairly (a test's scripted dealer)."""
        ...

    def client_seed(self) -> str:
        """A client seed for a seat of a fair game whose player gave none."""
        ...

    def fair_deal(
        self,
        game_id: UUID,
        config: GameConfig,
        fairness: FairShuffle,
        client_seeds: tuple[str, ...],
        round_number: int,
    ) -> DealRound:
        """Round ``round_number``'s deal of a fair game, from its sealed server seed."""
        ...

    def reveal(self, game_id: UUID, fairness: FairShuffle) -> str:
        """A fair game's server seed, in hex, to reveal once the game is over."""
        ...


@dataclass(frozen=True, slots=True)
class StoreStats:
    """What the store says of the service's work, for monitoring (/metrics)."""

    games_by_status: dict[str, int]
    jobs_due: int
    job_lag_seconds: float
    deliveries_pending: int
    delivery_lag_seconds: float


class Stats(Protocol):
    def read(self) -> StoreStats: ...

    def pool(self) -> tuple[int, int]:
        """This process's database connections in use, and its pool's size."""
        ...


class Health(Protocol):
    def ready(self) -> tuple[bool, str]:
        """Whether the database answers and is migrated to the head revision, and why not."""
        ...
