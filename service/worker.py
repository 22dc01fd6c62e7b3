"""`yokai worker`: the process that acts without a request.

It runs the application's job sources (service/application/jobs/: games whose bot
must move or whose turn clock ran out, quick play's pairing of seeks, housekeeping,
anchoring, hand reviews; and the webhook dispatcher,
service/application/webhooks/dispatcher.py) in a loop:

- run what is due now, in batches, until nothing is;
- then sleep until the next job falls due, or until PostgreSQL announces a sooner one on
  the channel ``yokai_jobs`` (written with the events that make a job due:
  service/adapters/postgres/wakeups.py), whichever comes first. No table is polled: the
  worker reads the next due time once per wake-up, and an idle worker wakes at most
  every ``POLL_SECONDS`` to check that its listening connection is still alive. With
  YOKAI_REDIS_URL the announcements come over Redis instead (service/adapters/bus_listening.py
  ``JobNotes``: published once the commands have committed); while Redis is away the
  worker looks at its jobs every ``DEAF_SECONDS``.

Several workers, on any machines, share the work: a job is claimed with FOR UPDATE SKIP
LOCKED, and what is done is decided in the command's own transaction, so nothing is
done twice (jobs/source.py). SIGTERM or SIGINT stops the loop after the job in hand; a job
claimed but not done is taken by another worker when its lease ends. A worker whose
database goes away retries with backoff (up to 5 s) and carries on when it is back.

While its loop turns (every batch of jobs, every second of sleep, every retry) the worker
touches a heartbeat file (YOKAI_WORKER_HEARTBEAT); `yokai worker --check-alive`, the
containers' health check and liveness probe, fails once it is older than a minute: a
worker stuck in a job or a wait that never ends is restarted, one waiting for its
database is not (it still beats).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

import psycopg

from service.adapters.postgres.engine import libpq_conninfo
from service.adapters.postgres.listening import listening_connection
from service.adapters.postgres.wakeups import CHANNEL
from service.application.deps import Deps
from service.application.jobs.due_games import DueGames
from service.application.jobs.housekeeping import Housekeeping
from service.application.jobs.pairing import Pairing
from service.application.jobs.rating import RatingUpdates
from service.application.jobs.source import LEASE, OUTBOX_NOTE, UNHEARD, JobSource
from service.application.notify.mail import Mailer
from service.application.notify.mailing import Digests, MailDeliveries, Reminders
from service.application.notify.pushes import PushDeliveries, PushMessages
from service.application.ports import StoreUnavailableError
from service.application.review.jobs import ReviewJobs
from service.application.webhooks.delivery import FIRST_RETRY, Sender
from service.application.webhooks.dispatcher import WebhookDeliveries

log = logging.getLogger("yokai.worker")

POLL_SECONDS = 30.0
"""The longest an idle worker sleeps without looking at its connection."""
DEAF_SECONDS = 1.0
"""The longest it sleeps while it cannot hear the announcements (the bus away)."""
SLICE_SECONDS = 1.0
"""Waits are cut into slices this long, so a stop request is heard within one."""
BUSY_SLICE = 0.05
"""The slices while deliveries are under way: one that ends frees a place soon."""
OUTBOX_LINGER = 0.05
"""How long the loop waits, once told of a new outbox row, before it claims: the rows
committed meanwhile are claimed (and their attempts recorded) together, so a busy
service pays one claim and one record per batch of deliveries, not per delivery, for
at most this much more delivery lag."""
HEARTBEAT_SECONDS = 1.0
"""The heartbeat file is touched at most this often."""
ALIVE_SECONDS = 60.0
"""`yokai worker --check-alive`: a heartbeat older than this is a worker stuck."""


class Heartbeat:
    """A file whose modification time says when the worker's loop last turned."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last = float("-inf")
        self._warned = False

    def beat(self) -> None:
        now = time.monotonic()
        if now - self._last < HEARTBEAT_SECONDS:
            return
        self._last = now
        try:
            self.path.touch()
        except OSError as error:
            if not self._warned:  # the probe will say so; once in the log is enough
                log.warning("heartbeat %s: %s", self.path, error)
                self._warned = True


def heartbeat_age(path: Path) -> float | None:
    """Seconds since the worker whose heartbeat is ``path`` last beat; None: never."""
    try:
        return max(0.0, time.time() - path.stat().st_mtime)
    except FileNotFoundError:
        return None


class PushTransport(Sender, Protocol):
    """The pushes' sender, closed when the worker stops."""

    def close(self) -> None: ...


