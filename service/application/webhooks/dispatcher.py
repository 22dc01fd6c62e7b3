"""The worker's webhook deliveries: claimed from the outbox, attempted beside the
worker's loop by the sender, recorded in batches."""

from __future__ import annotations

import functools
import logging
import random
import threading
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from uuid import UUID

from service.application.deps import Deps
from service.application.jobs.source import Soonest
from service.application.webhooks.delivery import (
    ATTEMPT_TIME,
    FIRST_RETRY,
    Outcome,
    Sender,
    Sent,
    attempted,
    record,
    signed,
)
from service.application.webhooks.ports import PER_ENDPOINT, WebhookDelivery

log = logging.getLogger("yokai.worker")


@dataclass
class WebhookDeliveries:
    """Webhook deliveries, at most ``at_once`` attempts under way (the sender makes them
    without a thread each: see Sender), at most PER_ENDPOINT (2) of them to one endpoint
    at first. Each 2xx answered within ``quick`` seconds raises that endpoint's limit by
    one, up to ``most_per_endpoint`` (so the limit doubles with each round of quick
    answers); any other answer, or a send that failed, puts it back to PER_ENDPOINT
    (until it answers quickly again). An endpoint that answers quickly gets its
    deliveries as fast as the games make them (one operator endpoint hears every game:
    at 2 at once it fell minutes behind a busy server). The price: one that was quick
    and turns slow holds up to ``most_per_endpoint`` places (half of them) for one
    attempt's 10 s before its answers put it back to 2; two at once would hold every
    place, and the others wait that long (none is lost). Limits are this worker's own,
    as its places are. Up to ``remembered`` endpoints keep a raised limit (the one
    raised longest ago is forgotten first): each claim hands them all to the store.

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

    sender: Sender
    at_once: int = 64
    queued: int = 0
    most_per_endpoint: int = 32
    quick: float = 1.0  # seconds: an answer within this raises its endpoint's limit
    remembered: int = 256
    lease: timedelta = timedelta(seconds=60)  # longer than an attempt (10 s) can take
    first_retry: float = FIRST_RETRY
    record_linger: float = 0.02
    wake: Callable[[], None] = lambda: None  # told when claiming again may find work
    _recorder: threading.Thread | None = None
    _busy: Counter[UUID] = field(default_factory=Counter)  # claimed, not yet attempted
    _limits: dict[UUID, int] = field(default_factory=dict)  # those raised past PER_ENDPOINT
    _waiting: deque[tuple[WebhookDelivery, datetime]] = field(default_factory=deque)
    _sending: int = 0  # attempts under way
    _outcomes: list[Outcome] = field(default_factory=list)  # not yet recorded
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

    def _limit(self, webhook_id: UUID) -> int:
        """An endpoint's limit now; call with ``_lock`` held."""
        return self._limits.get(webhook_id, PER_ENDPOINT)

    def run_due(self, deps: Deps) -> int:
        with self._lock:
            free = self._room()
            busy = dict(self._busy)  # the store keeps each endpoint to its limit
            limits = dict(self._limits)
            full = [w for w, n in busy.items() if n >= self._limit(w)]
        if free <= 0:
            return 0
        now = deps.clock.now()
        with deps.uow() as uow:
            claimed = uow.webhooks.claim(now, now + self.lease, free, busy, limits)
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
                or any(self._busy[d.webhook_id] >= self._limit(d.webhook_id) for d in claimed)
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
                late = now + ATTEMPT_TIME >= lease_end
                if not late:
                    self._sending += 1
            if late:
                # Waited so long for a place that the attempt could outlast the lease,
                # when another worker may claim the delivery: left to that claim.
                log.warning("webhook delivery %s: lease too short, left", delivery.message_id)
                self._ended(delivery, None)
                continue
            try:
                body, headers = signed(delivery, now, deps.vault)
                self.sender.start(
                    delivery.url, body, headers, functools.partial(self._sent, deps, delivery, now)
                )
            except Exception:
                # Not recorded: the lease hands the delivery on (at least once, never lost).
                log.exception("webhook delivery %s failed", delivery.message_id)
                self._ended(delivery, None, sent=True)

    def _sent(self, deps: Deps, delivery: WebhookDelivery, at: datetime, sent: Sent) -> None:
        """The sender's word on an attempt: its place is free for the next."""
        try:
            ended = deps.clock.now()
            outcome: Outcome | None = attempted(
                delivery, at, sent, self._chance, self.first_retry, ended=ended
            )
            quick = (
                sent.status is not None
                and 200 <= sent.status < 300
                and (ended - at).total_seconds() <= self.quick
            )
        except Exception:
            log.exception("webhook delivery %s failed", delivery.message_id)
            outcome, quick = None, False
        self._ended(delivery, outcome, sent=True, quick=quick)
        self._start_waiting(deps)

    def _ended(
        self,
        delivery: WebhookDelivery,
        outcome: Outcome | None,
        *,
        sent: bool = False,
        quick: bool = False,
    ) -> None:
        """An attempt is over (``sent``: ``quick`` if it was a 2xx within ``quick``
        seconds) or was not made: its place is free, its outcome goes to the recorder,
        both at once (close() waits for the two)."""
        with self._changed:
            if sent:
                self._sending -= 1
                w = delivery.webhook_id
                limit = self._limits.pop(w, PER_ENDPOINT)
                if quick:  # kept, the last raised last: the longest unraised goes first
                    self._limits[w] = min(limit + 1, self.most_per_endpoint)
                    if len(self._limits) > self.remembered:
                        del self._limits[next(iter(self._limits))]
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
                record(deps, batch)
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
            full = [w for w, n in self._busy.items() if n >= self._limit(w)]

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
