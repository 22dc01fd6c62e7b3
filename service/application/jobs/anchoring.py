"""Anchoring the games' chain heads outside the database, by the clock."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.application.deps import Deps
from service.application.integrity import anchors
from service.application.jobs.source import ByTheClock

log = logging.getLogger("yokai.worker")


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
