"""The worker's jobs, as the application sees them: games that are due (a bot must act,
a turn clock ran out) are claimed from the store and advanced by the ``Advance``
command. A :class:`JobSource` is what the worker loop (service/worker.py) runs; webhook
deliveries will be another source in the same loop.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from service.application.commands import Advance, Context
from service.application.deps import Deps
from service.application.handlers import execute
from service.application.identity import Operator
from service.application.ports import StoreUnavailableError

log = logging.getLogger("yokai.worker")

LEASE = timedelta(seconds=30)
"""How long a claimed game is left to the worker that claimed it: a worker that stops
before it acts leaves the game to another once this has passed."""


class JobSource(Protocol):
    def run_due(self, deps: Deps) -> int:
        """Do the jobs due now (a batch); how many were taken."""
        ...

    def next_due(self, deps: Deps) -> datetime | None:
        """When the next job falls due, if one is known."""
        ...


@dataclass
class DueGames:
    """Games whose bot must move or whose turn clock ran out."""

    lease: timedelta = LEASE
    batch: int = 20
    worker: str = "worker"

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        with deps.uow() as uow:
            claimed = uow.wakeups.claim(now, now + self.lease, self.batch)
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
        with deps.uow() as uow:
            return uow.wakeups.next_due()
