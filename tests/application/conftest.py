"""Fixtures of the handler tests: the application wired to in-memory fakes (no
database), and games at the points the tests start from."""

from __future__ import annotations

import pytest

from service.application.deps import Deps
from tests.application.fakes import Database, FixedClock, ScriptedDealer, make_deps
from tests.application.table import Game, Table, ordered_deal


@pytest.fixture
def db() -> Database:
    return Database()


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def dealer() -> ScriptedDealer:
    return ScriptedDealer()


@pytest.fixture
def deps(db: Database, clock: FixedClock, dealer: ScriptedDealer) -> Deps:
    return make_deps(db, clock, dealer)


@pytest.fixture
def table(deps: Deps, db: Database, clock: FixedClock, dealer: ScriptedDealer) -> Table:
    return Table(deps, db, clock, dealer)


@pytest.fixture
def game(table: Table) -> Game:
    """A four-player game, every seat joined, round 1 dealt in order: passing."""
    table.dealer.script.append(ordered_deal())
    return table.start()


@pytest.fixture
def playing(table: Table, game: Game) -> Game:
    """The game after every seat passed its first three cards: the first trick."""
    table.pass_all(game)
    return game