class Notes(Protocol):
    """Where the worker hears that a job is due sooner than it knew: PostgreSQL's
    ``yokai_jobs`` (:class:`PgNotes`), or, with YOKAI_REDIS_URL, the bus
    (service/adapters/bus_listening.py ``JobNotes``)."""

    @property
    def deaf(self) -> bool:
        """Whether announcements may go unheard now (then the worker looks often)."""
        ...

    def listen(self) -> None: ...

    def heard(self, timeout: float) -> list[str]:
        """What was heard within ``timeout`` seconds (0: without waiting): nothing, or the
        first announcements to come and every one received with them. All of them: the
        caller tells each to the sources, for an announcement read and not told is lost."""
        ...

    def check(self) -> None:
        """After a wait that heard nothing: raise if the connection died in silence."""
        ...

    def close(self) -> None: ...


class PgNotes:
    """The announcements on ``yokai_jobs``, on a listening connection of the worker's."""

    def __init__(self, conninfo: str) -> None:
        self._conninfo = conninfo
        self._conn: psycopg.Connection[Any] | None = None

    @property
    def deaf(self) -> bool:
        """Before its connection listens, or once it was lost: what was announced
        meanwhile went unheard."""
        return self._conn is None or self._conn.closed

    def listen(self) -> None:
        if not self.deaf:
            return
        self._conn = listening_connection(self._conninfo, CHANNEL, "yokai-worker")

    def heard(self, timeout: float) -> list[str]:
        assert self._conn is not None
        # Read to the end: psycopg hands out the notifications of one read one by one, and
        # those of a read left unfinished are dropped (stop_after ends it with its read).
        return [note.payload for note in self._conn.notifies(timeout=timeout, stop_after=1)]

    def check(self) -> None:
        assert self._conn is not None
        self._conn.execute("SELECT 1")  # a dead connection raises here, not in silence

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error):
                conn.close()


