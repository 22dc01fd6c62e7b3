"""In-memory stand-ins for the ports of service.application.ports, for handler tests that
need no database.

One :class:`Database` holds the committed rows; each :class:`FakeUnitOfWork` is one
transaction on it, with the semantics of the PostgreSQL adapters
(service/adapters/postgres):

- writes are staged and reach the database (and other units of work) only on commit; a
  unit of work that ends without commit leaves nothing;
- writers read what is committed plus their own staged rows (READ COMMITTED); a snapshot
  unit of work is read-only and sees the database as it was at its first read;
- the keys and constraints of the schema hold: a taken ``(game_id, seq)`` raises
  :class:`AppendConflictError`, so does a taken seat in the credentials; a taken
  idempotency key raises :class:`DuplicateKeyError`; the others (a duplicate game or
  token, a foreign key: an event, credential or outbox message of a game without its
  ``games`` row) raise :class:`IntegrityViolation`, checked statement by statement as
  PostgreSQL does (its foreign keys here are not deferrable). After a failed statement
  the transaction is aborted: anything but leaving it raises :class:`TransactionError`;
- what would wait for another open transaction (a row it wrote, a key it locked) raises
  :class:`WouldBlockError`: with one thread, waiting would never end.

:meth:`Database.interpose` runs a "concurrent writer" just before a unit of work makes
its first append, so a test can make another transaction win the race.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from enum import Enum
from types import TracebackType
from typing import Self
from uuid import UUID

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
from service.application.identity.ports import CredentialGoneError, PlayerRecord
from service.application.identity.principals import Identity
from service.application.integrity.chain import ChainKeys
from service.application.live.hub import Hub, game_key, player_key
from service.application.ports import AppendConflictError, Position, StoredEvent
from service.application.webhooks.ports import (
    ClaimedMessage,
    OutboxMessage,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from service.application.write.ports import DuplicateKeyError, SealedRecord
from service.rules import DealRound, FairShuffle, GameConfig

OPERATOR_TOKEN = "operator-token-for-the-application-tests"
CHAIN_KEYS = ChainKeys(b"application-tests-chain-key-32by")


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
class OutboxRow:
    id: int
    message: OutboxMessage
    created_at: datetime
    attempts: int = 0
    last_error: str | None = None
    done_at: datetime | None = None


@dataclass
class Tables:
    events: dict[UUID, dict[int, EventRow]] = field(default_factory=dict)
    games: dict[UUID, GameSummary] = field(default_factory=dict)
    credentials: dict[tuple[UUID, int], CredentialRow] = field(default_factory=dict)
    idempotency: dict[tuple[str, str], IdempotencyRow] = field(default_factory=dict)
    outbox: dict[int, OutboxRow] = field(default_factory=dict)
    snapshots: dict[UUID, Snapshot] = field(default_factory=dict)
    players: dict[UUID, tuple[PlayerRecord, str]] = field(default_factory=dict)
    seat_players: dict[tuple[UUID, int], UUID] = field(default_factory=dict)
    inbox: dict[tuple[UUID, UUID], InboxEntry] = field(default_factory=dict)
    # game -> (due_at, version); a due_at of None is a deleted row (staged deletions)
    wakeups: dict[UUID, tuple[datetime | None, int]] = field(default_factory=dict)
    # what commits told webhooks: (game, event, bound seats), in commit order
    told: list[tuple[UUID, WebhookEvent, tuple[tuple[int, UUID], ...]]] = field(
        default_factory=list
    )

    def copy(self) -> Tables:
        return Tables(
            {g: dict(rows) for g, rows in self.events.items()},
            dict(self.games),
            dict(self.credentials),
            dict(self.idempotency),
            dict(self.outbox),
            dict(self.snapshots),
            dict(self.players),
            dict(self.seat_players),
            dict(self.inbox),
            dict(self.wakeups),
            list(self.told),
        )

    def merge(self, staged: Tables) -> None:
        for game_id, rows in staged.events.items():
            self.events.setdefault(game_id, {}).update(rows)
        self.games.update(staged.games)
        self.credentials.update(staged.credentials)
        self.idempotency.update(staged.idempotency)
        self.outbox.update(staged.outbox)
        for game_id, snap in staged.snapshots.items():
            current = self.snapshots.get(game_id)
            if current is None or current.version < snap.version:
                self.snapshots[game_id] = snap
        self.players.update(staged.players)
        self.seat_players.update(staged.seat_players)
        self.inbox.update(staged.inbox)
        self.told.extend(staged.told)
        for game_id, (due, version) in staged.wakeups.items():
            woken = self.wakeups.get(game_id)
            if woken is not None and woken[1] > version:
                continue  # a later version's word stands
            if due is None:
                self.wakeups.pop(game_id, None)
            else:
                self.wakeups[game_id] = (due, version)


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
        self._running: dict[int, FakeUnitOfWork] = {}
        self._next_txid = 1
        self._next_position = 1
        self._next_outbox_id = 1
        self._writer: Writer | None = None
        self._writer_left = 0
        self._interposing = False
        # Like the triggers of migration 0005: a commit announces its games and players.
        self.hub: Hub | None = None
        # Webhook deliveries a claim hands out (in order), and the recorded attempts.
        self.deliveries: list[WebhookDelivery] = []
        self.recorded: list[tuple[WebhookDelivery, WebhookAttempt, bool]] = []
        # Operator tokens `yokai operator create` kept (digest -> name), as the owner
        # writes them: outside any unit of work.
        self.operators: dict[str, str] = {}

    def unit_of_work(self, *, snapshot: bool = False) -> FakeUnitOfWork:
        """The UnitOfWorkFactory: a write transaction, or a read-only snapshot."""
        return FakeUnitOfWork(self, snapshot=snapshot)

    def interpose(self, writer: Writer, *, times: int = 1) -> None:
        """Run ``writer`` just before each of the next ``times`` units of work makes its
        first append (the writer's own appends do not trigger it)."""
        self._writer = writer
        self._writer_left = times

    # -- reading the committed state, for assertions --

    def stream(self, game_id: UUID) -> list[StoredEvent]:
        """A game's committed events in ``seq`` order."""
        rows = self.committed.events.get(game_id, {})
        return [rows[seq].event for seq in sorted(rows)]

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

    def _begin_writing(self, uow: FakeUnitOfWork) -> int:
        txid = self._next_txid
        self._next_txid += 1
        self._running[txid] = uow
        return txid

    def _watermark(self) -> int:
        """The oldest transaction id still running (pg_snapshot_xmin), else the next."""
        return min(self._running, default=self._next_txid)

    def _position(self) -> int:
        position = self._next_position
        self._next_position += 1
        return position

    def _outbox_id(self) -> int:
        ident = self._next_outbox_id
        self._next_outbox_id += 1
        return ident

    def _end(self, uow: FakeUnitOfWork) -> None:
        for key in [k for k, holder in self._locks.items() if holder is uow]:
            del self._locks[key]
        if uow.txid is not None:
            self._running.pop(uow.txid, None)


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
        self.txid: int | None = None
        self.staged = Tables()
        self._phase = _Phase.NEW
        self._snap: Tables | None = None
        self._snap_watermark = 0
        self._appended = False
        self.events = FakeEventStore(self)
        self.games = FakeGameIndex(self)
        self.credentials = FakeCredentials(self)
        self.idempotency = FakeIdempotencyStore(self)
        self.snapshots = FakeSnapshotStore(self)
        self.players = FakePlayers(self)
        self.inbox = FakeInbox(self)
        self.outbox = FakeOutbox(self)
        self.wakeups = FakeWakeups(self)
        self.webhooks = FakeWebhooks(self)
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
        self._check_open()
        if not self.snapshot:
            self._verify_keys()
            self.db.committed.merge(self.staged)
            self.db.commits += 1
            hub = self.db.hub
            if hub is not None:
                for game_id, summary in self.staged.games.items():
                    hub.publish(game_key(game_id), summary.version)
                for player_id, _ in self.staged.inbox:
                    hub.publish(player_key(player_id))
        self._end()

    # -- for the stores --

    def base(self) -> Tables:
        """What this transaction reads besides its own writes: the committed rows now,
        or for a snapshot, as they were at its first read."""
        self._check_open()
        if not self.snapshot:
            return self.db.committed
        if self._snap is None:
            self._snap = self.db.committed.copy()
            self._snap_watermark = self.db._watermark()
        return self._snap

    def watermark(self) -> int:
        self.base()
        return self._snap_watermark if self.snapshot else self.db._watermark()

    def writing(self) -> Tables:
        """The staging tables, once the transaction may write (its id is taken at its
        first write, as PostgreSQL does)."""
        self.check_writable()
        if self.txid is None:
            self.txid = self.db._begin_writing(self)
        return self.staged

    def check_writable(self) -> None:
        self._check_open()
        if self.snapshot:
            raise TransactionError("cannot write in a read-only snapshot")

    def lock(self, key: Hashable) -> None:
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

    def game_exists(self, game_id: UUID) -> bool:
        """The foreign key check on ``games.id``: waits for another transaction's insert
        of that row, not for its update (a key share lock lets non-key updates by)."""
        self.waits_for(("new game", game_id))
        return game_id in self.staged.games or game_id in self.base().games

    # -- internals --

    def _check_open(self) -> None:
        if self._phase is _Phase.FAILED:
            raise TransactionError("current transaction is aborted (a statement failed)")
        if self._phase is not _Phase.OPEN:
            raise TransactionError(f"unit of work is {self._phase.value}, not open")

    def _verify_keys(self) -> None:
        committed = self.db.committed
        for game_id, rows in self.staged.events.items():
            taken = committed.events.get(game_id, {}).keys() & rows.keys()
            assert not taken, f"rows {taken} of {game_id} were committed under a lock"
        assert not committed.idempotency.keys() & self.staged.idempotency.keys()
        assert not committed.credentials.keys() & self.staged.credentials.keys()

    def _end(self) -> None:
        self._phase = _Phase.ENDED
        self.staged = Tables()
        self.db._end(self)


# --- the stores ------------------------------------------------------------------------


class FakeOperators:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def find(self, token_sha256: str) -> str | None:
        return self._uow.db.operators.get(token_sha256)


class FakeEventStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        rows = {**self._uow.base().events.get(game_id, {}), **self._game_staged(game_id)}
        seqs = [s for s in sorted(rows) if s > after and (upto is None or s <= upto)]
        if limit is not None:
            seqs = seqs[:limit]
        return [rows[s].event for s in seqs]

    def page(self, game_id: UUID, after: int, limit: int) -> tuple[int, list[StoredEvent]] | None:
        summary = self._uow.games.get(game_id)
        if summary is None:
            return None
        return summary.version, self.load(game_id, after=after, upto=summary.version, limit=limit)

    def append(self, events: Sequence[StoredEvent]) -> None:
        uow = self._uow
        uow.check_writable()
        if not events:
            return
        uow.before_append(events)
        staged = uow.writing()
        base = uow.base()
        keys = [(e.game_id, e.seq) for e in events]
        for game_id, seq in keys:
            uow.waits_for(("events", game_id, seq))
        # Like PostgreSQL: the unique key is checked as each row goes in, the (not
        # deferrable) foreign key at the end of the statement.
        for game_id, seq in keys:
            taken = seq in base.events.get(game_id, {}) or seq in staged.events.get(game_id, {})
            if taken or keys.count((game_id, seq)) > 1:
                raise uow.fail(AppendConflictError(events[0].game_id))
        for game_id in {g for g, _ in keys}:
            if not uow.game_exists(game_id):
                raise uow.fail(
                    IntegrityViolation(
                        f"events: game {game_id} is not present in table games (foreign key)"
                    )
                )
        assert uow.txid is not None
        for e in events:
            position = Position(uow.txid, uow.db._position())
            staged.events.setdefault(e.game_id, {})[e.seq] = EventRow(e, position)
            uow.lock(("events", e.game_id, e.seq))

    def commits(self, game_id: UUID, after: int) -> list[list[StoredEvent]]:
        committed = self._uow.base().events.get(game_id, {})
        groups: list[list[StoredEvent]] = []
        last = None
        for seq in sorted(s for s in committed if s > after):
            row = committed[seq]
            if row.position.transaction != last or not groups:
                groups.append([])
                last = row.position.transaction
            groups[-1].append(row.event)
        return groups

    def read_all(self, after: Position | None, limit: int) -> list[tuple[Position, StoredEvent]]:
        watermark = self._uow.watermark()
        rows = [
            row
            for game in self._uow.base().events.values()
            for row in game.values()
            if row.position.transaction < watermark and (after is None or row.position > after)
        ]
        rows.sort(key=lambda row: row.position)
        return [(row.position, row.event) for row in rows[:limit]]

    def _game_staged(self, game_id: UUID) -> dict[int, EventRow]:
        return self._uow.staged.events.get(game_id, {})


class FakeGameIndex:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, summary: GameSummary) -> None:
        uow = self._uow
        staged = uow.writing()
        uow.waits_for(("games", summary.id))
        if summary.id in staged.games or summary.id in uow.base().games:
            raise uow.fail(IntegrityViolation(f"games: duplicate id {summary.id}"))
        staged.games[summary.id] = summary
        uow.lock(("games", summary.id))
        uow.lock(("new game", summary.id))

    def update(self, game_id: UUID, *, status: str, version: int, updated_at: datetime) -> None:
        uow = self._uow
        staged = uow.writing()
        current = self._visible().get(game_id)
        if current is None:
            return  # UPDATE ... WHERE id = ... matched no row (another's insert is unseen)
        uow.waits_for(("games", game_id))
        staged.games[game_id] = replace(
            current, status=status, version=version, updated_at=updated_at
        )
        uow.lock(("games", game_id))

    def get(self, game_id: UUID) -> GameSummary | None:
        return self._visible().get(game_id)

    def ids(self) -> list[UUID]:
        games = sorted(self._visible().values(), key=lambda g: (g.created_at, g.id))
        return [g.id for g in games]

    def page(
        self, *, status: str | None, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[GameSummary]:
        games = [
            g
            for g in self._visible().values()
            if (status is None or g.status == status)
            and (before is None or (g.created_at, g.id) < before)
        ]
        games.sort(key=lambda g: (g.created_at, g.id), reverse=True)
        return games[:limit]

    def idle(self, *, status: str, before: datetime, limit: int) -> list[UUID]:
        games = [
            g for g in self._visible().values() if g.status == status and g.updated_at < before
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
        games = [
            g
            for g in self._visible().values()
            if (status is None or g.status == status)
            and (since is None or g.updated_at >= since)
            and (after is None or (g.updated_at, g.id) > after)
        ]
        games.sort(key=lambda g: (g.updated_at, g.id))
        return games[:limit]

    def heads(
        self, *, since: datetime | None, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Head]:
        out: list[Head] = []
        for g in self.changed(status=None, since=since, after=after, limit=limit):
            (head,) = self._uow.events.load(g.id, after=g.version - 1, upto=g.version)
            out.append(Head(g.id, g.version, head.hash, g.updated_at))
        return out

    def _visible(self) -> dict[UUID, GameSummary]:
        return {**self._uow.base().games, **self._uow.staged.games}


class FakeCredentials:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        uow = self._uow
        staged = uow.writing()
        uow.waits_for(("seat", game_id, seat))
        uow.waits_for(("token", token_sha256))
        visible = self._visible()
        if (game_id, seat) in visible:  # a racing join took the seat first
            raise uow.fail(AppendConflictError(game_id))
        if any(row.token_sha256 == token_sha256 for row in visible.values()):
            raise uow.fail(IntegrityViolation("seat_credentials: duplicate token_sha256"))
        if not uow.game_exists(game_id):
            raise uow.fail(IntegrityViolation(f"seat_credentials: no game {game_id}"))
        staged.credentials[(game_id, seat)] = CredentialRow(token_sha256, created_at)
        uow.lock(("seat", game_id, seat))
        uow.lock(("token", token_sha256))

    def find(self, token_sha256: str) -> tuple[UUID, int] | None:
        for key, row in self._visible().items():
            if row.token_sha256 == token_sha256:
                return key
        return None

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        """Checked at once: the real store checks it with the unit of work's next round
        trip, which for a single-threaded fake is the same moment."""
        row = self._visible().get((game_id, seat))
        if row is None or row.token_sha256 != token_sha256:
            raise self._uow.fail(CredentialGoneError())

    def _visible(self) -> dict[tuple[UUID, int], CredentialRow]:
        return {**self._uow.base().credentials, **self._uow.staged.credentials}


class FakePlayers:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def _all(self) -> dict[UUID, tuple[PlayerRecord, str]]:
        return {**self._uow.base().players, **self._uow.staged.players}

    def _seats(self) -> dict[tuple[UUID, int], UUID]:
        return {**self._uow.base().seat_players, **self._uow.staged.seat_players}

    def add(self, player: PlayerRecord, token_sha256: str) -> None:
        staged = self._uow.writing()
        if any(token == token_sha256 for _, token in self._all().values()):
            raise self._uow.fail(IntegrityViolation("players: duplicate token_sha256"))
        staged.players[player.id] = (player, token_sha256)

    def get(self, player_id: UUID) -> PlayerRecord | None:
        found = self._all().get(player_id)
        return found[0] if found else None

    def find(self, token_sha256: str) -> PlayerRecord | None:
        return next((p for p, token in self._all().values() if token == token_sha256), None)

    def seat_in(self, game_id: UUID, player_id: UUID) -> int | None:
        return next(
            (seat for (g, seat), p in self._seats().items() if g == game_id and p == player_id),
            None,
        )

    def bind(self, game_id: UUID, seat: int, player_id: UUID) -> None:
        uow = self._uow
        staged = uow.writing()
        if (game_id, seat) in self._seats():
            raise uow.fail(AppendConflictError(game_id))
        if self.seat_in(game_id, player_id) is not None:
            raise uow.fail(AlreadySeatedError("this player holds a seat of this game"))
        staged.seat_players[(game_id, seat)] = player_id

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        player_id = self._seats().get((game_id, seat))
        found = self._all().get(player_id) if player_id else None
        if found is None or found[1] != token_sha256:
            raise self._uow.fail(CredentialGoneError())


class FakeInbox:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def _all(self) -> dict[tuple[UUID, UUID], InboxEntry]:
        return {**self._uow.base().inbox, **self._uow.staged.inbox}

    def add(self, entry: InboxEntry) -> None:
        self._uow.writing().inbox[(entry.player_id, entry.game_id)] = entry

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
        staged = self._uow.writing()
        actions = {t.seat: t.action for t in turns}
        deadlines = {t.seat: t.deadline for t in turns}
        for key, e in self._all().items():
            if e.game_id != game_id or e.seat not in actions:
                continue
            action = actions[e.seat]
            due = None if action is None else e.due_since if e.action == action else updated_at
            staged.inbox[key] = replace(
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

        rows = [e for e in self._all().values() if e.player_id == player_id]
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
        rows = [e for e in self._all().values() if e.player_id == player_id]
        rows = [e for e in rows if e.status in statuses]
        latest = max((e.updated_at for e in rows), default=None)
        return len(rows), latest, sum(e.version for e in rows)

    def watched(self, player_id: UUID, since: datetime) -> list[InboxEntry]:
        rows = [e for e in self._all().values() if e.player_id == player_id]
        rows = [e for e in rows if e.status not in ("finished", "expired") or e.updated_at >= since]
        return sorted(rows, key=lambda e: (e.updated_at, e.game_id))


class FakeSnapshotStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def get(self, game_id: UUID, schema_version: int) -> Snapshot | None:
        found = self._uow.staged.snapshots.get(game_id) or self._uow.base().snapshots.get(game_id)
        return found if found is not None and found.schema_version == schema_version else None

    def put(self, snapshot: Snapshot) -> None:
        uow = self._uow
        staged = uow.writing()
        if not uow.game_exists(snapshot.game_id):
            raise uow.fail(IntegrityViolation(f"snapshots: no game {snapshot.game_id}"))
        staged.snapshots[snapshot.game_id] = snapshot


class FakeIdempotencyStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def lock(self, scope: str, key_sha256: str) -> None:
        self._uow.base()  # only inside an open transaction
        self._uow.lock(("advisory", scope, key_sha256))

    def get(self, scope: str, key_sha256: str) -> SealedRecord | None:
        key = (scope, key_sha256)
        row = self._uow.staged.idempotency.get(key) or self._uow.base().idempotency.get(key)
        return None if row is None else row.record

    def add(self, scope: str, key_sha256: str, record: SealedRecord, created_at: datetime) -> None:
        uow = self._uow
        staged = uow.writing()
        key = (scope, key_sha256)
        uow.waits_for(("idempotency", *key))
        if key in staged.idempotency or key in uow.base().idempotency:
            raise uow.fail(DuplicateKeyError(key_sha256))
        staged.idempotency[key] = IdempotencyRow(record, created_at)
        uow.lock(("idempotency", *key))

    def expire(self, before: datetime, limit: int) -> int:
        rows = self._uow.db.committed.idempotency
        old = [k for k, row in rows.items() if row.created_at < before][:limit]
        for key in old:
            del rows[key]
        return len(old)


class FakeOutbox:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, messages: Sequence[OutboxMessage], created_at: datetime) -> None:
        uow = self._uow
        staged = uow.writing()
        for m in messages:
            if m.game_id is not None and not uow.game_exists(m.game_id):
                raise uow.fail(IntegrityViolation(f"outbox: no game {m.game_id}"))
        for m in messages:
            ident = uow.db._outbox_id()
            staged.outbox[ident] = OutboxRow(ident, m, m.available_at)
            uow.lock(("outbox", ident))

    def claim(self, kind: str, now: datetime, limit: int) -> list[ClaimedMessage]:
        uow = self._uow
        uow.writing()  # SELECT ... FOR UPDATE is refused in a read-only transaction
        due = [
            row
            for row in self._visible().values()
            if row.message.kind == kind
            and row.done_at is None
            and row.message.available_at <= now
            and not uow.db._held_by_other(("outbox", row.id), uow)  # SKIP LOCKED
        ]
        due.sort(key=lambda row: (row.message.available_at, row.id))
        for row in due[:limit]:
            uow.lock(("outbox", row.id))
        return [ClaimedMessage(row.id, row.message, row.attempts) for row in due[:limit]]

    def done(self, message_id: int, at: datetime) -> None:
        self._change(
            message_id,
            lambda row: replace(row, done_at=at, attempts=row.attempts + 1, last_error=None),
        )

    def retry(self, message_id: int, at: datetime, error: str) -> None:
        self._change(
            message_id,
            lambda row: replace(
                row,
                message=replace(row.message, available_at=at),
                attempts=row.attempts + 1,
                last_error=error[:1000],
            ),
        )

    def _change(self, message_id: int, change: Callable[[OutboxRow], OutboxRow]) -> None:
        uow = self._uow
        staged = uow.writing()
        uow.waits_for(("outbox", message_id))
        row = self._visible().get(message_id)
        if row is None:
            return
        staged.outbox[message_id] = change(row)
        uow.lock(("outbox", message_id))

    def _visible(self) -> dict[int, OutboxRow]:
        return {**self._uow.base().outbox, **self._uow.staged.outbox}


# --- clock, dealer, wiring -------------------------------------------------------------


class FakeWakeups:
    """Rows of the wakeups table; a claim commits at once (as the real one does)."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def set(self, game_id: UUID, due_at: datetime | None, version: int) -> None:
        self._uow.writing().wakeups[game_id] = (due_at, version)

    def claim(self, now: datetime, lease_until: datetime, limit: int) -> list[UUID]:
        rows = self._uow.db.committed.wakeups
        due = sorted((d, g) for g, (d, _) in rows.items() if d is not None and d <= now)
        claimed = [g for _, g in due[:limit]]
        for g in claimed:
            rows[g] = (lease_until, rows[g][1])
        return claimed

    def next_due(self) -> datetime | None:
        dues = [d for d, _ in self._uow.db.committed.wakeups.values() if d is not None]
        return min(dues, default=None)


class FakeWebhooks:
    """Records what commits tell webhooks (``Tables.told``), hands out the deliveries a
    test puts in ``Database.deliveries`` and keeps what is recorded of them; endpoints,
    and the deliveries' SQL, are the PostgreSQL adapter's, tested against the real
    database."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def fan_out(
        self,
        game_id: UUID,
        events: Sequence[WebhookEvent],
        bound: Sequence[tuple[int, UUID]],
        now: datetime,
        left: Sequence[int] = (),
    ) -> None:
        staged = self._uow.writing()
        staged.told.extend((game_id, e, tuple(bound)) for e in events)

    def add(self, endpoint: WebhookEndpoint, secret: str) -> None:
        raise NotImplementedError("webhook endpoints: see tests/e2e/test_webhooks.py")

    def get(self, webhook_id: UUID) -> WebhookEndpoint | None:
        return None

    def of(self, player_id: UUID | None) -> list[WebhookEndpoint]:
        return []

    def delete(self, webhook_id: UUID) -> None:
        raise NotImplementedError

    def attempts(self, webhook_id: UUID, limit: int) -> list[WebhookAttempt]:
        return []

    def claim(
        self, now: datetime, lease_until: datetime, limit: int, busy: Mapping[UUID, int]
    ) -> list[WebhookDelivery]:
        db = self._uow.db
        taken = Counter(busy)
        claimed: list[WebhookDelivery] = []
        for d in db.deliveries:
            if len(claimed) < limit and taken[d.webhook_id] < 2:  # PER_ENDPOINT
                taken[d.webhook_id] += 1
                claimed.append(d)
        db.deliveries = [d for d in db.deliveries if d not in claimed]
        return claimed

    def record(
        self,
        attempts: Sequence[tuple[WebhookDelivery, WebhookAttempt, bool]],
        *,
        disable_failing_since: datetime,
    ) -> None:
        self._uow.db.recorded.extend(attempts)

    def next_due(self, busy: Sequence[UUID]) -> datetime | None:
        return None

    def forget(self, before: datetime, limit: int) -> int:
        return 0


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
        identity=Identity(db.unit_of_work, operator_token),
        chain=CHAIN_KEYS,
        webhook_urls=SchemeOnly(),
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
