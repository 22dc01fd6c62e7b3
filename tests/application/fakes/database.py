"""The committed state, the locks of open transactions and the counters a test may assert on."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

from service.application.chat.ports import ChatMessage
from service.application.live.hub import Hub
from service.application.moderation.ports import Report
from service.application.notify.ports import Choices, EmailCode, Subscription
from service.application.ports import StoredEvent
from service.application.ratings.model import Rating
from service.application.ratings.ports import Change, PlayerResult
from service.application.reputation.ports import PlayerMark
from service.application.review.ports import StoredReview
from service.application.webhooks.ports import (
    WebhookDelivery,
    WebhookEndpoint,
)
from tests.application.fakes.tables import (
    Commit,
    DeliveryRow,
    IntegrityViolation,
    Recorded,
    Tables,
    WebhookRow,
    WouldBlockError,
    Write,
)
from tests.application.fakes.unit_of_work import FakeUnitOfWork

T = TypeVar("T")


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
        # Chat messages (FakeChat), each with its sender, in order.
        self.chat: list[tuple[ChatMessage, str]] = []
        # Hand reviews (FakeReviews), and when each was asked for.
        self.reviews: dict[UUID, StoredReview] = {}
        self.review_order: dict[UUID, datetime] = {}
        # Ratings (FakeRatings): by (player, ladder); histories; rated games' [finished
        # at, order of update or None].
        self.ratings: dict[tuple[UUID, str], Rating] = {}
        self.rating_history: dict[tuple[UUID, str], list[Change]] = {}
        self.rated_games: dict[UUID, list[Any]] = {}
        self.player_results: dict[tuple[UUID, UUID], PlayerResult] = {}
        # Reputations (FakeReputations): every mark kept, and when each player's ban was
        # last lifted.
        self.reputation_marks: list[PlayerMark] = []
        self.lifted: dict[UUID, datetime] = {}
        # Turn notifications (FakeNotifications): choices, subscriptions (with their
        # endpoint's hash), and the pushes commits queued by (subscription, game, version).
        self.notification_choices: dict[UUID, Choices] = {}
        self.push_subscriptions: dict[UUID, tuple[Subscription, str]] = {}
        self.pushes: dict[tuple[UUID, UUID, int], str] = {}
        self.email_codes: dict[UUID, list[EmailCode]] = {}
        self.mails: list[dict[str, Any]] = []  # messages queued (their payloads)
        # Reports (FakeReports), by id.
        self.reports: dict[UUID, Report] = {}
        # Blocks and follows (FakeBlocks, FakeFollows): (player, other) -> since when; the
        # games created public.
        self.blocks: dict[tuple[UUID, UUID], datetime] = {}
        self.follows: dict[tuple[UUID, UUID], datetime] = {}
        self.public_games: set[UUID] = set()

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
