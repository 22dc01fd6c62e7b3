"""Housekeeping by the worker (issue 15: idempotency records never expired): outcomes
stored under Idempotency-Keys are forgotten once older than the time they are kept."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

import pytest

from service.application.commands import Context, CreateGame, ExpireGame
from service.application.games.queries.views import public_view
from service.application.identity.principals import Operator
from service.application.jobs.housekeeping import Housekeeping
from service.application.ports import SYSTEM
from service.application.results import Versioned
from service.application.write.registry import execute
from service.rules import RuleViolationError, Scoring, Violation
from tests.application.table import Table, ordered_deal


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


def _status(table: Table, game_id: UUID) -> str:
    view = public_view(table.deps, game_id)
    assert isinstance(view, Versioned)
    return view.view.status


def _expired(table: Table, game_id: UUID) -> bool:
    view = public_view(table.deps, game_id)
    assert isinstance(view, Versioned)
    return view.view.expired


def test_games_left_waiting_expire_with_an_event_of_their_own(table: Table) -> None:
    """Issue 15: games that are never filled stayed for ever. One waiting, unchanged,
    longer than the window expires; one joined since, or full, does not."""
    idle = table.create(4)
    table.join(idle, 0)
    recent = table.create(4)
    full = table.create(3)
    table.dealer.script.append(ordered_deal(3))
    for seat in range(3):
        table.join(full, seat)
    table.clock.advance(timedelta(days=7))
    table.join(recent, 1)  # changed within the window
    table.clock.advance(timedelta(minutes=1))
    job = Housekeeping(waiting=timedelta(days=7))
    assert job.run_due(table.deps) == 1
    assert (_status(table, idle), _status(table, recent)) == ("finished", "waiting")
    assert _expired(table, idle) and not _expired(table, recent)
    assert _status(table, full) == "passing"
    history = table.db.committed.events[idle]
    last = history[max(history)].event
    assert (last.type, last.actor) == ("GameExpired", SYSTEM)
    with pytest.raises(RuleViolationError) as refused:
        table.join(idle, 1)
    assert refused.value.code is Violation.GAME_OVER
    # Run again: nothing more to do (the expired game is not waiting any more).
    table.clock.advance(timedelta(minutes=10))
    before = len(history)
    assert job.run_due(table.deps) == 1
    assert len(table.db.committed.events[idle]) == before


def test_a_game_joined_between_the_choice_and_the_expiry_is_kept(table: Table) -> None:
    game = table.create(4)
    table.clock.advance(timedelta(days=8))
    cutoff = table.clock.now() - timedelta(days=7)
    table.join(game, 2)  # after the job chose it, before its command ran
    result = execute(table.deps, ExpireGame(game, cutoff), Context(Operator()))
    assert result.result.acted is False
    assert _status(table, game) == "waiting"
    assert not _expired(table, game)


def test_an_expired_game_tells_webhooks_it_finished_without_a_winner(table: Table) -> None:
    game = table.create(3)
    table.join(game, 0)
    table.clock.advance(timedelta(days=8))
    execute(table.deps, ExpireGame(game, table.clock.now()), Context(Operator()))
    told = [(e.type, e.data) for g, e, _ in table.db.committed.told if g == game]
    version = table.version(game)
    assert told == [
        (
            "game_finished",
            {"game_id": str(game), "version": version, "winner": None, "expired": True},
        )
    ]
