"""The worker's review job: the hand reviews asked for, computed one decision per run, in
the order they were asked for (service/application/review/compute.py); and a whole review
computed at once for ``yokai review`` (:func:`computed`). Never in a request (an import
contract: pyproject.toml).

It yields to the bots: while a game is due (a bot's move, a turn clock) it takes nothing,
and one run reviews one decision (a tenth to a third of a second of CPU), so a bot's move
that falls due meanwhile waits at most that long (the worker's loop asks every source in
turn: service/worker.py). A decision is appended only if the decisions stored are those
it followed, so two workers never store one twice; a review whose computation raises is
marked failed (asked again, it is queued again).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from service import rules
from service.application.deps import Deps
from service.application.errors import GameNotFoundError
from service.application.games.codec import decode
from service.application.jobs.source import Soonest
from service.application.ports import StoreUnavailableError
from service.application.review import queries
from service.application.review.compute import (
    PASS_WORLDS,
    PLAY_WORLDS,
    positions,
    review,
    review_game,
)
from service.application.review.handlers import LEVEL, GameNotFinishedError
from service.application.review.model import as_json, summary, summary_json
from service.application.review.ports import REVIEW_NOTE, Status

log = logging.getLogger("yokai.worker")

REST = timedelta(seconds=30)
"""How often the store is read again for reviews nobody announced."""


@dataclass
class ReviewJobs:
    play_worlds: int = PLAY_WORLDS
    pass_worlds: int = PASS_WORLDS
    _soonest: Soonest = field(default_factory=lambda: Soonest(REST), kw_only=True)

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if self._soonest.later_than(now):
            return 0
        with deps.uow(snapshot=True) as uow:
            bots = uow.wakeups.next_due()
            found = uow.reviews.next_waiting() if bots is None or bots > now else None
            rows = uow.events.load(found.game_id) if found is not None else []
        if found is None:
            self._soonest.forget()
            return 0  # nothing to review, or bots to let move first
        done = len(found.decisions)
        try:
            events = [decode(r) for r in rows]
            todo = positions(events)
            decision = (
                as_json(review(events, todo[done], found.seed, self.play_worlds, self.pass_worlds))
                if done < len(todo)
                else None  # none left (a game without a pass or a play): it is done
            )
        except StoreUnavailableError:
            raise
        except Exception:
            log.exception("reviewing game %s failed", found.game_id)
            with deps.uow() as uow:
                uow.reviews.fail(found.game_id, deps.clock.now())
                uow.commit()
            return 1
        status = Status.DONE if done + 1 >= len(todo) else Status.RUNNING
        with deps.uow() as uow:
            uow.reviews.add(found.game_id, done, decision, status, deps.clock.now())
            uow.commit()
        return 1

    def next_due(self, deps: Deps) -> datetime | None:
        def read() -> datetime | None:
            with deps.uow(snapshot=True) as uow:
                return deps.clock.now() if uow.reviews.waiting() else None

        return self._soonest.get(deps.clock.now(), read)

    def in_flight(self) -> int:
        return 0  # each decision is reviewed in the worker's own thread

    def close(self) -> None:
        pass

    def wants(self, note: str) -> bool:
        if note != REVIEW_NOTE:
            return False
        self._soonest.forget()
        return True


def computed(deps: Deps, game_id: UUID) -> dict[str, Any]:
    """The game's review: the stored one once done, else computed here and now, as the
    worker would (``yokai review``; nothing is stored)."""
    with deps.uow(snapshot=True) as uow:
        found = uow.reviews.get(game_id)
        rows = [] if found is not None and found.status is Status.DONE else uow.events.load(game_id)
    if found is not None and found.status is Status.DONE:
        return queries.review(deps, game_id)
    if not rows:
        raise GameNotFoundError(f"no game {game_id}")
    events = [decode(r) for r in rows]
    state = rules.fold(events)
    if state.phase is not rules.Phase.FINISHED or state.config is None:
        raise GameNotFinishedError("a game is reviewed once it is over")
    decisions = review_game(events, deps.review_seed)
    return {
        "status": Status.DONE.value,
        "level": LEVEL,
        "decisions": [as_json(d) for d in decisions],
        "summary": [summary_json(s) for s in summary(state.config.players, decisions)],
    }
