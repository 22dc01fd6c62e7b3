"""Commands through ``handlers.execute``: create, join every seat (the last join deals
round 1), pass, play; who may do what; what each stored event records."""

from __future__ import annotations

from uuid import UUID

import pytest

from service.application.commands import CreateGame, JoinSeat, PlayCard
from service.application.errors import ForbiddenError, GameNotFoundError, UnauthenticatedError
from service.application.identity.principals import Anonymous, Operator, Principal, SeatHolder
from service.application.ports import SYSTEM, Actor, ActorKind
from service.application.results import Acted
from service.application.write.sealed import digest
from service.rules import Scoring
from service.rules.observe import PlayedCard
from tests.application.fakes import Database, FixedClock
from tests.application.table import Game, Table, card_ids, ordered_deal, preset


def test_the_last_join_deals_round_one_in_the_same_command(table: Table) -> None:
    table.dealer.script.append(ordered_deal())
    game_id = table.create()
    joined = [table.join(game_id, seat, request_id=f"join-{seat}") for seat in range(4)]

    assert [j.version for j in joined] == [2, 3, 4, 6]
    assert table.dealer.asked == [(None, 1)]  # an anonymous game has no seed
    last = table.stream(game_id)[-2:]
    assert [(e.type, e.actor) for e in last] == [
        ("SeatJoined", Actor(ActorKind.ANONYMOUS, 3)),
        ("RoundDealt", SYSTEM),
    ]
    assert {e.request_id for e in last} == {"join-3"}
    assert table.public(game_id).status == "passing"


def test_an_operators_join_is_recorded_as_the_operators(table: Table) -> None:
    """The audit says who joined: an operator's join, by the operator token's name, is
    not recorded as a seat's; an anonymous one as anonymous, with the seat it took."""
    game_id = table.create()
    table.run(JoinSeat(game_id, 1, "house"), Operator("night-shift"))
    table.join(game_id, 2)
    joins = [e for e in table.stream(game_id) if e.type == "SeatJoined"]
    assert [e.actor for e in joins] == [
        Actor(ActorKind.OPERATOR, 1, "night-shift"),
        Actor(ActorKind.ANONYMOUS, 2),
    ]
    assert table.stream(game_id)[0].actor == Actor(ActorKind.ANONYMOUS)  # its creation


def test_each_token_identifies_its_seat_which_sees_its_hand(table: Table, game: Game) -> None:
    assert game.seats == tuple(SeatHolder(game.id, seat) for seat in range(4))
    for seat in range(4):
        assert set(table.view(game, seat).hand) == card_ids(ordered_deal().hands[seat])


def test_passes_exchange_then_the_seat_on_turn_plays(table: Table, game: Game) -> None:
    before = table.version(game.id)
    for seat in range(4):
        assert table.pass_first_three(game, seat).seat == seat
    assert table.types(game.id, after=before) == ["CardsPassed"] * 4 + ["PassesExchanged"]

    seat = table.turn(game)
    card = table.view(game, seat).legal[0]
    acted = table.run(PlayCard(game.id, card), game.seats[seat])

    assert acted == Acted(game.id, table.version(game.id), seat)
    assert card not in table.view(game, seat).hand
    r = table.public(game.id).round
    assert r is not None and r.trick == (PlayedCard(seat, card),)


def test_the_games_projection_follows_every_command(table: Table, game: Game, db: Database) -> None:
    summary = db.committed.games[game.id]
    assert (summary.status, summary.version) == ("passing", 6)
    table.pass_all(game)
    summary = db.committed.games[game.id]
    assert (summary.status, summary.version) == ("playing", table.version(game.id))


def test_an_operator_creates_with_a_preset_deal(table: Table) -> None:
    deal = ordered_deal()
    game = table.start(by=Operator(), seed=5, deals=(preset(deal),))

    assert table.dealer.asked == []  # round 1 is the operator's
    assert table.stream(game.id)[0].actor == Actor(ActorKind.OPERATOR, None, "operator")
    assert set(table.view(game, 2).hand) == card_ids(deal.hands[2])


def test_only_operators_give_seeds_or_deals(table: Table) -> None:
    with pytest.raises(ForbiddenError):
        table.run(CreateGame(4, Scoring.BASIC, seed=1))
    assert table.db.committed.games == {}


def test_each_event_records_when_who_and_which_request(
    table: Table, game: Game, clock: FixedClock
) -> None:
    clock.advance()
    acted = table.pass_first_three(game, 1, request_id="req-1", idempotency_key="key-1")
    (row,) = table.stream(game.id)[-1:]
    assert row.seq == acted.version
    assert row.recorded_at == clock.moment
    assert row.actor == Actor(ActorKind.SEAT, 1)
    assert (row.request_id, row.idempotency_key) == ("req-1", digest("key-1"))


@pytest.mark.parametrize(
    ("principal", "error", "code"),
    [
        (Anonymous(), UnauthenticatedError, "missing_token"),
        (Operator(), ForbiddenError, "forbidden"),
        (SeatHolder(UUID(int=1), 0), ForbiddenError, "forbidden"),
    ],
    ids=["anyone", "operator", "a seat of another game"],
)
def test_only_a_seat_of_the_game_plays(
    table: Table, playing: Game, principal: Principal, error: type[Exception], code: str
) -> None:
    card = table.view(playing, table.turn(playing)).legal[0]
    before = table.version(playing.id)
    with pytest.raises(error) as refused:
        table.run(PlayCard(playing.id, card), principal)
    assert getattr(refused.value, "code", None) == code
    assert table.version(playing.id) == before


def test_a_join_of_a_game_that_does_not_exist_is_refused(table: Table) -> None:
    with pytest.raises(GameNotFoundError):
        table.run(JoinSeat(UUID(int=1), 0, "nobody"))
