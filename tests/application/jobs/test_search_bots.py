"""The search levels in the service (issue 31): the worker plays `strong` and `expert`
seats from the seat's own view and feed, and a player who leaves is taken over by the
level YOKAI_TAKEOVER_LEVEL names."""

from __future__ import annotations

from dataclasses import replace

from service.application.commands import BotSeat, Leave
from service.application.ports import ActorKind
from service.rules import BotLevel
from tests.application.jobs.test_worker_jobs import deals, run_worker
from tests.application.table import Game, Table


def test_a_game_of_search_bots_plays_itself_to_the_end(table: Table) -> None:
    deals(table, 40)
    levels = (BotLevel.STRONG, BotLevel.EXPERT, BotLevel.STRONG, BotLevel.BASIC)
    game_id = table.create(bots=tuple(BotSeat(s, level) for s, level in enumerate(levels)))
    run_worker(table)
    view = table.public(game_id)
    assert view.status == "finished" and view.winner
    assert [s.bot for s in view.seats] == ["strong", "expert", "strong", "basic"]
    plays = [e for e in table.db.stream(game_id) if e.type == "CardPlayed"]
    assert {e.data["seat"] for e in plays} == {0, 1, 2, 3}
    assert all(e.actor.kind is ActorKind.BOT for e in plays)


def test_a_player_who_leaves_is_taken_over_by_the_configured_level(
    table: Table, game: Game
) -> None:
    table.deps = replace(table.deps, takeover=BotLevel.EXPERT)
    table.run(Leave(game.id), game.seats[0])
    assert table.public(game.id).seats[0].bot == "expert"
    run_worker(table)
    passed = [e for e in table.db.stream(game.id) if e.type == "CardsPassed"]
    assert [(e.data["seat"], e.actor.kind) for e in passed] == [(0, ActorKind.BOT)]
