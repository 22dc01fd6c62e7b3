"""The relay: committed commands, read from the event log in commit order, announced on a
message bus (Redis pub/sub) for every web node and worker of a deployment to hear, so
that the write path need not announce them itself (PostgreSQL's NOTIFY, which serialises
the commits that send it and wakes every listening backend; docs/operations.md).

**Commit order without NOTIFY.** Every event row carries the id of the transaction that
appended it (``transaction_id``, PostgreSQL's ``pg_current_xact_id()``) and its place in
the append order (``position``), and the relay reads every game's events after the last
position it announced, ordered by both, but only below the *transaction-id watermark*
``pg_snapshot_xmin(pg_current_snapshot())``: the oldest transaction still running. A
transaction's id is taken when it first writes, not when it commits, so a reader that took
every row committed so far could pass over a row of an older transaction that commits
after it; below the watermark every transaction has ended, so nothing can appear there
any more, and the relay never skips one (service/adapters/postgres/events.py, the same
query that feeds the feeds across games). Chosen over the alternatives because it needs
nothing the schema does not have: logical decoding (``pgoutput``) would need
``wal_level=logical`` and a replication slot that must follow a failover (Patroni's
permanent slots); commit timestamps (``track_commit_timestamp``) are off by default and
not unique. Its cost: a write transaction that stays open holds back the announcement of
everything that commits after it (the service's own commands last milliseconds; a
long-running write of an operator's delays delivery while it runs, and loses nothing).

**One relay at a time.** Any number of processes may run one; each waits for the relay's
lock (:meth:`CommitLog.hold`, a PostgreSQL session lock: when its holder dies, or its
connection does, the database releases it and another process takes over, from the
position the last holder saved).

**What is announced.** Each command as ``describe`` makes it: its head (``g <game>
<version> <previous version>``, the listeners' form) with its events sealed
(service/adapters/bus.py ``BusSeal``: the bus is outside the database's trust, so no
hand, pass or name is readable there), then each player with an inbox entry of the
batch's games (``p <player>``).

**At least once, in order.** A batch is announced, then its position saved; a relay that
dies between the two announces that batch again when the next one starts. Listeners treat
an announcement as "look again" (what changed is read from the store by ``seq``), so an
announcement heard twice costs a read, never a wrong answer. One announcement is one
command's events of one game, never split: a batch that ends inside a commit stops before
it, unless that commit alone fills the batch.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Sequence
from itertools import groupby
from typing import Protocol
from uuid import UUID

from service.application.live.hub import player_key
from service.application.ports import Position, StoredEvent

log = logging.getLogger(__name__)

FIRST_DELAY = 0.1
LONGEST_DELAY = 5.0


class AnnounceError(Exception):
    """The bus did not take the announcements (nothing was acknowledged)."""


class CommitLog(Protocol):
    """The event log as the relay reads it, and the relay's lock and position."""

    def hold(self) -> bool:
        """Take the relay's lock if no other process holds it (True: held, until
        :meth:`reset` or the connection's end)."""
        ...

    def start(self) -> Position | None:
        """The position to announce from: the last one saved, else the log's end (the
        commits before the first relay are not announced: listeners read the store when
        they start). None: the log is empty."""
        ...

    def committed_after(
        self, after: Position | None, limit: int
    ) -> list[tuple[Position, StoredEvent]]:
        """Up to ``limit`` events of every game after ``after``, in commit order, none of
        a transaction that may still commit before them."""
        ...

    def players(self, games: Collection[UUID]) -> list[UUID]:
        """The players with an inbox entry of ``games`` (it changed with the games)."""
        ...

    def save(self, position: Position) -> None:
        """The position announced last (read by :meth:`start`)."""
        ...

    def reset(self) -> None:
        """Drop the connection (and so the lock): the next :meth:`hold` connects anew."""
        ...


class Announcer(Protocol):
    def announce(self, payloads: Sequence[str]) -> None:
        """Publish ``payloads`` in order, or raise :class:`AnnounceError`."""
        ...


