"""The worker's jobs, as the application sees them: games that are due (a bot must act,
a turn clock ran out) are claimed from the store and advanced by the ``Advance``
command. A :class:`JobSource` is what the worker loop (service/worker.py) runs; webhook
deliveries will be another source in the same loop.
"""

from __future__ import annotations

import functools
import logging
import random
import threading
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol
from uuid import UUID

from service.application.commands import Advance, Context, ExpireGame
from service.application.deps import Deps
from service.application.errors import ApplicationError
from service.application.identity.principals import Operator
from service.application.integrity import anchors
from service.application.ports import StoreUnavailableError, UnitOfWork
from service.application.webhooks import endpoints
from service.application.webhooks.ports import WebhookDelivery
from service.application.write.registry import execute

log = logging.getLogger("yokai.worker")

OUTBOX_NOTE = "outbox"
"""What the outbox's trigger announces on the worker's channel when a row is added
(migrations/versions/0007_webhooks.py); wakeups announce their due time instead."""

LEASE = timedelta(seconds=30)
"""How long a claimed game is left to the worker that claimed it: a worker that stops
before it acts leaves the game to another once this has passed."""


class JobSource(Protocol):
    def run_due(self, deps: Deps) -> int:
        """Do the jobs due now (a batch), or start them; how many were taken."""
        ...

    def next_due(self, deps: Deps) -> datetime | None:
        """When the next job this source can take falls due, if one is known."""
        ...

    def in_flight(self) -> int:
        """Jobs started and not finished (done beside the worker's loop, by the source)."""
        ...

    def close(self) -> None:
        """Let the jobs in hand finish."""
        ...

    def wants(self, note: str) -> bool:
        """Whether an announcement on the worker's channel (a due time, ISO 8601, or
        ``outbox``) may give this source work it can take now."""
        ...


@dataclass
class Soonest:
    """A source's soonest due time as last read from the store, kept (so the worker's
    loop does not ask the store each time it goes to sleep) until it has passed, is
    ``max_age`` old, or is forgotten; an announced sooner time replaces it. A kept time
    that is too early (the job was taken meanwhile) only wakes the loop to read again;
    one that is too late is what ``max_age`` bounds, for the changes nobody announces
    (a lease ending)."""

    max_age: timedelta
    _at: datetime | None = None
    _read_at: datetime | None = None  # None: not known
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self, now: datetime, read: Callable[[], datetime | None]) -> datetime | None:
        with self._lock:
            stale = self._read_at is None or now - self._read_at >= self.max_age
            if stale or (self._at is not None and self._at <= now):
                self._at, self._read_at = read(), now
            return self._at

    def forget(self) -> None:
        with self._lock:
            self._read_at = None

    def later_than(self, now: datetime) -> bool:
        """Whether nothing is due by ``now``, as far as is known (without reading)."""
        with self._lock:
            fresh = self._read_at is not None and now - self._read_at < self.max_age
            return fresh and (self._at is None or self._at > now)

    def sooner(self, at: datetime) -> None:
        with self._lock:
            if self._read_at is not None and (self._at is None or at < self._at):
                self._at = at


@dataclass
class DueGames:
    """Games whose bot must move or whose turn clock ran out."""

    lease: timedelta = LEASE
    batch: int = 20
    worker: str = "worker"
    # Every wakeup set is announced with its time; what this worker claims it forgets.
    _soonest: Soonest = field(default_factory=lambda: Soonest(timedelta(seconds=30)))

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if self._soonest.later_than(now):
            return 0  # the loop was woken for other work (a webhook delivery)
        with deps.uow() as uow:
            claimed = uow.wakeups.claim(now, now + self.lease, self.batch)
        self._soonest.forget()
        for game_id in claimed:
            ctx = Context(Operator(), request_id=f"{self.worker}:{game_id}")
            try:
                done = execute(deps, Advance(game_id), ctx).result
            except StoreUnavailableError:
                raise  # the loop waits for the store; the lease hands the game on
            except Exception:
                # A fault of the server, not of a client: logged, and tried again when
                # the lease ends (the game is not lost, nor acted on twice).
                log.exception("advancing game %s failed", game_id)
                continue
            if done.acted:
                log.info("game %s advanced to version %d", game_id, done.version)
        return len(claimed)

    def next_due(self, deps: Deps) -> datetime | None:
        def read() -> datetime | None:
            with deps.uow() as uow:
                return uow.wakeups.next_due()

        return self._soonest.get(deps.clock.now(), read)

    def in_flight(self) -> int:
        return 0  # each game is advanced in the worker's own thread

    def close(self) -> None:
        pass

    def wants(self, note: str) -> bool:
        if note == OUTBOX_NOTE:
            return False
        try:  # a game's wakeup: its due time
            self._soonest.sooner(datetime.fromisoformat(note))
        except ValueError:
            self._soonest.forget()
        return True


