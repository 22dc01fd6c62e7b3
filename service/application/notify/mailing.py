"""The worker's mail (API.md Part 4): the reminders and digests it queues by the clock,
and the messages of the outbox (kind ``mail``) it sends through the SMTP server, one at a
time in a thread of its own (mail is rare; a slow server must not hold the bots up).

A message is composed as it is sent (service/application/notify/mail.py): the address
opened then (an erased player's no longer opens: nothing is sent), a reminder only while
its turn's clock still runs, a digest of the games waiting at that moment (none: no
message). A temporary failure (no connection, a 4xx reply) is tried again with backoff
for ``KEEP``; a permanent one (5xx) ends it.
"""

from __future__ import annotations

import logging
import math
import random
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from uuid import UUID

from service.application.deps import Deps
from service.application.jobs.source import OUTBOX_NOTE, ByTheClock, Soonest
from service.application.notify import mail as compose
from service.application.notify.mail import Mailer, MailError, WaitingGame
from service.application.notify.ports import Mail, MailOutcome
from service.application.ports import UnitOfWork
from service.application.privacy.sealing import Revealer

log = logging.getLogger("yokai.worker")

KEEP = timedelta(hours=24)
FIRST_RETRY = 30.0
MAX_RETRY = 3600.0


@dataclass
class Reminders(ByTheClock):
    """Every ``every``: a reminder for each turn whose clock has its player's minutes
    left (pushes and mail, as each chose; once per game and version)."""

    every: timedelta = timedelta(seconds=10)
    _next: datetime | None = None

    def run_due(self, deps: Deps) -> int:
        return _queued(self, deps, lambda uow, now: uow.notifications.remind(now, deps.mail))


@dataclass
class Digests(ByTheClock):
    """Every ``every``: a digest for each player whose hour or day began since their
    last one and on whom a game waits (at most one message per period)."""

    every: timedelta = timedelta(seconds=60)
    _next: datetime | None = None

    def run_due(self, deps: Deps) -> int:
        return _queued(self, deps, lambda uow, now: uow.notifications.queue_digests(now))


def _queued(source: ByTheClock, deps: Deps, queue: Callable[[UnitOfWork, datetime], int]) -> int:
    """What ``queue`` queued in a transaction of its own, if the source's time came."""
    now = deps.clock.now()
    if not source._time_to_run(now):
        return 0
    with deps.uow() as uow:
        found = queue(uow, now)
        uow.commit()
    return found


