"""In-memory stand-ins for the ports of service.application.ports, for handler tests that
need no database.

One :class:`Database` holds the committed rows; each :class:`FakeUnitOfWork` is one
transaction on it, with the semantics of the PostgreSQL adapters
(service/adapters/postgres), which the contract suite (tests/contract) checks on both:

- reads are done at once and see what is committed (READ COMMITTED), never the unit of
  work's own queued writes; a snapshot unit of work sees the database as it was at its
  first read, and may not write (:class:`TransactionError`);
- writes are queued and done together at commit, as PostgreSQL runs the adapters' one
  statement: each write sees the rows as committed before the commit (an update does not
  see a row the same commit adds), keys are checked as rows go in, foreign keys once
  every row is in. A taken ``(game_id, seq)`` or seat raises :class:`AppendConflictError`,
  a taken idempotency key :class:`DuplicateKeyError`, a player's second seat of a game
  :class:`AlreadySeatedError`; the others (a duplicate game, player, endpoint or token, a
  foreign key) raise :class:`IntegrityViolation`. A commit that fails does nothing, and
  its unit of work is over: anything but leaving it raises :class:`TransactionError`;
- a credential the unit of work requires (Credentials.require, Players.require) is
  checked with each later read and at commit, as the adapters send the check with the work;
- claims, expiry and forgetting (``wakeups.claim``, ``webhooks.claim``, ``webhooks.forget``,
  ``idempotency.expire``) are done at once, outside the unit of work's transaction;
- an idempotency key a unit of work locked is held until it ends: another unit of work
  that would wait for it raises :class:`WouldBlockError` (with one thread, waiting would
  never end).

:meth:`Database.interpose` runs a "concurrent writer" just before a unit of work makes
its first append, so a test can make another transaction win the race.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import Enum
from types import TracebackType
from typing import Any, Self, TypeVar
from uuid import UUID, uuid4

from service.application.deps import Deps
from service.application.errors import AlreadySeatedError
from service.application.games.cache import StateCache
from service.application.games.ports import (
    GameSummary,
    Head,
    InboxCursor,
    InboxEntry,
    SeatTurn,
    Snapshot,
)
from service.application.identity.bearer import Identity
from service.application.identity.ports import (
    CredentialGoneError,
    LinkCode,
    PlayerAuditEntry,
    PlayerRecord,
    PlayerSuspendedError,
    PlayerToken,
)
from service.application.integrity.chain import ChainKeys
from service.application.live.hub import LOBBY_KEY, Hub, game_key, player_key, token_key
from service.application.lobby.ports import LobbyEntry, LobbyFilter
from service.application.ports import AppendConflictError, Position, StoredEvent
from service.application.projections import PROJECTIONS
from service.application.ratings.model import DEFAULT as DEFAULT_RATING
from service.application.ratings.model import Rating
from service.application.ratings.ports import Change, FinishedGame, PlayerResult, Ranked, Stats
from service.application.seeks.ports import (
    AlreadySeekingError,
    Pool,
    Seek,
    SeekStatus,
    Waiting,
)
from service.application.webhooks.ports import (
    PER_ENDPOINT,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from service.application.write.ports import DuplicateKeyError, SealedRecord
from service.rules import DealRound, FairShuffle, GameConfig

OPERATOR_TOKEN = "operator-token-for-the-application-tests"
CHAIN_KEYS = ChainKeys(b"application-tests-chain-key-32by")
T = TypeVar("T")


class IntegrityViolation(Exception):
    """A constraint the database enforces that the ports do not translate (a foreign
    key, a duplicate game id or seat token): a 500 in production."""


class WouldBlockError(Exception):
    """The statement would wait for another open transaction; with one thread it would
    wait forever."""


class TransactionError(Exception):
    """A unit of work used outside its transaction, after a failed statement or a
    commit, or written to in a read-only snapshot."""


# --- rows ------------------------------------------------------------------------------


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


def _live_token(t: Tables, token_sha256: str) -> PlayerToken | None:
    return next(
        (
            row.token
            for row in t.player_tokens.values()
            if row.token.token_sha256 == token_sha256 and row.revoked_at is None
        ),
        None,
    )


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


# --- the database ----------------------------------------------------------------------

Writer = Callable[[Sequence[StoredEvent]], None]
"""A concurrent writer: called with the rows a unit of work is about to append."""


class Database:
    """The committed state, the locks of open transactions, and the counters a test
    may assert on (``opened``: units of work entered; ``commits``; ``interposed``)."""

    def __init__(self) -> None:
        self.committed = Tables()
        self.opened = 0
        self.commits = 0
        self.interposed = 0
        self._locks: dict[Hashable, FakeUnitOfWork] = {}
        self._mutex = threading.RLock()  # the webhook recorder commits from its own thread
        self._next_txid = 1
        self._next_position = 1
        self._next_outbox_id = 1
        self._next_attempt_id = 1
        self._writer: Writer | None = None
        self._writer_left = 0
        self._interposing = False
        # Like the notifications of the adapters (and the triggers of migration 0005): a
        # commit announces its games and its players.
        self.hub: Hub | None = None
        # Operator tokens `yokai operator create` kept (digest -> name), as the owner
        # writes them: outside any unit of work.
        self.operators: dict[str, str] = {}
        # How many commits announced new seeks to the workers (the adapter's ``seek``).
        self.seek_notes = 0
        # Players' rating ordinals, for pairing's tests (else the ratings' own).
        self.ordinals: dict[UUID, float] = {}
        # Ratings (FakeRatings): by (player, ladder); histories; rated games' [finished
        # at, order of update or None].
        self.ratings: dict[tuple[UUID, str], Rating] = {}
        self.rating_history: dict[tuple[UUID, str], list[Change]] = {}
        self.rated_games: dict[UUID, list[Any]] = {}
        self.player_results: dict[tuple[UUID, UUID], PlayerResult] = {}

    def unit_of_work(self, *, snapshot: bool = False) -> FakeUnitOfWork:
        """The UnitOfWorkFactory: a write transaction, or a read-only snapshot."""
        return FakeUnitOfWork(self, snapshot=snapshot)

    def interpose(self, writer: Writer, *, times: int = 1) -> None:
        """Run ``writer`` just before each of the next ``times`` units of work makes its
        first append (the writer's own appends do not trigger it)."""
        self._writer = writer
        self._writer_left = times

    def change(self, edit: Callable[[Tables], T]) -> T:
        """Change the committed rows at once, outside any unit of work (as a claim does,
        or the tables' owner): ``edit`` changes a copy, which is then committed. It may
        replace a game's events, never change them in place."""
        with self._mutex:
            tables = self.committed.copy()
            result = edit(tables)
            self.committed = tables
            return result

    def deliver(self, delivery: WebhookDelivery, due: datetime) -> None:
        """A webhook delivery due at ``due``, as a commit would have fanned it out (its
        endpoint, the operators', made if need be)."""

        def edit(t: Tables) -> None:
            if delivery.webhook_id not in t.webhooks:
                endpoint = WebhookEndpoint(
                    delivery.webhook_id, None, delivery.url, ("turn",), delivery.created_at
                )
                t.webhooks[delivery.webhook_id] = WebhookRow(endpoint, delivery.secret)
            t.deliveries[delivery.id] = DeliveryRow(
                delivery.id,
                delivery.webhook_id,
                None,
                delivery.message_id,
                delivery.payload,
                delivery.created_at,
                due,
                delivery.attempts,
            )

        self.change(edit)
        self._next_outbox_id = max(self._next_outbox_id, delivery.id + 1)

    # -- reading the committed state, for assertions --

    def stream(self, game_id: UUID) -> list[StoredEvent]:
        """A game's committed events in ``seq`` order."""
        rows = self.committed.events.get(game_id, {})
        return [rows[seq].event for seq in sorted(rows)]

    @property
    def recorded(self) -> list[Recorded]:
        """The webhook attempts committed, in order."""
        return self.committed.recorded

    def key_held(self, scope: str, key_sha256: str) -> bool:
        """Whether a unit of work holds this idempotency key."""
        return ("advisory", scope, key_sha256) in self._locks

    def held(self, key: Hashable) -> bool:
        """Whether a unit of work holds this lock (a seek's: ``("seek", id)``, a pool's:
        ``("seek-pool", key)``)."""
        return key in self._locks

    # -- for the units of work --

    def _before_first_append(self, rows: Sequence[StoredEvent]) -> None:
        if self._writer is None or self._writer_left <= 0 or self._interposing:
            return
        self._writer_left -= 1
        self.interposed += 1
        self._interposing = True
        try:
            self._writer(rows)
        finally:
            self._interposing = False

    def _lock(self, key: Hashable, uow: FakeUnitOfWork) -> None:
        holder = self._locks.get(key)
        if holder is not None and holder is not uow:
            raise WouldBlockError(f"{key!r} is held by another open transaction")
        self._locks[key] = uow

    def _held_by_other(self, key: Hashable, uow: FakeUnitOfWork) -> bool:
        holder = self._locks.get(key)
        return holder is not None and holder is not uow

    def _commit(self, writes: Sequence[Write]) -> Commit:
        """Do ``writes`` together on a copy of the committed rows, then commit it: all or
        nothing (an error leaves the committed rows as they were)."""
        with self._mutex:
            done = Commit(self, self.committed, self.committed.copy(), self._next_txid)
            for write in writes:
                write(done)
            for present, what in done.references:
                if not present(done.after):
                    raise IntegrityViolation(f"{what} (foreign key)")
            self._next_txid += 1
            self.committed = done.after
            self.commits += 1
            return done

    def _position(self) -> int:
        position = self._next_position
        self._next_position += 1
        return position

    def _outbox_id(self) -> int:
        ident = self._next_outbox_id
        self._next_outbox_id += 1
        return ident

    def _attempt_id(self) -> int:
        ident = self._next_attempt_id
        self._next_attempt_id += 1
        return ident

    def _end(self, uow: FakeUnitOfWork) -> None:
        for key in [k for k, holder in self._locks.items() if holder is uow]:
            del self._locks[key]


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


# --- a unit of work --------------------------------------------------------------------


class _Phase(Enum):
    NEW = "new"
    OPEN = "open"
    FAILED = "failed"
    ENDED = "ended"


class FakeUnitOfWork:
    """One transaction on a :class:`Database` (see the module's docstring)."""

    def __init__(self, db: Database, *, snapshot: bool) -> None:
        self.db = db
        self.snapshot = snapshot
        self._phase = _Phase.NEW
        self._snap: Tables | None = None
        self._writes: list[Write] = []
        self._required: list[Callable[[Tables], bool]] = []
        self._appended = False
        self.events = FakeEventStore(self)
        self.games = FakeGameIndex(self)
        self.credentials = FakeCredentials(self)
        self.idempotency = FakeIdempotencyStore(self)
        self.snapshots = FakeSnapshotStore(self)
        self.players = FakePlayers(self)
        self.player_tokens = FakePlayerTokens(self)
        self.identities = FakeIdentities(self)
        self.link_codes = FakeLinkCodes(self)
        self.player_audit = FakePlayerAudit(self)
        self.lobby = FakeLobby(self)
        self.inbox = FakeInbox(self)
        self.seeks = FakeSeeks(self)
        self.ratings = FakeRatings(self)
        self.wakeups = FakeWakeups(self)
        self.webhooks = FakeWebhooks(self)
        self.erasures = FakeErasures()
        self.operators = FakeOperators(self)

    def __enter__(self) -> Self:
        if self._phase is not _Phase.NEW:
            raise TransactionError("a unit of work is entered once")
        self._phase = _Phase.OPEN
        self.db.opened += 1
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._phase is not _Phase.ENDED:  # not committed: roll back
            self._end()

    def commit(self) -> None:
        self.read()  # what it requires holds at commit too
        if self._writes:
            try:
                done = self.db._commit(self._writes)
            except Exception as error:
                raise self.fail(error) from None
            self._announce(done)
        self._end()

    # -- for the stores --

    def read(self) -> Tables:
        """What a read sees: the committed rows now, or for a snapshot, as they were at
        its first read; once what the unit of work requires is checked."""
        self._check_open()
        if not self.snapshot:
            tables = self.db.committed
        else:
            if self._snap is None:
                self._snap = self.db.committed
            tables = self._snap
        for holds in self._required:
            try:
                if not holds(tables):
                    raise CredentialGoneError()
            except (CredentialGoneError, PlayerSuspendedError) as refused:
                raise self.fail(refused) from None
        return tables

    def queue(self, write: Write) -> None:
        """Queue a write, done at commit."""
        self.check_writable()
        self._writes.append(write)

    def at_once(self, edit: Callable[[Tables], T]) -> T:
        """A write done at once, outside the transaction (a claim, a deletion)."""
        self.read()
        self.check_writable()
        return self.db.change(edit)

    def require(self, holds: Callable[[Tables], bool]) -> None:
        """From now on, reads and the commit fail with CredentialGoneError unless
        ``holds`` (checked with them, not now), or with the PlayerSuspendedError it
        raises."""
        self._check_open()
        self._required.append(holds)

    def check_writable(self) -> None:
        self._check_open()
        if self.snapshot:
            raise TransactionError("cannot write in a read-only snapshot")

    def lock(self, key: Hashable) -> None:
        self._check_open()
        self.db._lock(key, self)

    def waits_for(self, key: Hashable) -> None:
        """Raise :class:`WouldBlockError` if another open transaction holds ``key``."""
        if self.db._held_by_other(key, self):
            raise WouldBlockError(f"{key!r} is held by another open transaction")

    def fail(self, error: Exception) -> Exception:
        """A statement failed: the transaction is aborted (PostgreSQL semantics)."""
        self._phase = _Phase.FAILED
        return error

    def before_append(self, rows: Sequence[StoredEvent]) -> None:
        if not self._appended:
            self._appended = True
            self.db._before_first_append(rows)

    # -- internals --

    def _announce(self, done: Commit) -> None:
        self.db.seek_notes += int(done.seeks)
        hub = self.db.hub
        if hub is None:
            return
        for game_id, version in done.games.items():
            hub.publish(game_key(game_id), version)
        for player_id in done.players:
            hub.publish(player_key(player_id))
        for digest in done.revoked:
            hub.publish(token_key(digest))
        if done.lobby:
            hub.publish(LOBBY_KEY)

    def _check_open(self) -> None:
        if self._phase is _Phase.FAILED:
            raise TransactionError("current transaction is aborted (a statement failed)")
        if self._phase is not _Phase.OPEN:
            raise TransactionError(f"unit of work is {self._phase.value}, not open")

    def _end(self) -> None:
        self._phase = _Phase.ENDED
        self._writes = []
        self.db._end(self)


# --- the stores ------------------------------------------------------------------------


class FakeErasures:
    """Erasure is tested against PostgreSQL only (tests/e2e/test_privacy.py): nothing
    here erases, and a test that tries says so."""

    def erase(self, player_id: UUID, at: datetime) -> None:
        raise NotImplementedError("erasure runs on PostgreSQL: tests/e2e/test_privacy.py")

    def games_of(self, player_id: UUID) -> list[tuple[UUID, int]]:
        raise NotImplementedError("erasure runs on PostgreSQL: tests/e2e/test_privacy.py")

    def close_seat(self, game_id: UUID, seat: int, *, free: bool) -> None:
        raise NotImplementedError("erasure runs on PostgreSQL: tests/e2e/test_privacy.py")


class FakeOperators:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def find(self, token_sha256: str) -> str | None:
        self._uow.read()
        return self._uow.db.operators.get(token_sha256)


class FakeEventStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        return _load(self._uow.read(), game_id, after, upto, limit)

    def page(self, game_id: UUID, after: int, limit: int) -> tuple[int, list[StoredEvent]] | None:
        tables = self._uow.read()  # the version and the events read together
        summary = tables.games.get(game_id)
        if summary is None:
            return None
        return summary.version, _load(tables, game_id, after, summary.version, limit)

    def append(self, events: Sequence[StoredEvent]) -> None:
        uow = self._uow
        uow.check_writable()
        if not events:
            return
        uow.before_append(events)
        rows = list(events)

        def write(c: Commit) -> None:
            for e in rows:  # the key is checked as each row goes in
                stream = c.after.events.get(e.game_id, {})
                if e.seq in stream:
                    raise AppendConflictError(e.game_id)
                position = Position(c.txid, c.db._position())
                c.after.events[e.game_id] = {**stream, e.seq: EventRow(e, position)}
                c.games[e.game_id] = max(e.seq, c.games.get(e.game_id, 0))
            for game_id in {e.game_id for e in rows}:
                c.game(game_id, "events")

        uow.queue(write)

    def commits(self, game_id: UUID, after: int) -> list[list[StoredEvent]]:
        stream = self._uow.read().events.get(game_id, {})
        groups: list[list[StoredEvent]] = []
        last = None
        for seq in sorted(s for s in stream if s > after):
            row = stream[seq]
            if row.position.transaction != last or not groups:
                groups.append([])
                last = row.position.transaction
            groups[-1].append(row.event)
        return groups

    def read_all(self, after: Position | None, limit: int) -> list[tuple[Position, StoredEvent]]:
        """Every commit is done at once: none is ever running, so none is waited for."""
        rows = [
            row
            for stream in self._uow.read().events.values()
            for row in stream.values()
            if after is None or row.position > after
        ]
        rows.sort(key=lambda row: row.position)
        return [(row.position, row.event) for row in rows[:limit]]


def _load(
    tables: Tables, game_id: UUID, after: int, upto: int | None, limit: int | None
) -> list[StoredEvent]:
    stream = tables.events.get(game_id, {})
    seqs = [s for s in sorted(stream) if s > after and (upto is None or s <= upto)]
    if limit is not None:
        seqs = seqs[:limit]
    return [stream[s].event for s in seqs]


class FakeGameIndex:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, summary: GameSummary) -> None:
        def write(c: Commit) -> None:
            if summary.id in c.after.games:
                raise IntegrityViolation(f"games: duplicate id {summary.id}")
            c.after.games[summary.id] = summary

        self._uow.queue(write)

    def update(self, game_id: UUID, *, status: str, version: int, updated_at: datetime) -> None:
        def write(c: Commit) -> None:
            current = c.before.games.get(game_id)
            if current is None:
                return  # UPDATE ... WHERE id = ... matched no row
            c.after.games[game_id] = replace(
                current, status=status, version=version, updated_at=updated_at
            )

        self._uow.queue(write)

    def get(self, game_id: UUID) -> GameSummary | None:
        return self._uow.read().games.get(game_id)

    def ids(self) -> list[UUID]:
        games = sorted(self._uow.read().games.values(), key=lambda g: (g.created_at, g.id))
        return [g.id for g in games]

    def page(
        self, *, status: str | None, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[GameSummary]:
        games = [
            g
            for g in self._uow.read().games.values()
            if (status is None or g.status == status)
            and (before is None or (g.created_at, g.id) < before)
        ]
        games.sort(key=lambda g: (g.created_at, g.id), reverse=True)
        return games[:limit]

    def idle(self, *, status: str, before: datetime, limit: int) -> list[UUID]:
        games = [
            g
            for g in self._uow.read().games.values()
            if g.status == status and g.updated_at < before
        ]
        games.sort(key=lambda g: (g.updated_at, g.id))
        return [g.id for g in games[:limit]]

    def changed(
        self,
        *,
        status: str | None,
        since: datetime | None,
        after: tuple[datetime, UUID] | None,
        limit: int,
    ) -> list[GameSummary]:
        return self._changed(self._uow.read(), status, since, after)[:limit]

    def heads(
        self, *, since: datetime | None, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Head]:
        tables = self._uow.read()
        out: list[Head] = []
        for g in self._changed(tables, None, since, after):
            head = tables.events.get(g.id, {}).get(g.version)
            if head is not None:  # a join: a game without its event at its version has none
                out.append(Head(g.id, g.version, head.event.hash, g.updated_at))
        return out[:limit]

    @staticmethod
    def _changed(
        tables: Tables,
        status: str | None,
        since: datetime | None,
        after: tuple[datetime, UUID] | None,
    ) -> list[GameSummary]:
        games = [
            g
            for g in tables.games.values()
            if (status is None or g.status == status)
            and (since is None or g.updated_at >= since)
            and (after is None or (g.updated_at, g.id) > after)
        ]
        games.sort(key=lambda g: (g.updated_at, g.id))
        return games


class FakeCredentials:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        def write(c: Commit) -> None:
            if (game_id, seat) in c.after.credentials:  # a racing join took the seat first
                raise AppendConflictError(game_id)
            if any(row.token_sha256 == token_sha256 for row in c.after.credentials.values()):
                raise IntegrityViolation("seat_credentials: duplicate token_sha256")
            c.after.credentials[(game_id, seat)] = CredentialRow(token_sha256, created_at)
            c.game(game_id, "seat_credentials")

        self._uow.queue(write)

    def find(self, token_sha256: str) -> tuple[UUID, int] | None:
        for key, row in self._uow.read().credentials.items():
            if row.token_sha256 == token_sha256:
                return key
        return None

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        def holds(t: Tables) -> bool:
            row = t.credentials.get((game_id, seat))
            return row is not None and row.token_sha256 == token_sha256

        self._uow.require(holds)


class FakePlayers:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, player: PlayerRecord, token: PlayerToken) -> None:
        def write(c: Commit) -> None:
            if player.id in c.after.players:
                raise IntegrityViolation(f"players: duplicate id {player.id}")
            c.after.players[player.id] = player
            _add_token(c, token)

        self._uow.queue(write)

    def get(self, player_id: UUID) -> PlayerRecord | None:
        return self._uow.read().players.get(player_id)

    def find(self, token_sha256: str) -> PlayerRecord | None:
        t = self._uow.read()
        token = _live_token(t, token_sha256)
        return t.players.get(token.player_id) if token else None

    def suspend(self, player_id: UUID, at: datetime | None, reason: str | None) -> None:
        def write(c: Commit) -> None:
            found = c.before.players.get(player_id)
            if found is not None:
                c.after.players[player_id] = replace(
                    found, suspended_at=at, suspended_reason=reason
                )
            if at is not None:
                c.revoked.update(
                    r.token.token_sha256
                    for r in c.before.player_tokens.values()
                    if r.token.player_id == player_id and r.revoked_at is None
                )

        self._uow.queue(write)

    def rename(self, player_id: UUID, name: str) -> None:
        def write(c: Commit) -> None:
            found = c.before.players.get(player_id)
            if found is not None:
                c.after.players[player_id] = replace(found, name=name)

        self._uow.queue(write)

    def seat_in(self, game_id: UUID, player_id: UUID) -> int | None:
        return _seat_of(self._uow.read(), game_id, player_id)

    def of_game(self, game_id: UUID) -> dict[int, UUID]:
        held = self._uow.read().seat_players
        return {seat: player for (game, seat), player in held.items() if game == game_id}

    def bind(self, game_id: UUID, seat: int, player_id: UUID) -> None:
        def write(c: Commit) -> None:
            if (game_id, seat) in c.after.seat_players:
                raise AppendConflictError(game_id)
            if _seat_of(c.after, game_id, player_id) is not None:
                raise AlreadySeatedError("this player holds a seat of this game")
            c.after.seat_players[(game_id, seat)] = player_id
            c.game(game_id, "seat_players")
            c.player(player_id, "seat_players")

        self._uow.queue(write)

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        def holds(t: Tables) -> bool:
            player_id = t.seat_players.get((game_id, seat))
            token = _live_token(t, token_sha256)
            _not_suspended(t, token)
            return token is not None and token.player_id == player_id

        self._uow.require(holds)