class ByTheClock:
    """A source that runs every ``every``, by the clock (no announcement brings it work);
    its subclasses are dataclasses with the fields ``every`` and ``_next``."""

    every: timedelta
    _next: datetime | None

    def _time_to_run(self, now: datetime) -> bool:
        """Whether a run is due now; if so, the next is one period away."""
        if self._next is not None and now < self._next:
            return False
        self._next = now + self.every
        return True

    def next_due(self, deps: Deps) -> datetime | None:
        return self._next

    def in_flight(self) -> int:
        return 0

    def close(self) -> None:
        pass

    def wants(self, note: str) -> bool:
        return False  # it runs by the clock, every ``every``


@dataclass
class Housekeeping(ByTheClock):
    """Forgets what need not be kept for ever, every ``every``: outcomes stored under
    Idempotency-Keys older than ``keep`` (a retry after that is a new command), and
    webhook attempts logged (and deliveries finished, as rows written before finished
    ones were deleted at once) more than ``webhook_keep`` ago; and ends games left
    waiting for players, unchanged, for ``waiting`` (GameExpired)."""

    keep: timedelta = timedelta(hours=24)
    waiting: timedelta = timedelta(days=7)
    webhook_keep: timedelta = timedelta(days=7)
    every: timedelta = timedelta(minutes=10)
    batch: int = 1000
    _next: datetime | None = None

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if not self._time_to_run(now):
            return 0
        forgotten = self._in_batches(deps, lambda uow: uow.idempotency.expire)(now - self.keep)
        if forgotten:
            log.info("forgot %d idempotency records older than %s", forgotten, self.keep)
        forgotten = self._in_batches(deps, lambda uow: uow.webhooks.forget)(now - self.webhook_keep)
        if forgotten:
            log.info("forgot %d webhook rows older than %s", forgotten, self.webhook_keep)
        expired = self._expire_waiting(deps, now - self.waiting)
        if expired:
            log.info("expired %d games left waiting for players since %s", expired, self.waiting)
        return 1

    def _in_batches(
        self, deps: Deps, delete: Callable[[UnitOfWork], Callable[[datetime, int], int]]
    ) -> Callable[[datetime], int]:
        """Run a deletion of rows older than a time, ``batch`` rows a transaction, until
        it deletes fewer; how many went in all."""

        def run(before: datetime) -> int:
            total = 0
            while True:
                with deps.uow() as uow:
                    gone = delete(uow)(before, self.batch)
                total += gone
                if gone < self.batch:
                    return total

        return run

    def _expire_waiting(self, deps: Deps, idle_since: datetime) -> int:
        with deps.uow(snapshot=True) as uow:
            ids = uow.games.idle(status="waiting", before=idle_since, limit=self.batch)
        done = 0
        for game_id in ids:
            try:
                result = execute(deps, ExpireGame(game_id, idle_since), Context(Operator()))
            except ApplicationError as error:  # gone meanwhile: the next run looks again
                log.warning("could not expire game %s: %s", game_id, error)
                continue
            done += int(result.result.acted)
        return done


@dataclass
class Anchoring(ByTheClock):
    """Every ``every``, anchors the chain head of each game that changed since the last
    time (service/application/integrity/anchors.py) in ``sink``, outside the database. The first
    time, it starts from the newest anchor the sink holds (every game when none).
    Games are taken from a little before the last run (``overlap``): a command stamps
    its game when it starts, and may commit after the run that began meanwhile."""

    sink: anchors.AnchorSink
    every: timedelta = timedelta(minutes=5)
    overlap: timedelta = timedelta(minutes=2)
    batch: int = 1000
    _next: datetime | None = None
    _since: datetime | None = None
    _started: bool = False

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if not self._time_to_run(now):
            return 0
        try:
            self._anchor(deps, now)
        except OSError:
            # Kept from where it was: the next period anchors what this one could not.
            log.exception("anchoring game heads failed")
        return 1

    def _anchor(self, deps: Deps, now: datetime) -> None:
        if not self._started:
            self._since = self.sink.last_at()
            self._started = True
        since = None if self._since is None else self._since - self.overlap
        lines: list[anchors.Anchor] = []
        after = None
        while True:
            with deps.uow(snapshot=True) as uow:
                heads = uow.games.heads(since=since, after=after, limit=self.batch)
            lines += [anchors.anchor(deps.chain, h, now) for h in heads]
            if len(heads) < self.batch:
                break
            after = (heads[-1].updated_at, heads[-1].game_id)
        if lines:
            self.sink.write(lines, now)
        self._since = now


