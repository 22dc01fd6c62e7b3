"""One transaction on a Database (see the package's docstring)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from enum import Enum
from types import TracebackType
from typing import TYPE_CHECKING, Self, TypeVar

from service.application.identity.ports import (
    CredentialGoneError,
    PlayerSuspendedError,
)
from service.application.live.hub import LOBBY_KEY, follow_key, game_key, player_key, token_key
from service.application.ports import StoredEvent
from tests.application.fakes.chat import FakeChat
from tests.application.fakes.credentials import FakeCredentials
from tests.application.fakes.erasures import FakeErasures
from tests.application.fakes.events import FakeEventStore
from tests.application.fakes.games import FakeGameIndex
from tests.application.fakes.idempotency import FakeIdempotencyStore
from tests.application.fakes.identities import FakeIdentities, FakeLinkCodes
from tests.application.fakes.inbox import FakeInbox
from tests.application.fakes.lobby import FakeLobby
from tests.application.fakes.notifications import FakeNotifications
from tests.application.fakes.operators import FakeOperators
from tests.application.fakes.players import FakePlayerAudit, FakePlayers
from tests.application.fakes.ratings import FakeRatings
from tests.application.fakes.reports import FakeReports
from tests.application.fakes.reputations import FakeReputations
from tests.application.fakes.reviews import FakeReviews
from tests.application.fakes.seeks import FakeSeeks
from tests.application.fakes.snapshots import FakeSnapshotStore
from tests.application.fakes.social import FakeBlocks, FakeFollows
from tests.application.fakes.tables import Commit, Tables, TransactionError, WouldBlockError, Write
from tests.application.fakes.tokens import FakePlayerTokens
from tests.application.fakes.wakeups import FakeWakeups
from tests.application.fakes.webhooks import FakeWebhooks

if TYPE_CHECKING:
    from tests.application.fakes.database import Database

T = TypeVar("T")


class _Phase(Enum):
    NEW = "new"
    OPEN = "open"
    FAILED = "failed"
    ENDED = "ended"


class FakeUnitOfWork:
    """One transaction on a :class:`Database` (see the package's docstring)."""

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
        self.reputations = FakeReputations(self)
        self.reviews = FakeReviews(self)
        self.chat = FakeChat(self)
        self.wakeups = FakeWakeups(self)
        self.webhooks = FakeWebhooks(self)
        self.notifications = FakeNotifications(self)
        self.reports = FakeReports(self)
        self.erasures = FakeErasures()
        self.operators = FakeOperators(self)
        self.blocks = FakeBlocks(self)
        self.follows = FakeFollows(self)

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
        for player_id in done.followed:
            hub.publish(follow_key(player_id))

    def _check_open(self) -> None:
        if self._phase is _Phase.FAILED:
            raise TransactionError("current transaction is aborted (a statement failed)")
        if self._phase is not _Phase.OPEN:
            raise TransactionError(f"unit of work is {self._phase.value}, not open")

    def _end(self) -> None:
        self._phase = _Phase.ENDED
        self._writes = []
        self.db._end(self)
