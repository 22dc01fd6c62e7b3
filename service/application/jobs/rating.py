"""The worker's ratings job: finished rated games, each applied to its players' ratings
once (service/application/ratings/update.py), in the order they finished.

A game's finish announces itself on the worker's channel with its commit (``rating``),
so its update is made at once; a game left due (a worker stopped mid-update) is found by
the due time the store gives, read again at least every 30 s.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from service.application.deps import Deps
from service.application.jobs.source import RATING_NOTE, Soonest
from service.application.ports import StoreUnavailableError
from service.application.ratings.update import rate_next

log = logging.getLogger("yokai.worker")

REST = timedelta(seconds=30)
"""How often the store's due time is read again, and how long a failed update rests."""


@dataclass
class RatingUpdates:
    batch: int = 50  # games rated per run at most
    _soonest: Soonest = field(default_factory=lambda: Soonest(REST))
    _resting: datetime | None = None  # after a failed update: tried again then

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if self._soonest.later_than(now) or (self._resting is not None and now < self._resting):
            return 0  # the loop was woken for other work, or rests after a failure
        done = 0
        while done < self.batch:
            try:
                game_id = rate_next(deps)
            except StoreUnavailableError:
                raise  # the loop waits for the store; the game stays due
            except Exception:
                # A fault of the server: logged, and tried again later (a failed update
                # did nothing; the game stays due).
                log.exception("updating ratings failed")
                self._resting = now + REST
                break
            if game_id is None:
                break
            done += 1
            log.info("ratings updated by game %s", game_id)
        self._soonest.forget()
        return done

    def next_due(self, deps: Deps) -> datetime | None:
        def read() -> datetime | None:
            with deps.uow(snapshot=True) as uow:
                return uow.ratings.due_at()

        due = self._soonest.get(deps.clock.now(), read)
        if due is not None and self._resting is not None:
            return max(due, self._resting)
        return due

    def in_flight(self) -> int:
        return 0  # each update is made in the worker's own thread

    def close(self) -> None:
        pass

    def wants(self, note: str) -> bool:
        if note != RATING_NOTE:
            return False
        self._soonest.forget()
        return True
