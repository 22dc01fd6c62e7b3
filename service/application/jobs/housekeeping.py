"""What the worker forgets or ends by the clock: old idempotency outcomes, finished
deliveries, and games left waiting for players too long."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.application.commands import Context, ExpireGame
from service.application.deps import Deps
from service.application.errors import ApplicationError
from service.application.identity.principals import Operator
from service.application.jobs.source import ByTheClock
from service.application.ports import UnitOfWork
from service.application.write.registry import execute

log = logging.getLogger("yokai.worker")


@dataclass
class Housekeeping(ByTheClock):
    """Forgets what need not be kept for ever, every ``every``: outcomes stored under
    Idempotency-Keys older than ``keep`` (a retry after that is a new command), and
    webhook attempts logged (and deliveries finished, as rows written before finished
    ones were deleted at once) more than ``webhook_keep`` ago; the lobby's rows of games
    that left it more than ``lobby_keep`` ago (streams and long-polls have told of it);
    and ends games left waiting for players, unchanged, for ``waiting`` (GameExpired);
    and destroys the day keys client addresses and request ids were sealed under once
    the day is ``address_days`` behind (docs/privacy.md: they read null from then on).
    Turn notifications' rows that count no more: streams not refreshed for
    ``watchers_keep`` (a process that died: pushes wait for streams seen within 90 s),
    codes sent to verify an address ``codes_keep`` ago (the day's count is of the last
    day's; a code lives minutes), and the turns reminded of whose deadline is
    ``reminded_keep`` behind (a turn is reminded of before its deadline only)."""

    keep: timedelta = timedelta(hours=24)
    waiting: timedelta = timedelta(days=7)
    webhook_keep: timedelta = timedelta(days=7)
    lobby_keep: timedelta = timedelta(hours=1)
    address_days: timedelta = timedelta(days=30)
    watchers_keep: timedelta = timedelta(hours=1)
    codes_keep: timedelta = timedelta(days=7)
    reminded_keep: timedelta = timedelta(days=1)
    every: timedelta = timedelta(minutes=10)
    batch: int = 1000
    _next: datetime | None = None

    def run_due(self, deps: Deps) -> int:
        now = deps.clock.now()
        if not self._time_to_run(now):
            return 0
        forgotten = self._in_batches(deps, lambda uow: uow.idempotency.expire)(now - self.keep)
        if forgotten:
            log.info("forgot %d idempotency records older than %s", forgotten, self.keep)
        forgotten = self._in_batches(deps, lambda uow: uow.webhooks.forget)(now - self.webhook_keep)
        if forgotten:
            log.info("forgot %d webhook rows older than %s", forgotten, self.webhook_keep)
        forgotten = self._in_batches(deps, lambda uow: uow.lobby.forget)(now - self.lobby_keep)
        if forgotten:
            log.info(
                "forgot %d lobby rows of games that left it %s ago", forgotten, self.lobby_keep
            )
        forgets: list[tuple[str, timedelta, Callable[[UnitOfWork], Callable[[datetime, int], int]]]]
        forgets = [
            (
                "stale stream watchers",
                self.watchers_keep,
                lambda uow: uow.notifications.forget_watchers,
            ),
            ("address codes", self.codes_keep, lambda uow: uow.notifications.forget_codes),
            ("reminded turns", self.reminded_keep, lambda uow: uow.notifications.forget_reminders),
        ]
        for what, keep, forget in forgets:
            forgotten = self._in_batches(deps, forget)(now - keep)
            if forgotten:
                log.info("forgot %d %s older than %s", forgotten, what, keep)
        if deps.vault is not None:
            dropped = deps.vault.destroy_days_before((now - self.address_days).date())
            if dropped:
                log.info(
                    "client addresses of %d days older than %s dropped", dropped, self.address_days
                )
        expired = self._expire_waiting(deps, now - self.waiting)
        if expired:
            log.info("expired %d games left waiting for players since %s", expired, self.waiting)
        return 1

    def _in_batches(
        self, deps: Deps, delete: Callable[[UnitOfWork], Callable[[datetime, int], int]]
    ) -> Callable[[datetime], int]:
        """Run a deletion of rows older than a time, ``batch`` rows a transaction, until
        it deletes fewer; how many went in all."""

        def run(before: datetime) -> int:
            total = 0
            while True:
                with deps.uow() as uow:
                    gone = delete(uow)(before, self.batch)
                total += gone
                if gone < self.batch:
                    return total

        return run

    def _expire_waiting(self, deps: Deps, idle_since: datetime) -> int:
        with deps.uow(snapshot=True) as uow:
            ids = uow.games.idle(status="waiting", before=idle_since, limit=self.batch)
        done = 0
        for game_id in ids:
            try:
                result = execute(deps, ExpireGame(game_id, idle_since), Context(Operator()))
            except ApplicationError as error:  # gone meanwhile: the next run looks again
                log.warning("could not expire game %s: %s", game_id, error)
                continue
            done += int(result.result.acted)
        return done