@dataclass
class MailDeliveries:
    mailer: Mailer
    sender: str  # YOKAI_MAIL_FROM
    public_url: str
    # A message takes several SMTP steps of up to 10 s each (connect, EHLO, STARTTLS,
    # AUTH, MAIL, RCPT, DATA): a batch of 4, one after another, within 7 minutes at worst,
    # recorded before the lease of 10 ends (else another worker sends them again).
    lease: timedelta = timedelta(minutes=10)
    batch: int = 4
    wake: Callable[[], None] = lambda: None
    _soonest: Soonest = field(default_factory=lambda: Soonest(timedelta(seconds=60)))
    _pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="yokai-mail")
    )
    _sending: int = 0
    _done: list[MailOutcome] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _chance: random.Random = field(default_factory=random.Random)
    _deps: Deps | None = None

    def run_due(self, deps: Deps) -> int:
        self._deps = deps
        self._record(deps)
        now = deps.clock.now()
        if self._sending or self._soonest.later_than(now):
            return 0
        with deps.uow() as uow:
            claimed = uow.notifications.claim_mail(now, now + self.lease, self.batch)
            uow.commit()
        if not claimed:
            self._soonest.forget()
            return 0
        revealer = None if deps.vault is None else Revealer(deps.vault.keys, deps.vault.opened)
        for item in claimed:
            try:
                message = self._compose(deps, item, revealer, now)
            except ValueError as error:  # nothing to say (a digest of no game)
                message, why = None, str(error)
            else:
                why = "not wanted"
            if message is None:
                with self._lock:
                    self._done.append(MailOutcome(item, True, why, None))
                continue
            with self._lock:
                self._sending += 1
            self._pool.submit(self._send, deps, item, message)
        self._record(deps)
        return len(claimed)

    def _open(self, revealer: Revealer | None, sealed: str | None) -> str | None:
        if sealed is None or revealer is None:
            return sealed
        return revealer.value(sealed)

    def _compose(
        self, deps: Deps, item: Mail, revealer: Revealer | None, now: datetime
    ) -> EmailMessage | None:
        """The message, or None when it is no longer wanted (mail off, the address not
        verified or erased, the turn's clock already run out)."""
        kind = item.payload.get("type")
        common = {"lang": item.lang, "sender": self.sender, "public_url": self.public_url}
        if kind == "verification":
            to = self._open(revealer, item.payload.get("address"))
            code = self._open(revealer, item.payload.get("code"))
            if to is None or code is None:
                return None
            return compose.verification(to, code, now=now, **common)
        to = self._open(revealer, item.address)
        if to is None or item.token is None:
            return None
        leave = compose.unsubscribe_url(self.public_url, item.token)
        if kind == "reminder" and item.game_id is not None:
            deadline = datetime.fromisoformat(item.payload["deadline"])
            if deadline <= now:
                return None
            minutes = max(1, math.ceil((deadline - now).total_seconds() / 60))
            return compose.reminder(
                to, item.game_id, minutes, unsubscribe_url=leave, now=now, **common
            )
        if kind == "digest":
            with deps.uow() as uow:
                waiting = uow.notifications.waiting(UUID(item.payload["player_id"]))
            games = [WaitingGame(w.game_id, w.since or now, []) for w in waiting]
            period = str(item.payload.get("period", "daily"))
            return compose.digest(to, games, period, unsubscribe_url=leave, now=now, **common)
        raise ValueError(f"no such message: {kind}")

    def _send(self, deps: Deps, item: Mail, message: EmailMessage) -> None:
        outcome = MailOutcome(item, True, None, None)
        try:
            self.mailer.send(message)
        except MailError as error:
            outcome = self._failed(deps, item, error)
        except Exception as error:  # a bug must not lose the outcome (the row would stay claimed)
            log.error("mail %s: %s", item.id, type(error).__name__)  # not its text: addresses
            outcome = MailOutcome(item, True, type(error).__name__, None)
        with self._lock:
            self._sending -= 1
            self._done.append(outcome)
        self.wake()

    def _failed(self, deps: Deps, item: Mail, error: MailError) -> MailOutcome:
        # What is kept and logged of a failure is its SMTP code alone: a server's reply
        # text often repeats the address (personal data, unsealed in last_error).
        what = f"SMTP {error.code}" if error.code else "no answer from the SMTP server"
        if not error.temporary:
            return MailOutcome(item, True, f"{what}, refused for good", None)
        delay = min(FIRST_RETRY * 2**item.attempts, MAX_RETRY) * self._chance.uniform(0.8, 1.2)
        later = deps.clock.now() + timedelta(seconds=delay)
        if later - item.created_at >= KEEP:
            return MailOutcome(item, True, f"{what}; given up after {KEEP}", None)
        return MailOutcome(item, False, what, later)

    def _record(self, deps: Deps) -> None:
        with self._lock:
            done, self._done = self._done, []
        if not done:
            return
        with deps.uow() as uow:
            uow.notifications.record_mail(done, deps.clock.now())
            uow.commit()
        for o in done:
            if o.retry_at is not None:
                self._soonest.sooner(o.retry_at)
            if o.error:
                log.info("mail %s: %s", o.mail.id, o.error)

    def next_due(self, deps: Deps) -> datetime | None:
        with self._lock:
            if self._done:
                return deps.clock.now()
        if self._sending:
            return None

        def read() -> datetime | None:
            with deps.uow() as uow:
                return uow.notifications.next_mail()

        return self._soonest.get(deps.clock.now(), read)

    def in_flight(self) -> int:
        with self._lock:
            return self._sending + len(self._done)

    def wants(self, note: str) -> bool:
        if note == OUTBOX_NOTE:
            self._soonest.forget()
            return True
        return False

    def close(self) -> None:
        self._pool.shutdown(wait=True)  # the message being sent ends (its timeout bounds it)
        if self._deps is not None:
            self._record(self._deps)
        self.mailer.close()
