"""What each commit tells webhooks (docs/api.md: Webhooks), on the fakes: written with
the commit (the fakes' ``told``), thin (game, version, the seat for ``turn``; never a
card), and nothing for a refused command."""

from __future__ import annotations

import pytest

from service.application.commands import BotSeat, JoinSeat, PassCards, Resign
from service.rules import BotLevel, RuleViolationError
from tests.application.identity.test_players import player
from tests.application.table import Game, Table, ordered_deal


def told(table: Table, game_id: object) -> list[tuple[str, dict[str, object]]]:
    return [(e.type, e.data) for g, e, _ in table.db.committed.told if g == game_id]


def test_the_deal_tells_the_start_and_every_seats_turn(table: Table, game: Game) -> None:
    version = table.version(game.id)
    base = {"game_id": str(game.id), "version": version}
    assert told(table, game.id) == [("game_started", base)] + [
        ("turn", {**base, "seat": s}) for s in range(4)
    ]


def test_a_pass_that_starts_no_turn_tells_nothing_and_the_exchange_tells_the_leader(
    table: Table, game: Game
) -> None:
    before = len(told(table, game.id))
    table.pass_first_three(game, 0)
    assert len(told(table, game.id)) == before
    for seat in (1, 2, 3):
        table.pass_first_three(game, seat)
    (event,) = told(table, game.id)[before:]
    assert event == (
        "turn",
        {"game_id": str(game.id), "version": table.version(game.id), "seat": table.turn(game)},
    )


def test_a_refused_command_tells_nothing(table: Table, game: Game) -> None:
    before = list(table.db.committed.told)
    with pytest.raises(RuleViolationError):
        table.run(PassCards(game.id, ("blue-13", "blue-12", "blue-11")), game.seats[3])
    assert table.db.committed.told == before


def test_the_end_of_a_game_tells_its_round_and_its_end(table: Table, game: Game) -> None:
    table.run(Resign(game.id), game.seats[1])
    version = table.version(game.id)
    base = {"game_id": str(game.id), "version": version}
    assert told(table, game.id)[-2:] == [
        ("round_finished", {**base, "round": 1}),
        ("game_finished", {**base, "winner": [0]}),
    ]


def test_no_turn_is_told_for_a_bot_and_a_joining_player_is_bound(table: Table) -> None:
    mio = player(table)
    table.dealer.script.append(ordered_deal())
    game_id = table.create(bots=(BotSeat(0, BotLevel.BASIC),))
    table.join(game_id, 1)
    table.join(game_id, 2)
    table.run(JoinSeat(game_id, 3, None), mio)
    turns = [d["seat"] for t, d in told(table, game_id) if t == "turn"]
    assert turns == [1, 2, 3]
    bound = {b for g, _, bs in table.db.committed.told if g == game_id for b in bs}
    assert bound == {(3, mio.player_id)}