def _add_token(c: Commit, token: PlayerToken) -> None:
    if token.id in c.after.player_tokens:
        raise IntegrityViolation(f"player_tokens: duplicate id {token.id}")
    if any(r.token.token_sha256 == token.token_sha256 for r in c.after.player_tokens.values()):
        raise IntegrityViolation("player_tokens: duplicate token_sha256")
    c.after.player_tokens[token.id] = TokenRow(token)
    c.player(token.player_id, "player_tokens")


class FakePlayerTokens:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, token: PlayerToken) -> None:
        self._uow.queue(lambda c: _add_token(c, token))

    def get(self, token_id: UUID) -> PlayerToken | None:
        row = self._uow.read().player_tokens.get(token_id)
        return row.token if row is not None and row.revoked_at is None else None

    def of(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[PlayerToken]:
        rows = [
            r.token
            for r in self._uow.read().player_tokens.values()
            if r.token.player_id == player_id
            and r.revoked_at is None
            and (after is None or (r.token.created_at, r.token.id) < after)
        ]
        rows.sort(key=lambda t: (t.created_at, t.id), reverse=True)
        return rows[:limit]

    def revoke(self, token: PlayerToken, at: datetime) -> None:
        def write(c: Commit) -> None:
            row = c.before.player_tokens.get(token.id)
            if row is not None and row.revoked_at is None:
                c.after.player_tokens[token.id] = replace(row, revoked_at=at)
            c.revoked.add(token.token_sha256)

        self._uow.queue(write)

    def touch(self, token_sha256: str, at: datetime) -> None:
        def edit(t: Tables) -> None:
            for key, row in t.player_tokens.items():
                token = row.token
                mine = token.token_sha256 == token_sha256 and row.revoked_at is None
                if mine and (token.last_used_at is None or token.last_used_at < at):
                    t.player_tokens[key] = replace(row, token=replace(token, last_used_at=at))

        self._uow.at_once(edit)

    def require(self, token_sha256: str) -> None:
        def holds(t: Tables) -> bool:
            token = _live_token(t, token_sha256)
            _not_suspended(t, token)
            return token is not None

        self._uow.require(holds)


def _not_suspended(t: Tables, token: PlayerToken | None) -> None:
    player = t.players.get(token.player_id) if token else None
    if player is not None and player.suspended_at is not None:
        raise PlayerSuspendedError()


class FakePlayerAudit:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, entry: PlayerAuditEntry) -> None:
        def write(c: Commit) -> None:
            ident = len(c.after.player_audit) + 1
            c.after.player_audit.append(replace(entry, id=ident))
            c.player(entry.player_id, "player_audit")

        self._uow.queue(write)

    def page(self, player_id: UUID, after: int, limit: int) -> list[PlayerAuditEntry]:
        entries = [
            e for e in self._uow.read().player_audit if e.player_id == player_id and e.id > after
        ]
        return entries[:limit]