class Worker:
    def __init__(
        self,
        deps: Deps,
        database_url: str,
        sources: Sequence[JobSource] | None = None,
        *,
        name: str | None = None,
        lease: timedelta = LEASE,
        sender: Sender | None = None,
        webhook_lease: timedelta = timedelta(seconds=60),
        first_retry: float = FIRST_RETRY,
        keep_keys: timedelta = timedelta(hours=24),
        waiting: timedelta = timedelta(days=7),
        webhook_keep: timedelta = timedelta(days=7),
        address_days: timedelta = timedelta(days=30),
        heartbeat: Path | None = None,
        anchoring: JobSource | None = None,
        notes: Notes | None = None,
        pushes: tuple[PushTransport, PushMessages, str] | None = None,
        mail: tuple[Mailer, str, str] | None = None,
    ) -> None:
        self.name = name or f"worker-{socket.gethostname()}-{os.getpid()}"
        self._deps = deps
        self._heartbeat = Heartbeat(heartbeat) if heartbeat is not None else None
        self._woken = threading.Event()
        self._closing: list[PushTransport] = []  # closed once the sources have stopped
        default: list[JobSource] = [
            DueGames(lease=lease, worker=self.name),
            Pairing(worker=self.name),
            RatingUpdates(),
            Housekeeping(
                keep=keep_keys,
                waiting=waiting,
                webhook_keep=webhook_keep,
                address_days=address_days,
            ),
        ]
        if anchoring is not None:  # the chain heads, anchored outside the database
            default.append(anchoring)
        default.append(ReviewJobs())  # last: it yields to the bots (its docstring)
        if sender is not None:
            default.append(
                WebhookDeliveries(
                    sender, lease=webhook_lease, first_retry=first_retry, wake=self._woken.set
                )
            )
        if pushes is not None:  # sent like webhooks, beside the loop (notify/pushes.py)
            transport, messages, public_url = pushes
            default.append(PushDeliveries(transport, messages, public_url, wake=self._woken.set))
            self._closing.append(transport)
            default.append(Reminders())
        if mail is not None:  # (YOKAI_SMTP_URL) in a thread of its own: notify/mailing.py
            mailer, sender_address, public_url = mail
            default.append(MailDeliveries(mailer, sender_address, public_url, wake=self._woken.set))
            default.append(Digests())  # digests are mail only: none without a server
        self._sources = list(sources) if sources is not None else default
        self._notes = notes if notes is not None else PgNotes(libpq_conninfo(database_url))
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Stop after the job in hand (safe from a signal handler)."""
        self._stopping.set()

    def run(self) -> None:
        log.info("%s: started", self.name)
        delay = 0.1
        try:
            while not self._stopping.is_set():
                self._beat()
                try:
                    deaf = self._notes.deaf  # until it listens again, if it does now
                    self._listen()
                    if deaf:  # what was announced meanwhile went unheard
                        for source in self._sources:
                            for note in UNHEARD:
                                source.wants(note)
                    self._run_due()
                    if self._stopping.is_set():
                        break
                    self._sleep(self._next_due())
                    delay = 0.1
                except (StoreUnavailableError, psycopg.Error) as error:
                    self._close()
                    log.warning("%s: %s; trying again in %.1f s", self.name, error, delay)
                    self._stopping.wait(delay)
                    delay = min(delay * 2, 5.0)
        finally:
            for source in self._sources:
                source.close()  # the jobs in hand finish
            for transport in self._closing:
                transport.close()
            self._close()
            log.info("%s: stopped", self.name)

    def _run_due(self) -> None:
        """Every source's due jobs, batch after batch, until none has any left. A source
        that had none is asked again once work for it is announced or falls due: the
        announcements and the sources' due times are looked at between batches, every
        ``SLICE_SECONDS``, so one source's long run of jobs (bots playing move after move)
        does not keep another's waiting until it ends."""
        busy = list(self._sources)
        looked = time.monotonic()
        while busy and not self._stopping.is_set():
            self._beat()
            busy = [s for s in busy if not self._stopping.is_set() and s.run_due(self._deps) > 0]
            if busy and time.monotonic() - looked >= SLICE_SECONDS:
                looked = time.monotonic()
                busy += self._due_meanwhile([s for s in self._sources if s not in busy])

    def _due_meanwhile(self, idle: list[JobSource]) -> list[JobSource]:
        """The ``idle`` sources that may have work now: told of it by what was announced
        since the last look (heard without waiting; every source is told), or due by
        their own time."""
        wanting: set[int] = set()
        for note in [] if self._notes.deaf else self._notes.heard(0):
            wanting.update(self._wanting(note))
        now = self._deps.clock.now()
        return [
            s
            for s in idle
            if self._sources.index(s) in wanting
            or ((due := s.next_due(self._deps)) is not None and due <= now)
        ]

    def _next_due(self) -> datetime | None:
        dues = [d for s in self._sources if (d := s.next_due(self._deps)) is not None]
        return min(dues, default=None)

    def _sleep(self, due: datetime | None) -> None:
        """Until ``due``, an announced job due sooner, a stop request, or POLL_SECONDS
        (DEAF_SECONDS while announcements may go unheard)."""
        notes = self._notes
        now = self._deps.clock.now()
        wake = now + timedelta(seconds=POLL_SECONDS)
        if due is not None:
            wake = min(wake, due)
        heard = False
        while not self._stopping.is_set():
            self._beat()
            if notes.deaf:  # then what is announced goes unheard: look again soon
                wake = min(wake, now + timedelta(seconds=DEAF_SECONDS))
            left = (wake - self._deps.clock.now()).total_seconds()
            if left <= 0 or self._woken.is_set():
                break
            # While attempts are under way (beside this loop), their ends are looked for often.
            busy = any(source.in_flight() for source in self._sources)
            found = notes.heard(min(left, BUSY_SLICE if busy else SLICE_SECONDS))
            heard = heard or bool(found)
            # Every note is told to the sources before the loop looks again: one left
            # untold is a wake-up lost (a seek's, behind a game's due time).
            wanted = [note for note in found if self._wanted(note, wake)]
            if any(note != OUTBOX_NOTE for note in wanted):
                return  # look again now
            if wanted:
                # New deliveries: claimed after the linger with the rows committed
                # meanwhile. The connection is not read during it (those rows' notes wait
                # for the next sleep), so a busy service wakes once a linger, not once a
                # commit.
                self._stopping.wait(OUTBOX_LINGER)
                break
        self._woken.clear()
        if not heard:
            notes.check()

    def _wanted(self, note: str, wake: datetime) -> bool:
        """Whether an announcement calls for a look now: one that some source may take
        work from (a new outbox row while every delivery place is taken does not: the end
        of an attempt wakes the loop) and, for a due time, one sooner than ``wake``."""
        if not self._wanting(note):
            return False
        return note == OUTBOX_NOTE or _sooner(note, wake)

    def _wanting(self, note: str) -> list[int]:
        """The sources (their places) that may take work from an announcement; each
        source is told of it (it may keep what it says), whatever the others answer."""
        return [i for i, source in enumerate(self._sources) if source.wants(note)]

    def _beat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.beat()

    def _listen(self) -> None:
        self._notes.listen()

    def _close(self) -> None:
        self._notes.close()


def _sooner(payload: str, wake: datetime) -> bool:
    """Whether an announced wakeup (its due time, ISO 8601) is before ``wake``; one that
    cannot be read counts as sooner (looking again costs little)."""
    try:
        return datetime.fromisoformat(payload) < wake
    except ValueError:
        return True


def run_until_signalled(worker: Worker) -> None:
    """Run ``worker`` in this (main) thread until SIGTERM or SIGINT."""

    def stop(signum: int, _: FrameType | None) -> None:
        log.info("%s: %s: stopping after the job in hand", worker.name, signal.Signals(signum).name)
        worker.stop()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    worker.run()
