"""Rated games through the handlers (issue 30, first part; docs/api.md "Ratings, profiles
and leaderboards"): created rated, joined by players and bots only, listed as rated, and
made rated by rated seeks that no bot fills. (Ratings themselves are not kept yet.)"""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

import pytest

from service.application.commands import BotSeat, CreateGame, CreateSeek, JoinSeat, PairSeeks
from service.application.errors import ForbiddenError
from service.application.identity.principals import Operator
from service.application.results import Created, Paired
from service.application.seeks.ports import Pool
from service.rules import BotLevel, RuleViolationError, Scoring, Variant, Violation
from tests.application.identity.test_players import player
from tests.application.table import ANYONE, Table, ordered_deal

RATED_FOURS = Pool(4, Scoring.BASIC, Variant.STANDARD, True)


def rated_game(table: Table, **options: object) -> UUID:
    created = table.run(CreateGame(3, Scoring.BASIC, rated=True, **options))  # type: ignore[arg-type]
    assert isinstance(created, Created)
    return created.game_id


def joins(table: Table, game_id: UUID) -> list[tuple[int, str | None, str | None]]:
    joined = [e.data for e in table.db.stream(game_id) if e.type == "SeatJoined"]
    return [(d["seat"], d.get("player"), d.get("bot")) for d in joined]


def test_a_rated_game_is_joined_by_players_and_bots_and_shows_rated(table: Table) -> None:
    game_id = rated_game(table, bots=(BotSeat(2, BotLevel.BASIC),))
    with pytest.raises(RuleViolationError) as refused:
        table.run(JoinSeat(game_id, 0, "Anonymous"), ANYONE)
    assert refused.value.code is Violation.PLAYERS_ONLY
    mio, ren = player(table, "Mio"), player(table, "Ren")
    table.run(JoinSeat(game_id, 0, None), mio)
    table.dealer.script.append(ordered_deal(3))
    table.run(JoinSeat(game_id, 1, None), ren)
    view = table.public(game_id)
    assert view.rated and view.status == "passing"
    assert joins(table, game_id) == [
        (2, None, "basic"),
        (0, str(mio.player_id), None),
        (1, str(ren.player_id), None),
    ]


def test_a_rated_game_takes_no_operator_shuffles(table: Table) -> None:
    with pytest.raises(RuleViolationError) as refused:
        table.run(CreateGame(3, Scoring.BASIC, seed=5, rated=True), Operator())
    assert refused.value.code is Violation.INVALID_OPTIONS
    with pytest.raises(ForbiddenError):  # seeds are an operator's, rated or not
        table.run(CreateGame(3, Scoring.BASIC, seed=5, rated=True))


def test_an_unrated_game_is_not_rated(table: Table) -> None:
    created = table.run(CreateGame(3, Scoring.BASIC))
    assert isinstance(created, Created)
    assert not table.public(created.game_id).rated


def test_rated_seeks_make_a_rated_game_and_bots_an_unrated_one(table: Table) -> None:
    four = [player(table, n) for n in ("A", "B", "C", "D")]
    for who in four:
        table.run(CreateSeek(RATED_FOURS), who)
    table.dealer.script.append(ordered_deal(4))
    full = table.run(PairSeeks(RATED_FOURS, (0, 1, 2, 3)), Operator())
    assert isinstance(full, Paired) and full.game_id is not None
    assert table.public(full.game_id).rated
    assert {p for _, p, _ in joins(table, full.game_id)} == {str(w.player_id) for w in four}

    alone = player(table, "Alone")
    table.run(CreateSeek(RATED_FOURS, bots_after=5), alone)
    table.clock.advance(timedelta(seconds=5))
    table.dealer.script.append(ordered_deal(4))
    filled = table.run(PairSeeks(RATED_FOURS, (0, 1, 2, 3)), Operator())
    assert isinstance(filled, Paired) and filled.game_id is not None
    assert not table.public(filled.game_id).rated  # bots after a wait: unrated