def commits(
    rows: Sequence[tuple[Position, StoredEvent]],
) -> list[tuple[Position, list[StoredEvent]]]:
    """``rows`` as commands: the runs of one transaction's events of one game, each with
    the position of its last event."""
    found = []
    for _, run in groupby(rows, key=lambda r: (r[0].transaction, r[1].game_id)):
        command = list(run)
        found.append((command[-1][0], [event for _, event in command]))
    return found


class Relay:
    """Announces each command committed to ``commit_log`` on ``announcer``, in commit
    order; ``describe`` makes a command's announcement from its events (a head the
    listeners parse, then what it carries: service/adapters/bus.py ``BusSeal``)."""

    def __init__(
        self,
        commit_log: CommitLog,
        announcer: Announcer,
        describe: Callable[[Sequence[StoredEvent]], str],
        *,
        batch: int = 500,
        poll_seconds: float = 0.01,
        takeover_seconds: float = 1.0,
    ) -> None:
        self._log = commit_log
        self._announcer = announcer
        self._describe = describe
        self._batch = batch
        self._poll = poll_seconds
        self._takeover = takeover_seconds
        self._position: Position | None = None
        self.holding = False
        self.announced = 0  # commands announced by this process
        self._full = False  # the last step read a whole batch: more may be waiting
        self.stopping = threading.Event()

    @property
    def position(self) -> Position | None:
        """The position announced last (None before the first)."""
        return self._position

    def take_over(self) -> bool:
        """Hold the lock and learn where to go on from (False: another relay holds it)."""
        if not self._log.hold():
            return False
        self._position = self._log.start()
        if self._position is not None:
            # Saved at once: a first relay that stopped before its first batch would
            # otherwise start again at the log's new end, past what committed meanwhile.
            self._log.save(self._position)
        self.holding = True
        log.info("relay: holding the lock, announcing after %s", self._position)
        return True

    def step(self) -> int:
        """Announce the commands committed since the last step (a batch at most): how
        many events that covered. Raises :class:`AnnounceError` with nothing saved when
        the bus did not take them."""
        rows = self._log.committed_after(self._position, self._batch)
        self._full = len(rows) >= self._batch
        if not rows:
            return 0
        found = commits(rows)
        if self._full and len(found) > 1:
            found.pop()  # it may go on past the batch: the next step announces it whole
        payloads = [self._describe(events) for _, events in found]
        # Then their players, whose inboxes the commits changed (the inbox's trigger does
        # not announce those where a relay runs: migration 0016).
        payloads += [player_key(p) for p in self._log.players({e[0].game_id for _, e in found})]
        self._announcer.announce(payloads)
        last = found[-1][0]
        self._log.save(last)
        self._position = last
        self.announced += len(found)
        return sum(len(events) for _, events in found)

    def run(self) -> None:
        """Hold the lock (waiting for it) and announce, until :meth:`stop`. A failure of
        the store drops the connection and the lock and takes them again; one of the bus
        retries the same batch; both back off from 0.1 s up to 5 s."""
        delay = FIRST_DELAY
        while not self.stopping.is_set():
            try:
                if not self.holding and not self.take_over():
                    self.stopping.wait(self._takeover)
                    continue
                self.step()
            except AnnounceError as error:
                log.warning("relay: the bus refused: %s; again in %.1f s", error, delay)
            except Exception:
                log.exception("relay: the store failed; reconnecting in %.1f s", delay)
                self._let_go()
            else:
                delay = FIRST_DELAY
                if not self._full:
                    self.stopping.wait(self._poll)
                continue
            self.stopping.wait(delay)
            delay = min(delay * 2, LONGEST_DELAY)
        self._let_go()

    def stop(self) -> None:
        self.stopping.set()

    def _let_go(self) -> None:
        self.holding = False
        try:
            self._log.reset()
        except Exception:
            log.exception("relay: dropping the connection failed")