@dataclass
class WebhookDeliveries:
    """Webhook deliveries, at most ``at_once`` attempts under way (the sender makes them
    without a thread each: see endpoints.Sender), at most ``per_endpoint`` of them to one
    endpoint: a slow endpoint holds its own deliveries, never the others'.

    Up to ``queued`` claimed deliveries wait for a place beside those under way, and a
    claim is made only for a batch (``at_once // 4`` free places, or when nothing is in
    hand): under load each claim takes many deliveries and the worker's loop is not
    woken by every new outbox row, while an idle worker still sends a single delivery
    at once. A delivery's place is free again as soon as its attempt ends: until it is
    recorded, its lease keeps it from every claim. A queued delivery waits at most one
    attempt (10 s) for a place; one whose lease would end before its attempt could (a
    short lease) is not sent but left to the next claim after the lease, so no two
    workers send it at once.

    Attempts are recorded by a thread of their own, a batch at a time: it waits up to
    ``record_linger`` seconds for the attempts being sent, so the attempts of a claim
    are mostly recorded in one transaction."""

    sender: endpoints.Sender
    at_once: int = 64
    queued: int = 0
    per_endpoint: int = 2
    lease: timedelta = timedelta(seconds=60)  # longer than an attempt (10 s) can take
    first_retry: float = endpoints.FIRST_RETRY
    record_linger: float = 0.02
    wake: Callable[[], None] = lambda: None  # told when claiming again may find work
    _recorder: threading.Thread | None = None
    _busy: Counter[UUID] = field(default_factory=Counter)  # claimed, not yet attempted
    _waiting: deque[tuple[WebhookDelivery, datetime]] = field(default_factory=deque)
    _sending: int = 0  # attempts under way
    _outcomes: list[endpoints.Outcome] = field(default_factory=list)  # not yet recorded
    _recording: int = 0  # outcomes in the recorder's hands
    _closing: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _chance: random.Random = field(default_factory=random.SystemRandom)
    _backlog: bool = False  # the last claim was full: more may be due
    _soonest: Soonest = field(default_factory=lambda: Soonest(timedelta(seconds=5)))
    _changed: threading.Condition = field(init=False)
    _starting: threading.local = field(default_factory=threading.local)

    def __post_init__(self) -> None:
        self._changed = threading.Condition(self._lock)  # an attempt ended or was recorded

    def _room(self) -> int:
        """How many deliveries to claim now (0 until a batch's worth of places is free);
        call with ``_lock`` held."""
        taken = sum(self._busy.values())
        free = self.at_once + self.queued - taken
        return free if taken == 0 or free >= max(1, self.at_once // 4) else 0

    def run_due(self, deps: Deps) -> int:
        with self._lock:
            free = self._room()
            busy = dict(self._busy)  # the store keeps each endpoint to its limit
            full = [w for w, n in busy.items() if n >= self.per_endpoint]
        if free <= 0:
            return 0
        now = deps.clock.now()
        with deps.uow() as uow:
            claimed = uow.webhooks.claim(now, now + self.lease, free, busy)
        with self._lock:
            for delivery in claimed:
                self._busy[delivery.webhook_id] += 1
                self._waiting.append((delivery, now + self.lease))
            # Got as many as it asked for, or an endpoint is (or was) at its limit: more
            # may be due, so the end of an attempt calls for another claim (else new
            # rows are announced as they commit).
            self._backlog = (
                len(claimed) >= free
                or bool(full)
                or any(self._busy[d.webhook_id] >= self.per_endpoint for d in claimed)
            )
        if not claimed:
            return 0
        if self._recorder is None:
            self._recorder = threading.Thread(
                target=self._record_all, args=(deps,), name="yokai-webhook-recorder"
            )
            self._recorder.start()
        self._start_waiting(deps)
        # A claim that was not full left nothing due: not asked again at once.
        return len(claimed) if len(claimed) >= free else 0

    def _start_waiting(self, deps: Deps) -> None:
        """Start the waiting deliveries there are places for (from the worker's loop,
        or from the sender as an attempt ends). A sender that answers within ``start``
        calls back into here: that call returns at once, and this loop goes on."""
        if getattr(self._starting, "active", False):
            return
        self._starting.active = True
        try:
            self._start_all_waiting(deps)
        finally:
            self._starting.active = False

    def _start_all_waiting(self, deps: Deps) -> None:
        while True:
            with self._lock:
                if not self._waiting or self._sending >= self.at_once:
                    return
                delivery, lease_end = self._waiting.popleft()
                now = deps.clock.now()
                late = now + endpoints.ATTEMPT_TIME >= lease_end
                if not late:
                    self._sending += 1
            if late:
                # Waited so long for a place that the attempt could outlast the lease,
                # when another worker may claim the delivery: left to that claim.
                log.warning("webhook delivery %s: lease too short, left", delivery.message_id)
                self._ended(delivery, None)
                continue
            try:
                body, headers = endpoints.signed(delivery, now)
                self.sender.start(
                    delivery.url, body, headers, functools.partial(self._sent, deps, delivery, now)
                )
            except Exception:
                # Not recorded: the lease hands the delivery on (at least once, never lost).
                log.exception("webhook delivery %s failed", delivery.message_id)
                self._ended(delivery, None, sent=True)

    def _sent(
        self, deps: Deps, delivery: WebhookDelivery, at: datetime, sent: endpoints.Sent
    ) -> None:
        """The sender's word on an attempt: its place is free for the next."""
        try:
            outcome: endpoints.Outcome | None = endpoints.attempted(
                delivery, at, sent, self._chance, self.first_retry, ended=deps.clock.now()
            )
        except Exception:
            log.exception("webhook delivery %s failed", delivery.message_id)
            outcome = None
        self._ended(delivery, outcome, sent=True)
        self._start_waiting(deps)

    def _ended(
        self, delivery: WebhookDelivery, outcome: endpoints.Outcome | None, *, sent: bool = False
    ) -> None:
        """An attempt is over (``sent``) or was not made: its place is free, its outcome
        goes to the recorder, both at once (close() waits for the two)."""
        with self._changed:
            if sent:
                self._sending -= 1
            self._busy[delivery.webhook_id] -= 1
            if self._busy[delivery.webhook_id] <= 0:
                del self._busy[delivery.webhook_id]
            if outcome is not None:
                self._outcomes.append(outcome)
            # Waited for: a first outcome to record, or the last claimed delivery's end
            # (the recorder's linger, close). Not every end: each wake-up of a waiting
            # thread costs the sending one a switch.
            if (outcome is not None and len(self._outcomes) == 1) or not self._busy:
                self._changed.notify_all()
            room = self._backlog and self._room() > 0
        if room:  # a batch's worth of places, and rows left behind: claim again
            self.wake()

    def _record_all(self, deps: Deps) -> None:
        """The recorder's loop: each batch of outcomes in one transaction, until closed
        with nothing left to record."""
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._outcomes) or self._closing)
                if not self._outcomes:
                    return  # closing, all recorded
                # Those being sent are mostly done within the linger: one commit for all.
                self._changed.wait_for(lambda: not self._busy, timeout=self.record_linger)
                batch, self._outcomes = self._outcomes, []
                self._recording = len(batch)
            try:
                endpoints.record(deps, batch)
            except Exception:
                log.exception("recording %d webhook attempts failed", len(batch))
            retries = [o.attempt.next_attempt_at for o in batch if not o.done]
            for at in retries:
                if at is not None:
                    self._soonest.sooner(at)
            for o in batch:
                a = o.attempt
                log.debug("webhook %s: %s", a.message_id, a.status or a.error)
            with self._changed:
                self._recording = 0
                self._changed.notify_all()
            if retries:
                self.wake()  # the loop's planned wake-up may be later than a retry

    def next_due(self, deps: Deps) -> datetime | None:
        with self._lock:
            if not self._room():
                return None  # an attempt that ends wakes the loop
            full = [w for w, n in self._busy.items() if n >= self.per_endpoint]

        def read() -> datetime | None:
            with deps.uow() as uow:
                return uow.webhooks.next_due(full)

        # New rows are announced, retries this worker schedules are noted when recorded;
        # a lease of a worker that stopped ends unannounced: read at least every 5 s.
        return self._soonest.get(deps.clock.now(), read)

    def in_flight(self) -> int:
        """Deliveries claimed and not yet recorded (queued, being sent, or recorded
        now)."""
        with self._lock:
            return sum(self._busy.values()) + len(self._outcomes) + self._recording

    def close(self) -> None:
        with self._changed:
            # The attempts in hand end (each within its timeout), and are recorded.
            self._changed.wait_for(lambda: not self._busy)
            self._closing = True
            self._changed.notify_all()
        if self._recorder is not None:
            self._recorder.join()  # and are recorded

    def wants(self, note: str) -> bool:
        with self._lock:
            return self._room() > 0  # a new outbox row, or a due time (a retry's)
