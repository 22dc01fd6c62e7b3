"""Games that are due (a bot must act, a turn clock ran out), claimed from the store and
advanced by the Advance command."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from service.application.commands import Advance, Context
from service.application.deps import Deps
from service.application.identity.principals import Operator
from service.application.jobs.source import LEASE, OUTBOX_NOTE, RATING_NOTE, SEEK_NOTE, Soonest
from service.application.ports import StoreUnavailableError
from service.application.write.registry import execute

log = logging.getLogger("yokai.worker")


@dataclass
class DueGames:
    """Games whose bot must move or whose turn clock ran out."""

    lease: timedelta = LEASE
    batch: int = 20
    worker: str = "worker"
    slice_seconds: float = 1.0
    """The longest one call runs: the games of a batch not reached by then are handed
    back (due again at once), so the worker's loop looks at its other work (a seek
    whose bots fell due, say) at least this often however slowly bots move."""
    # Every wakeup set is announced with its time; what this worker claims it forgets.
    _soonest: Soonest = field(default_factory=lambda: Soonest(timedelta(seconds=30)))

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if self._soonest.later_than(now):
            return 0  # the loop was woken for other work (a webhook delivery)
        lease_until = now + self.lease
        with deps.uow() as uow:
            claimed = uow.wakeups.claim(now, lease_until, self.batch)
        self._soonest.forget()
        ends = time.monotonic() + self.slice_seconds
        for done_count, game_id in enumerate(claimed):
            if done_count and time.monotonic() >= ends:
                with deps.uow() as uow:
                    uow.wakeups.release(claimed[done_count:], lease_until, deps.clock.now())
                return done_count
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
                log.debug("game %s advanced to version %d", game_id, done.version)
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
        if note in (OUTBOX_NOTE, SEEK_NOTE, RATING_NOTE):
            return False
        try:  # a game's wakeup: its due time
            self._soonest.sooner(datetime.fromisoformat(note))
        except ValueError:
            self._soonest.forget()
        return True
