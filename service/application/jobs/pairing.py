"""Quick play's pairing: the pools whose open seeks may make a game now, each paired by
the PairSeeks command (service/application/seeks/handlers.py) until it makes no more.

A new seek announces itself on the worker's channel with its commit (``seek``), so a
full set is paired as soon as its last seek is in. Time alone brings work too: a seek's
bots falling due, a rated seek's range widening, a seek expiring; the store says when
the first two of those next happen for open seeks, and a pool that made no game says
when it may (its next widening), so the worker wakes then.

Each PairSeeks is sent with an Idempotency-Key of its own: when the connection breaks as
it commits, it is sent again under the same key, and either replays what was done or
does it (never twice). Any number of workers pair at once: the command holds its pool.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from uuid import uuid4

from service.application.commands import Context, PairSeeks
from service.application.deps import Deps
from service.application.identity.principals import Operator
from service.application.jobs.source import SEEK_NOTE, Soonest
from service.application.ports import StoreUnavailableError
from service.application.results import Paired
from service.application.seeks.ports import Pool
from service.application.write.registry import execute

log = logging.getLogger("yokai.worker")

REST_AT_MOST = timedelta(seconds=30)
"""The longest a pool that made no game but may by time is left alone (it is looked at
again sooner when a new seek comes, or when its next chance comes first)."""

_CHANCE = random.SystemRandom()


def draw(players: int) -> tuple[int, ...]:
    """The seats in a random order: who takes which (handlers.py, PairSeeks)."""
    return tuple(_CHANCE.sample(range(players), players))


@dataclass
class Pairing:
    """Pools whose seeks may make a game now, paired one game at a time."""

    worker: str = "worker"
    batch: int = 100  # pools looked at per run, and seeks expired per run
    draw: Callable[[int], tuple[int, ...]] = draw
    # New seeks are announced; the times that only pass are read again at least this often.
    _soonest: Soonest = field(default_factory=lambda: Soonest(timedelta(seconds=30)))
    _resting: dict[str, datetime] = field(default_factory=dict)  # pool key -> until when

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if self._soonest.later_than(now) and not self._rested(now):
            return 0  # the loop was woken for other work
        with deps.uow() as uow:
            expired = uow.seeks.expire(now, self.batch)
            pools = uow.seeks.pools(now, self.batch)
        self._soonest.forget()
        self._resting = {key: until for key, until in self._resting.items() if until > now}
        if expired:
            log.info("expired %d seeks", expired)
        made = 0
        for pool in pools:
            if pool.key not in self._resting:
                made += self._pair(deps, pool, now)
        return made

    def _pair(self, deps: Deps, pool: Pool, now: datetime) -> int:
        """Games made of the pool until it makes none (then it rests until it may)."""
        made = 0
        while True:
            try:
                done = self._send(deps, PairSeeks(pool, self.draw(pool.players)))
            except StoreUnavailableError:
                raise  # the loop waits for the store; the seeks stay open meanwhile
            except Exception:
                # A fault of the server: logged; the pool is tried again later (no seek is
                # lost: a pairing that failed did nothing).
                log.exception("pairing seeks of %s failed", pool.key)
                self._resting[pool.key] = now + REST_AT_MOST
                return made
            if done.game_id is None:
                if done.retry_at is not None:  # (else only a new seek changes it)
                    self._resting[pool.key] = min(done.retry_at, now + REST_AT_MOST)
                return made
            made += 1
            log.info("paired %d seeks of %s into game %s", done.matched, pool.key, done.game_id)

    def _send(self, deps: Deps, command: PairSeeks) -> Paired:
        key = f"pairing:{uuid4()}"
        ctx = Context(Operator(), request_id=f"{self.worker}:pair", idempotency_key=key)
        try:
            return execute(deps, command, ctx).result
        except StoreUnavailableError as broken:
            if not broken.maybe_committed:
                raise
            # Done or not, only the store knows: the same key replays it, or does it.
            return execute(deps, command, ctx).result

    def _rested(self, now: datetime) -> bool:
        """Whether a pool that rested may be tried again now."""
        return any(until <= now for until in self._resting.values())

    def next_due(self, deps: Deps) -> datetime | None:
        now = deps.clock.now()

        def read() -> datetime | None:
            with deps.uow() as uow:
                return uow.seeks.next_due(now)

        # A seek's bots that fell due since the last read (while the worker's loop was
        # busy) are due now: the store's next time is after now, so a read would skip them.
        due = self._soonest.come(now) or self._soonest.get(now, read)
        return min([t for t in (due, *self._resting.values()) if t is not None], default=None)

    def in_flight(self) -> int:
        return 0  # each pool is paired in the worker's own thread

    def close(self) -> None:
        pass

    def wants(self, note: str) -> bool:
        if note != SEEK_NOTE:
            return False  # due games and deliveries: another source's
        self._resting.clear()  # a new seek: any pool may make a game now
        self._soonest.forget()
        return True