class FakeIdentities:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def find(self, issuer: str, subject: str) -> UUID | None:
        return self._uow.read().identities.get((issuer, subject))

    def add(self, issuer: str, subject: str, player_id: UUID, at: datetime) -> None:
        def write(c: Commit) -> None:
            if (issuer, subject) in c.after.identities:
                raise DuplicateKeyError("identities_pkey")
            c.after.identities[(issuer, subject)] = player_id
            c.player(player_id, "identities")

        self._uow.queue(write)


class FakeLinkCodes:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, code: LinkCode) -> None:
        def write(c: Commit) -> None:
            if code.code_sha256 in c.after.link_codes:
                raise IntegrityViolation("link_codes: duplicate code")
            c.after.link_codes[code.code_sha256] = (code, None)
            c.player(code.player_id, "link_codes")

        self._uow.queue(write)

    def take(self, code_sha256: str, now: datetime) -> UUID | None:
        uow = self._uow
        uow.check_writable()
        uow.lock(("link_code", code_sha256))  # FOR UPDATE: held until the unit of work ends
        found = uow.read().link_codes.get(code_sha256)
        if found is None or found[1] is not None or found[0].expires_at <= now:
            return None

        def write(c: Commit) -> None:
            row = c.before.link_codes.get(code_sha256)
            if row is not None:
                c.after.link_codes[code_sha256] = (row[0], now)

        uow.queue(write)
        return found[0].player_id


