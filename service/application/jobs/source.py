"""What the worker loop (service/worker.py) runs: a JobSource, and what several sources
share (the lease of a claim, a kept soonest due time, sources that run by the clock)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from service.application.deps import Deps

log = logging.getLogger("yokai.worker")


OUTBOX_NOTE = "outbox"
"""What a commit that added rows to the outbox announces on the worker's channel
(service/adapters/postgres/webhooks.py ``fan_out``); wakeups announce their due time
instead."""

SEEK_NOTE = "seek"
"""What a new seek announces on the worker's channel, with its commit
(service/adapters/postgres/seeks.py): pairing may find a full set at once."""

RATING_NOTE = "rating"
"""What a finished rated game announces on the worker's channel, with its commit
(service/adapters/postgres/ratings.py): its update is due at once."""


UNHEARD = (OUTBOX_NOTE, SEEK_NOTE, RATING_NOTE, "unheard")
"""What the worker tells every source at each turn of its loop while announcements may go
unheard (service/worker.py: the bus away): each of the notes, as if announced (a game's
source takes the last, which is no due time, as "anything may be due"), so that no source
keeps a due time that a lost announcement would have made sooner."""


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
        """Whether an announcement on the worker's channel (a due time, ISO 8601,
        ``outbox`` or ``seek``) may give this source work it can take now."""
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

    def come(self, now: datetime) -> datetime | None:
        """The kept time, if it has come (and was read less than ``max_age`` ago): for a
        source whose store tells only the times still to come, a job due now that no run
        has taken yet, which reading again would lose."""
        with self._lock:
            fresh = self._read_at is not None and now - self._read_at < self.max_age
            return self._at if fresh and self._at is not None and self._at <= now else None

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
