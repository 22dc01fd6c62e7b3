"""What a command costs PostgreSQL, counted (never timed): a played card, on a process
that has the game and the seat's token, is one round trip carrying one statement (its
events and every projection row they change: service/application/projections.py), and
a game's first command too."""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.adapters.postgres.engine import connections_of
from service.adapters.postgres.session import Session, Statement
from tests.support.api import Api
from tests.support.deals import start_playing
from tests.support.postgres import MakeApp

RoundTrips = list[list[str]]


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> RoundTrips:
    """The statements of each round trip to PostgreSQL from now on (their SQL)."""
    sent: RoundTrips = []
    run = Session._run

    def counted(self: Session, statements: list[Statement], **how: Any) -> Any:
        sent.append([s.sql for s in statements])
        return run(self, statements, **how)

    monkeypatch.setattr(Session, "_run", counted)
    return sent


def test_a_played_card_is_one_round_trip_of_one_statement(
    api: Api, round_trips: RoundTrips
) -> None:
    game = start_playing(api)
    seat = api.public(game.id)["round"]["turn"]
    card = api.view(game, seat)["legal"][0]  # the process now has the game and the token
    round_trips.clear()

    assert api.play(game, seat, card).status_code == 200

    assert len(round_trips) == 1
    [statement] = round_trips[0]
    assert "INSERT INTO events" in statement
    assert "UPDATE games" in statement and "UPDATE inbox" in statement  # projections


def test_a_new_game_is_one_round_trip_its_row_before_its_events(
    api: Api, round_trips: RoundTrips
) -> None:
    api.create(4, visibility="public")

    assert len(round_trips) == 1
    [statement] = round_trips[0]
    assert statement.index("INSERT INTO games") < statement.index("INSERT INTO events")
    assert "INSERT INTO lobby" in statement  # a public game waiting for players


def test_a_command_statement_is_planned_five_times_on_a_connection_then_kept(
    make_app: MakeApp,
) -> None:
    """PostgreSQL plans a prepared statement anew for its first five executions, then
    keeps its generic plan unless that looks dearer than planning each time, as it does
    when a parameter is a list whose length it cannot know. Planning the command's
    statement cost more of PostgreSQL's time than running it, so its parameters are
    scalars (service/adapters/postgres/webhooks.py ``_FAN_OUT``)."""
    process = make_app()  # a pool of its own: requests one at a time use one connection
    api = process.api()
    game = start_playing(api)
    rng = random.Random(7)
    for _ in range(40):
        assert api.act_randomly(game, rng) is not None

    pool = connections_of(process.container.engine)
    conn = pool.take()  # the connection returned last: the one that served the game
    try:
        plans = conn.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE '%INSERT INTO events%'"
        ).fetchall()
    finally:
        pool.give(conn)
    assert any(generic > 0 for generic, _ in plans), plans  # prepared and run often enough
    assert all(custom <= 5 for _, custom in plans), plans