class FakeLobby:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def put(self, entry: LobbyEntry) -> None:
        def write(c: Commit) -> None:
            found = c.before.lobby.get(entry.game_id)
            created = found.created_at if found is not None else entry.created_at
            c.after.lobby[entry.game_id] = replace(entry, created_at=created)
            c.game(entry.game_id, "lobby")
            c.lobby = True

        self._uow.queue(write)

    def page(
        self, where: LobbyFilter, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[LobbyEntry]:
        t = self._uow.read()
        rows = [
            e
            for e in t.lobby.values()
            if e.open_seats > 0
            and _matches(e, where)
            and (after is None or (e.created_at, e.game_id) > after)
        ]
        rows.sort(key=lambda e: (e.created_at, e.game_id))
        return [_with_holders(t, e) for e in rows[:limit]]

    def stamp(self, where: LobbyFilter) -> tuple[int, datetime | None]:
        rows = [e for e in self._uow.read().lobby.values() if _matches(e, where)]
        latest = max((e.updated_at for e in rows), default=None)
        return sum(e.open_seats > 0 for e in rows), latest

    def changed(self, where: LobbyFilter, since: datetime) -> list[LobbyEntry]:
        t = self._uow.read()
        rows = [e for e in t.lobby.values() if e.updated_at >= since and _matches(e, where)]
        rows.sort(key=lambda e: (e.updated_at, e.game_id))
        return [_with_holders(t, e) for e in rows]

    def forget(self, before: datetime, limit: int) -> int:
        def edit(t: Tables) -> int:
            old = sorted(
                (e for e in t.lobby.values() if e.open_seats == 0 and e.updated_at < before),
                key=lambda e: e.updated_at,
            )[:limit]
            for e in old:
                del t.lobby[e.game_id]
            return len(old)

        return self._uow.at_once(edit)


def _matches(entry: LobbyEntry, where: LobbyFilter) -> bool:
    return all(
        wanted is None or got == wanted
        for wanted, got in (
            (where.players, entry.players),
            (where.variant, entry.variant),
            (where.scoring, entry.scoring),
            (where.rated, entry.rated),
        )
    )


def _with_holders(t: Tables, entry: LobbyEntry) -> LobbyEntry:
    seats = tuple(
        replace(s, player_id=t.seat_players.get((entry.game_id, s.seat))) for s in entry.seats
    )
    return replace(entry, seats=seats)


def _seat_of(tables: Tables, game_id: UUID, player_id: UUID) -> int | None:
    return next(
        (seat for (g, seat), p in tables.seat_players.items() if g == game_id and p == player_id),
        None,
    )


class FakeInbox:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, entry: InboxEntry) -> None:
        def write(c: Commit) -> None:
            key = (entry.player_id, entry.game_id)
            if key in c.after.inbox:
                raise IntegrityViolation(f"inbox: duplicate entry {key}")
            c.after.inbox[key] = entry
            c.players.add(entry.player_id)
            c.player(entry.player_id, "inbox")
            c.game(entry.game_id, "inbox")

        self._uow.queue(write)

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
        gone: Sequence[UUID] = (),
    ) -> None:
        actions = {t.seat: t.action for t in turns}
        deadlines = {t.seat: t.deadline for t in turns}

        def write(c: Commit) -> None:
            for key, e in c.before.inbox.items():
                if e.game_id != game_id or e.seat not in actions:
                    continue
                if e.player_id in gone:
                    del c.after.inbox[key]
                    continue
                action = actions[e.seat]
                due = None if action is None else e.due_since if e.action == action else updated_at
                c.after.inbox[key] = replace(
                    e,
                    status=status,
                    version=version,
                    scores=scores,
                    winner=winner,
                    my_turn=action is not None,
                    action=action,
                    due_since=due,
                    deadline=deadlines[e.seat],
                    updated_at=updated_at,
                )
                c.players.add(e.player_id)

        self._uow.queue(write)

    def page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> list[InboxEntry]:
        def key(my_turn: bool, deadline: datetime | None, due: datetime | None,
                updated: datetime, game: UUID) -> tuple[object, ...]:  # fmt: skip
            far = datetime.max.replace(tzinfo=UTC)
            return (not my_turn, deadline or far, due or far, -updated.timestamp(), str(game))

        rows = [e for e in self._uow.read().inbox.values() if e.player_id == player_id]
        rows = [e for e in rows if e.status in statuses]
        rows.sort(key=lambda e: key(e.my_turn, e.deadline, e.due_since, e.updated_at, e.game_id))
        if after is not None:
            start = key(after.my_turn, after.deadline, after.due_since, after.updated_at,
                        after.game_id)  # fmt: skip
            rows = [
                e
                for e in rows
                if key(e.my_turn, e.deadline, e.due_since, e.updated_at, e.game_id) > start
            ]
        return rows[:limit]

    def stamp(self, player_id: UUID, statuses: Sequence[str]) -> tuple[int, datetime | None, int]:
        rows = [e for e in self._uow.read().inbox.values() if e.player_id == player_id]
        rows = [e for e in rows if e.status in statuses]
        latest = max((e.updated_at for e in rows), default=None)
        return len(rows), latest, sum(e.version for e in rows)

    def watched(self, player_id: UUID, since: datetime) -> list[InboxEntry]:
        rows = [e for e in self._uow.read().inbox.values() if e.player_id == player_id]
        rows = [e for e in rows if e.status != "finished" or e.updated_at >= since]
        return sorted(rows, key=lambda e: (e.updated_at, e.game_id))


