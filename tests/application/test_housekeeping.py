"""Housekeeping by the worker (issue 15: idempotency records never expired): outcomes
stored under Idempotency-Keys are forgotten once older than the time they are kept."""

from __future__ import annotations

from datetime import timedelta

from service.application.commands import CreateGame
from service.application.jobs import Housekeeping
from service.rules import Scoring
from tests.application.table import Table


def keys(table: Table) -> int:
    return len(table.db.committed.idempotency)


def test_old_idempotency_records_are_forgotten_and_new_ones_kept(table: Table) -> None:
    table.run(CreateGame(4, Scoring.BASIC), idempotency_key="old-1")
    table.run(CreateGame(4, Scoring.BASIC), idempotency_key="old-2")
    table.clock.advance(timedelta(hours=23))
    table.run(CreateGame(4, Scoring.BASIC), idempotency_key="new")
    table.clock.advance(timedelta(hours=2))
    job = Housekeeping(keep=timedelta(hours=24), batch=1)
    assert job.run_due(table.deps) == 1
    assert keys(table) == 1  # both old ones, one batch at a time; the new one kept
    # A key forgotten is a new command: it creates another game.
    again = table.run(CreateGame(4, Scoring.BASIC), idempotency_key="old-1")
    assert keys(table) == 2 and again is not None


def test_housekeeping_runs_once_per_period(table: Table) -> None:
    job = Housekeeping(every=timedelta(minutes=10))
    assert job.run_due(table.deps) == 1
    assert job.run_due(table.deps) == 0  # not yet
    assert job.next_due(table.deps) == table.clock.now() + timedelta(minutes=10)
    table.clock.advance(timedelta(minutes=10))
    assert job.run_due(table.deps) == 1