class FakeSeeks:
    """Rows of the seeks table. A pool held, and the seek rows held (``hold``,
    ``waiting``), are locks of the unit of work until it ends (another that would wait
    raises WouldBlockError); expiry is done at once and skips held seeks."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, seek: Seek) -> None:
        def write(c: Commit) -> None:
            if seek.id in c.after.seeks:
                raise IntegrityViolation(f"seeks: duplicate id {seek.id}")
            if any(
                s.player_id == seek.player_id and s.status is SeekStatus.OPEN
                for s in c.after.seeks.values()
            ):
                raise AlreadySeekingError("this player has an open seek")
            c.after.seeks[seek.id] = seek
            c.player(seek.player_id, "seeks")
            c.seeks = True

        self._uow.queue(write)

    def get(self, seek_id: UUID) -> Seek | None:
        return self._uow.read().seeks.get(seek_id)

    def open_of(self, player_id: UUID) -> Seek | None:
        found = self._uow.read().seeks.values()
        return next(
            (s for s in found if s.player_id == player_id and s.status is SeekStatus.OPEN), None
        )

    def hold(self, seek_id: UUID) -> Seek | None:
        self._uow.check_writable()
        self._uow.lock(("seek", seek_id))
        return self._uow.read().seeks.get(seek_id)

    def cancel(self, seek_id: UUID, at: datetime) -> None:
        self._end(seek_id, SeekStatus.CANCELLED, at)

    def lock_pool(self, pool: Pool) -> None:
        self._uow.check_writable()
        self._uow.lock(("seek-pool", pool.key))

    def waiting(self, pool: Pool, now: datetime, limit: int) -> list[Waiting]:
        self._uow.check_writable()
        t = self._uow.read()
        found = sorted(
            (s for s in t.seeks.values() if s.pool.key == pool.key and _takes(t, s, now)),
            key=lambda s: (s.created_at, s.id),
        )[:limit]
        for s in found:
            self._uow.lock(("seek", s.id))
        return [Waiting(s, t.players[s.player_id].name) for s in found]

    def match(self, seek_id: UUID, game_id: UUID, seat: int, at: datetime) -> None:
        self._end(seek_id, SeekStatus.MATCHED, at, game_id, seat)

    def _end(
        self,
        seek_id: UUID,
        status: SeekStatus,
        at: datetime,
        game_id: UUID | None = None,
        seat: int | None = None,
    ) -> None:
        def write(c: Commit) -> None:  # UPDATE ... WHERE id = ... AND status = 'open'
            found = c.before.seeks.get(seek_id)
            if found is not None and found.status is SeekStatus.OPEN:
                c.after.seeks[seek_id] = replace(
                    found, status=status, ended_at=at, game_id=game_id, seat=seat
                )
            if game_id is not None:
                c.game(game_id, "seeks")

        self._uow.queue(write)

    def pools(self, now: datetime, limit: int) -> list[Pool]:
        t = self._uow.read()
        by_pool: dict[str, list[Seek]] = {}
        for s in sorted(t.seeks.values(), key=lambda s: (s.created_at, s.id)):
            if _takes(t, s, now):
                by_pool.setdefault(s.pool.key, []).append(s)
        ready = [
            found
            for found in by_pool.values()
            if len(found) >= found[0].pool.players
            or any(s.bots_after is not None and _bots_at(s) <= now for s in found)
        ]
        return [found[0].pool for found in ready[:limit]]

    def expire(self, now: datetime, limit: int, player_id: UUID | None = None) -> int:
        uow = self._uow

        def edit(t: Tables) -> int:
            due = sorted(
                (
                    s
                    for s in t.seeks.values()
                    if s.status is SeekStatus.OPEN
                    and s.expires_at <= now
                    and (player_id is None or s.player_id == player_id)
                    and not uow.db._held_by_other(("seek", s.id), uow)  # SKIP LOCKED
                ),
                key=lambda s: s.expires_at,
            )[:limit]
            for s in due:
                t.seeks[s.id] = replace(s, status=SeekStatus.EXPIRED, ended_at=s.expires_at)
            return len(due)

        return uow.at_once(edit)

    def next_due(self, now: datetime) -> datetime | None:
        found = [s for s in self._uow.read().seeks.values() if s.status is SeekStatus.OPEN]
        times = [s.expires_at for s in found]
        times += [_bots_at(s) for s in found if s.bots_after is not None and _bots_at(s) > now]
        return min(times, default=None)

    def matched(self, player_id: UUID, since: datetime) -> list[Seek]:
        found = [
            s
            for s in self._uow.read().seeks.values()
            if s.player_id == player_id
            and s.status is SeekStatus.MATCHED
            and s.ended_at is not None
            and s.ended_at >= since
        ]
        return sorted(found, key=lambda s: (s.ended_at or since, s.id))


def _takes(t: Tables, seek: Seek, now: datetime) -> bool:
    """An open seek a pairing may take: not past its time, of a player not suspended."""
    player = t.players.get(seek.player_id)
    suspended = player is not None and player.suspended_at is not None
    return seek.status is SeekStatus.OPEN and seek.expires_at > now and not suspended


def _bots_at(seek: Seek) -> datetime:
    assert seek.bots_after is not None
    return seek.created_at + timedelta(seconds=seek.bots_after)


class FakeRatings:
    """Ratings kept beside the tables (not copied per commit: no test reads them from a
    snapshot); writes are queued, so they happen only when the unit of work commits.
    ``Database.ordinals`` gives players ordinals directly, for pairing's tests. The
    store's locks (one update at a time) are PostgreSQL's: tests/integration covers them."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow
        self._db = uow.db

    def ordinals(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, float]:
        kept = self._db.ratings
        return {
            p: self._db.ordinals.get(p, kept.get((p, ladder), DEFAULT_RATING).ordinal)
            for p in player_ids
        }

    def finished(self, game_id: UUID, at: datetime) -> None:
        def write(c: Commit) -> None:
            c.db.rated_games.setdefault(game_id, [at, None])

        self._uow.queue(write)

    def results(self, rows: Sequence[PlayerResult]) -> None:
        def write(c: Commit) -> None:
            for r in rows:
                c.db.player_results[(r.player_id, r.game_id)] = r

        self._uow.queue(write)

    def stats(self, player_id: UUID) -> Stats:
        mine = [r for (p, _), r in self._db.player_results.items() if p == player_id]
        return Stats(
            len(mine),
            sum(r.won for r in mine),
            sum(r.rated for r in mine),
            sum(r.abandoned for r in mine),
        )

    def finished_games(
        self, player_id: UUID, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[FinishedGame]:
        mine = sorted(
            (r for (p, _), r in self._db.player_results.items() if p == player_id),
            key=lambda r: (r.finished_at, r.game_id),
            reverse=True,
        )
        if before is not None:
            mine = [r for r in mine if (r.finished_at, r.game_id) < before]
        games = self._uow.read().games
        return [
            FinishedGame(
                r, games[r.game_id].players, games[r.game_id].scoring, games[r.game_id].variant
            )
            for r in mine[:limit]
        ]

    def due_at(self) -> datetime | None:
        return min((f for f, seq in self._db.rated_games.values() if seq is None), default=None)

    def next_due(self) -> UUID | None:
        due = [(f, g) for g, (f, seq) in self._db.rated_games.items() if seq is None]
        return min(due)[1] if due else None

    def hold(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, Rating]:
        return {p: self._db.ratings.get((p, ladder), DEFAULT_RATING) for p in player_ids}

    def apply(
        self,
        game_id: UUID,
        ladder: str,
        before: Mapping[UUID, Rating],
        after: Mapping[UUID, Rating],
        at: datetime,
    ) -> None:
        def write(c: Commit) -> None:
            db = c.db
            for player_id, new in after.items():
                db.ratings[(player_id, ladder)] = new
                change = Change(game_id, at, before[player_id], new)
                db.rating_history.setdefault((player_id, ladder), []).append(change)
            seq = 1 + max((s for _, s in db.rated_games.values() if s is not None), default=0)
            db.rated_games[game_id] = [db.rated_games[game_id][0], seq]

        self._uow.queue(write)

    def of(self, player_id: UUID) -> dict[str, Rating]:
        return {lad: r for (p, lad), r in sorted(self._db.ratings.items()) if p == player_id}

    def history(self, player_id: UUID, ladder: str) -> list[Change]:
        return list(self._db.rating_history.get((player_id, ladder), []))

    def leaderboard(
        self, ladder: str, after: tuple[float, int, UUID] | None, limit: int
    ) -> list[Ranked]:
        rows = sorted(
            ((-r.ordinal, -r.games, p), p, r)
            for (p, lad), r in self._db.ratings.items()
            if lad == ladder and not r.provisional
        )
        if after is not None:
            rows = [row for row in rows if row[0] > (-after[0], -after[1], after[2])]
        names = self._uow.read().players
        return [Ranked(p, names[p].name if p in names else "?", r) for _, p, r in rows[:limit]]

    def rated_games(self) -> list[UUID]:
        done = [(seq, g) for g, (_, seq) in self._db.rated_games.items() if seq is not None]
        return [g for _, g in sorted(done)]

    def rewrite(
        self,
        ratings: Mapping[tuple[UUID, str], Rating],
        changes: Sequence[tuple[UUID, UUID, Rating, Rating]],
    ) -> None:
        def write(c: Commit) -> None:
            c.db.ratings.update(ratings)
            new = {(g, p): (b, a) for g, p, b, a in changes}
            for key, kept in c.db.rating_history.items():
                c.db.rating_history[key] = [
                    replace(h, before=new[h.game_id, key[0]][0], after=new[h.game_id, key[0]][1])
                    for h in kept
                ]

        self._uow.queue(write)


class FakeSnapshotStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def get(self, game_id: UUID, schema_version: int) -> Snapshot | None:
        found = self._uow.read().snapshots.get(game_id)
        return found if found is not None and found.schema_version == schema_version else None

    def put(self, snapshot: Snapshot) -> None:
        def write(c: Commit) -> None:
            current = c.after.snapshots.get(snapshot.game_id)
            if (
                current is None
                or current.version < snapshot.version
                or current.schema_version != snapshot.schema_version
            ):
                c.after.snapshots[snapshot.game_id] = snapshot
            c.game(snapshot.game_id, "snapshots")

        self._uow.queue(write)


class FakeIdempotencyStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def lock(self, scope: str, key_sha256: str) -> None:
        self._uow.lock(("advisory", scope, key_sha256))

    def get(self, scope: str, key_sha256: str) -> SealedRecord | None:
        row = self._uow.read().idempotency.get((scope, key_sha256))
        return None if row is None else row.record

    def add(self, scope: str, key_sha256: str, record: SealedRecord, created_at: datetime) -> None:
        def write(c: Commit) -> None:
            if (scope, key_sha256) in c.after.idempotency:
                raise DuplicateKeyError(key_sha256)
            c.after.idempotency[(scope, key_sha256)] = IdempotencyRow(record, created_at)

        self._uow.queue(write)

    def expire(self, before: datetime, limit: int) -> int:
        def edit(t: Tables) -> int:
            old = [k for k, row in t.idempotency.items() if row.created_at < before][:limit]
            for key in old:
                del t.idempotency[key]
            return len(old)

        return self._uow.at_once(edit)


class FakeWakeups:
    """Rows of the wakeups table; a claim is done at once (as the real one is)."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def set(self, game_id: UUID, due_at: datetime | None, version: int) -> None:
        def write(c: Commit) -> None:
            if due_at is None:  # DELETE ... WHERE version <= version
                row = c.before.wakeups.get(game_id)
                if row is not None and row[1] <= version:
                    c.after.wakeups.pop(game_id, None)
                return
            row = c.after.wakeups.get(game_id)  # INSERT ... ON CONFLICT DO UPDATE WHERE
            if row is None or row[1] <= version:
                c.after.wakeups[game_id] = (due_at, version)
            c.game(game_id, "wakeups")

        self._uow.queue(write)

    def claim(self, now: datetime, lease_until: datetime, limit: int) -> list[UUID]:
        def edit(t: Tables) -> list[UUID]:
            due = sorted((d, g) for g, (d, _) in t.wakeups.items() if d <= now)
            claimed = [g for _, g in due[:limit]]
            for g in claimed:
                t.wakeups[g] = (lease_until, t.wakeups[g][1])
            return claimed

        return self._uow.at_once(edit)

    def next_due(self) -> datetime | None:
        return min((d for d, _ in self._uow.read().wakeups.values()), default=None)


class FakeWebhooks:
    """Endpoints, their deliveries (the outbox's ``webhook`` rows) and the log of their
    attempts, as service/adapters/postgres/webhooks.py keeps them. What commits told
    webhooks and the attempts they recorded are also listed (``Tables.told``,
    ``Tables.recorded``), for the tests' assertions."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, endpoint: WebhookEndpoint, secret: str) -> None:
        row = WebhookRow(
            replace(endpoint, failing_since=None, disabled_at=None, disabled_reason=None), secret
        )

        def write(c: Commit) -> None:
            if endpoint.id in c.after.webhooks:
                raise IntegrityViolation(f"webhooks: duplicate id {endpoint.id}")
            c.after.webhooks[endpoint.id] = row
            if endpoint.player_id is not None:
                c.player(endpoint.player_id, "webhooks")

        self._uow.queue(write)

    def get(self, webhook_id: UUID) -> WebhookEndpoint | None:
        row = self._uow.read().webhooks.get(webhook_id)
        return None if row is None else row.endpoint

    def of(self, player_id: UUID | None) -> list[WebhookEndpoint]:
        rows = [
            row.endpoint
            for row in self._uow.read().webhooks.values()
            if row.endpoint.player_id == player_id
        ]
        return sorted(rows, key=lambda e: (e.created_at, e.id))

    def delete(self, webhook_id: UUID) -> None:
        def write(c: Commit) -> None:
            if webhook_id not in c.before.webhooks:
                return
            del c.after.webhooks[webhook_id]
            for ident in [i for i, d in c.after.deliveries.items() if d.webhook_id == webhook_id]:
                del c.after.deliveries[ident]  # ON DELETE CASCADE
            for ident in [i for i, a in c.after.attempts.items() if a.webhook_id == webhook_id]:
                del c.after.attempts[ident]

        self._uow.queue(write)

    def attempts(self, webhook_id: UUID, limit: int) -> list[WebhookAttempt]:
        rows = [a for a in self._uow.read().attempts.values() if a.webhook_id == webhook_id]
        rows.sort(key=lambda a: a.id, reverse=True)
        return [a.attempt for a in rows[:limit]]

    def fan_out(
        self,
        game_id: UUID,
        events: Sequence[WebhookEvent],
        bound: Sequence[tuple[int, UUID]],
        now: datetime,
        left: Sequence[int] = (),
    ) -> None:
        if not events:
            return
        told = [(game_id, e, tuple(bound)) for e in events]

        def write(c: Commit) -> None:
            c.after.told.extend(told)
            enabled = sorted(
                (row.endpoint for row in c.before.webhooks.values()),
                key=lambda e: (e.created_at, e.id),
            )
            enabled = [e for e in enabled if e.disabled_at is None]
            seats = [(s, p) for (g, s), p in c.before.seat_players.items() if g == game_id]
            seats += bound
            for event in events:
                to = [e for e in enabled if e.player_id is None and event.type in e.events]
                for seat, player_id in seats:
                    if (event.seat is None or seat == event.seat) and seat not in left:
                        to += [
                            e
                            for e in enabled
                            if e.player_id == player_id and event.type in e.events
                        ]
                payload = {"type": event.type, "timestamp": now.isoformat(), "data": event.data}
                for endpoint in to:
                    ident = c.db._outbox_id()
                    message_id = "msg_" + uuid4().hex
                    c.after.deliveries[ident] = DeliveryRow(
                        ident, endpoint.id, game_id, message_id, payload, now, now
                    )
            c.game(game_id, "outbox")

        self._uow.queue(write)

    def claim(
        self,
        now: datetime,
        lease_until: datetime,
        limit: int,
        busy: Mapping[UUID, int],
        limits: Mapping[UUID, int] | None = None,
    ) -> list[WebhookDelivery]:
        caps = dict(limits or {})
        full = {w for w, n in busy.items() if n >= caps.get(w, PER_ENDPOINT)}

        def edit(t: Tables) -> list[WebhookDelivery]:
            # As the adapter's claim: a bounded look at the oldest due, then at most
            # each endpoint's limit, counting what it has under way.
            due = [
                d
                for d in t.deliveries.values()
                if d.done_at is None
                and d.available_at <= now
                and _enabled(t, d.webhook_id)
                and d.webhook_id not in full
            ]
            due.sort(key=lambda d: (d.available_at, d.id))
            taken = Counter(busy)
            chosen: list[DeliveryRow] = []
            for d in due[: max(8 * limit, 64)]:
                taken[d.webhook_id] += 1
                if taken[d.webhook_id] <= caps.get(d.webhook_id, PER_ENDPOINT):
                    chosen.append(d)
            out: list[WebhookDelivery] = []
            for d in chosen[:limit]:
                t.deliveries[d.id] = replace(d, available_at=lease_until)
                hook = t.webhooks[d.webhook_id]
                out.append(
                    WebhookDelivery(
                        d.id,
                        d.webhook_id,
                        d.message_id,
                        hook.endpoint.url,
                        hook.secret,
                        d.payload,
                        d.created_at,
                        d.attempts,
                    )
                )
            return out

        return self._uow.at_once(edit)

    def record(
        self,
        attempts: Sequence[Recorded],
        *,
        disable_failing_since: datetime,
    ) -> None:
        if not attempts:
            return
        recorded = list(attempts)

        def write(c: Commit) -> None:
            c.after.recorded.extend(recorded)
            for d, a, _ in recorded:
                ident = c.db._attempt_id()
                c.after.attempts[ident] = AttemptRow(ident, d.webhook_id, a)
                c.webhook(d.webhook_id, "webhook_attempts")
            for d, a, done in recorded:
                row = c.before.deliveries.get(d.id)
                if done:
                    c.after.deliveries.pop(d.id, None)  # delivered or given up: it leaves
                elif row is not None:
                    c.after.deliveries[d.id] = replace(
                        row,
                        attempts=row.attempts + 1,
                        last_error=a.error,
                        available_at=a.next_attempt_at or row.available_at,
                    )
            last = {d.webhook_id: a for d, a, _ in recorded}
            for webhook_id, a in last.items():
                hook = c.before.webhooks.get(webhook_id)
                if hook is None:
                    continue
                e, ok = hook.endpoint, a.status is not None and 200 <= a.status < 300
                if ok and e.failing_since is None:
                    continue
                since = e.failing_since or a.attempted_at
                stays = ok or e.disabled_at is not None or since >= disable_failing_since
                reason = (
                    e.disabled_reason
                    if stays
                    else None
                    if e.failing_since is None
                    else f"every delivery failed since {_as_text(e.failing_since)}"
                )
                c.after.webhooks[webhook_id] = replace(
                    hook,
                    endpoint=replace(
                        e,
                        failing_since=None if ok else since,
                        disabled_at=e.disabled_at if stays else a.attempted_at,
                        disabled_reason=reason,
                    ),
                )

        self._uow.queue(write)

    def next_due(self, busy: Sequence[UUID]) -> datetime | None:
        t = self._uow.read()
        return min(
            (
                d.available_at
                for d in t.deliveries.values()
                if d.done_at is None and _enabled(t, d.webhook_id) and d.webhook_id not in busy
            ),
            default=None,
        )

    def forget(self, before: datetime, limit: int) -> int:
        def edit(t: Tables) -> int:
            done = sorted(
                i for i, d in t.deliveries.items() if d.done_at is not None and d.done_at < before
            )[:limit]
            logged = sorted(i for i, a in t.attempts.items() if a.attempt.attempted_at < before)
            for ident in done:
                del t.deliveries[ident]
            for ident in logged[:limit]:
                del t.attempts[ident]
            return len(done) + len(logged[:limit])

        return self._uow.at_once(edit)


def _enabled(tables: Tables, webhook_id: UUID) -> bool:
    row = tables.webhooks.get(webhook_id)
    return row is not None and row.endpoint.disabled_at is None


def _as_text(moment: datetime) -> str:
    """A timestamptz as PostgreSQL's ``::text`` gives it (in UTC)."""
    text = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f").rstrip("0").rstrip(".")
    return f"{text}+00"


# --- clock, dealer, wiring -------------------------------------------------------------


class FixedClock:
    """A clock that says what it is told (``moment``), until told otherwise."""

    def __init__(self, moment: datetime = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)) -> None:
        self.moment = moment

    def now(self) -> datetime:
        return self.moment

    def advance(self, delta: timedelta = timedelta(seconds=1)) -> None:
        self.moment += delta


class DealerScriptExhaustedError(AssertionError):
    """The dealer was asked for a deal the test did not script."""


class ScriptedDealer:
    """Deals the given rounds in order, recording each ``(seed, round_number)`` it is
    asked for; asked for more than it was given, it fails the test."""

    def __init__(self, *deals: DealRound) -> None:
        self.script = list(deals)
        self.asked: list[tuple[int | None, int]] = []

    def deal(self, config: GameConfig, seed: int | None, round_number: int) -> DealRound:
        self.asked.append((seed, round_number))
        if not self.script:
            raise DealerScriptExhaustedError(
                f"no deal scripted for round {round_number} (seed {seed})"
            )
        return self.script.pop(0)

    def commit(self, game_id: UUID) -> FairShuffle | None:
        return None  # its games are dealt from the script, not fairly

    def client_seed(self) -> str:  # pragma: no cover - never asked: no fair games
        raise AssertionError("a scripted dealer deals no fair game")

    def fair_deal(  # pragma: no cover - never asked: no fair games
        self,
        game_id: UUID,
        config: GameConfig,
        fairness: FairShuffle,
        client_seeds: tuple[str, ...],
        round_number: int,
    ) -> DealRound:
        raise AssertionError("a scripted dealer deals no fair game")

    def reveal(self, game_id: UUID, fairness: FairShuffle) -> str:  # pragma: no cover
        raise AssertionError("a scripted dealer deals no fair game")


def make_deps(
    db: Database,
    clock: FixedClock,
    dealer: ScriptedDealer,
    *,
    operator_token: str | None = OPERATOR_TOKEN,
    cache: StateCache | None = None,
) -> Deps:
    """The application's dependencies on the fakes (a fresh state cache unless given);
    the database's commits wake the deps' hub."""
    hub = db.hub = db.hub or Hub()
    return Deps(
        uow=db.unit_of_work,
        clock=clock,
        dealer=dealer,
        cache=cache if cache is not None else StateCache(),
        identity=Identity(db.unit_of_work, operator_token, clock=clock),
        chain=CHAIN_KEYS,
        webhook_urls=SchemeOnly(),
        projections=PROJECTIONS,
        changes=hub,
    )


class SchemeOnly:
    """The webhook URL policy of the fakes: http and https URLs (the tests' receivers
    listen on loopback). The service is wired only with the adapter's, which also refuses
    private and loopback addresses (SSRF)."""

    def problem(self, url: str) -> str | None:
        if not url.startswith(("http://", "https://")):
            return "only http and https URLs"
        return None
