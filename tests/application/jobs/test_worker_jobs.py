"""Turn clocks, bots, leave and resign through the application, with a fake clock
(docs/api.md: Turn clocks, Bots). The worker's job source (DueGames) is run by hand:
the real `yokai worker` process is tested end to end in tests/e2e/test_worker_process.py.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from service.application.commands import (
    Advance,
    BotSeat,
    Context,
    JoinSeat,
    Leave,
    PassCards,
    Resign,
    SeatBot,
)
from service.application.errors import (
    ForbiddenError,
    InvalidInputError,
    SeatLeftError,
    UnauthenticatedError,
)
from service.application.games.queries.inbox import inbox
from service.application.games.queries.views import public_view
from service.application.identity.principals import Operator
from service.application.jobs.due_games import DueGames
from service.application.ports import ActorKind, StoredEvent
from service.application.results import Acted, InboxPage, Unchanged
from service.application.write.registry import execute
from service.rules import (
    BotLevel,
    OnTimeout,
    RuleViolationError,
    TurnClock,
    Violation,
)
from tests.application.identity.test_players import player
from tests.application.table import Game, Table, ordered_deal, rotated_deal

OPERATOR = Operator()
MINUTE = TurnClock(60, OnTimeout.AUTOPLAY)
FORFEIT = TurnClock(60, OnTimeout.FORFEIT)


def run_worker(table: Table, *, rounds: int = 2000) -> int:
    """Run the worker's job source until nothing is due now; how many games it took."""
    jobs = DueGames()
    taken = 0
    for _ in range(rounds):
        n = jobs.run_due(table.deps)
        if n == 0:
            return taken
        taken += n
    raise AssertionError("the worker never ran out of due games")


def types(events: list[StoredEvent]) -> list[str]:
    return [e.type for e in events]


def deals(table: Table, n: int) -> None:
    for i in range(n):
        table.dealer.script.append(ordered_deal() if i % 2 == 0 else rotated_deal())


def test_a_game_of_four_bots_plays_itself_to_the_end(table: Table) -> None:
    deals(table, 40)
    bots = tuple(BotSeat(s, BotLevel.BASIC if s % 2 else BotLevel.RANDOM) for s in range(4))
    game_id = table.create(bots=bots)
    assert table.public(game_id).status == "passing"  # every seat filled at creation
    run_worker(table)
    view = table.public(game_id)
    assert view.status == "finished" and view.winner
    moves = [e for e in table.db.stream(game_id) if e.type in ("CardsPassed", "CardPlayed")]
    assert moves and all(
        e.actor.kind is ActorKind.BOT and e.actor.seat == e.data["seat"] for e in moves
    )
    assert [s.bot for s in view.seats] == ["random", "basic", "random", "basic"]


def test_bots_at_creation_must_name_distinct_seats_of_the_game(table: Table) -> None:
    twice = (BotSeat(1, BotLevel.BASIC), BotSeat(1, BotLevel.RANDOM))
    with pytest.raises(InvalidInputError) as info:
        table.create(bots=twice)
    assert info.value.code == "seat_taken"
    with pytest.raises(InvalidInputError) as info:
        table.create(3, bots=(BotSeat(3, BotLevel.BASIC),))
    assert info.value.code == "unknown_seat"


def test_an_operator_seats_a_bot_on_a_free_seat_only(table: Table) -> None:
    game_id = table.create()
    table.join(game_id, 0)
    acted = table.run(SeatBot(game_id, 1, BotLevel.RANDOM), OPERATOR)
    assert isinstance(acted, Acted) and acted.seat == 1
    assert table.public(game_id).seats[1].bot == "random"
    with pytest.raises(RuleViolationError) as info:
        table.run(SeatBot(game_id, 0, BotLevel.BASIC), OPERATOR)
    assert info.value.code is Violation.SEAT_TAKEN
    with pytest.raises(UnauthenticatedError):
        table.run(SeatBot(game_id, 2, BotLevel.BASIC))  # without the operator token
    seat = table.deps.identity.identify(table.join(game_id, 3).token)
    with pytest.raises(ForbiddenError):
        table.run(SeatBot(game_id, 2, BotLevel.BASIC), seat)


def test_a_bot_takes_over_the_seat_of_a_player_who_leaves(table: Table, game: Game) -> None:
    table.run(Leave(game.id), game.seats[0])
    assert table.public(game.id).seats[0].bot == "basic"
    run_worker(table)
    passed = [e for e in table.db.stream(game.id) if e.type == "CardsPassed"]
    assert [(e.data["seat"], e.actor.kind) for e in passed] == [(0, ActorKind.BOT)]
    # The seat's token no longer acts for it, nor sees its hand.
    with pytest.raises(SeatLeftError):
        table.run(PassCards(game.id, ("green-1", "green-2", "green-3")), game.seats[0])
    with pytest.raises(SeatLeftError):
        table.view(game, 0)
    with pytest.raises(SeatLeftError):
        table.run(Resign(game.id), game.seats[0])
    # The others play on: the game goes on with the bot.
    for seat in (1, 2, 3):
        table.pass_first_three(game, seat)
    assert table.public(game.id).status == "playing"


def test_resigning_ends_the_game_and_nobody_may_leave_it_then(table: Table, game: Game) -> None:
    table.run(Resign(game.id), game.seats[3])
    view = table.public(game.id)
    assert view.status == "finished" and view.winner == (0,)
    assert view.rounds[-1].reason == "resign"
    with pytest.raises(RuleViolationError) as info:
        table.run(Leave(game.id), game.seats[0])
    assert info.value.code is Violation.GAME_OVER


def test_views_and_the_inbox_show_each_due_seats_deadline(table: Table) -> None:
    table.dealer.script.append(ordered_deal())
    started = table.clock.now()
    game = table.start(clock=MINUTE)
    view = table.public(game.id)
    assert view.clock is not None and view.clock.turn_seconds == 60
    due = (started + timedelta(seconds=60)).isoformat()
    assert [s.deadline for s in view.seats] == [due] * 4
    table.clock.advance(timedelta(seconds=5))
    table.pass_first_three(game, 0)  # another seat's pass leaves the others' deadline
    seats = table.public(game.id).seats
    assert [s.deadline for s in seats] == [None, due, due, due]


def test_no_deadline_without_a_clock(table: Table, game: Game) -> None:
    assert all(s.deadline is None for s in table.public(game.id).seats)
    assert run_worker(table) == 0


def test_at_the_deadline_every_late_seat_is_autoplayed_once(table: Table) -> None:
    table.dealer.script.append(ordered_deal())
    game = table.start(clock=MINUTE)
    table.pass_first_three(game, 2)
    table.clock.advance(timedelta(seconds=59))
    assert run_worker(table) == 0  # not due yet: nothing is claimed
    table.clock.advance(timedelta(seconds=2))
    assert run_worker(table) == 1
    events = table.db.stream(game.id)
    timed_out = [e for e in events if e.type == "TurnTimedOut"]
    assert [(e.data, e.actor.kind) for e in timed_out] == [
        ({"seat": s, "outcome": "autoplay"}, ActorKind.SYSTEM) for s in (0, 1, 3)
    ]
    passed = [(e.data["seat"], e.actor.kind) for e in events if e.type == "CardsPassed"]
    assert passed == [(2, ActorKind.SEAT), (0, ActorKind.SYSTEM), (1, ActorKind.SYSTEM),
                      (3, ActorKind.SYSTEM)]  # fmt: skip
    assert table.public(game.id).status == "playing"
    # A second worker (or the same one again) finds nothing left to do.
    again = execute(table.deps, Advance(game.id), Context(OPERATOR)).result
    assert not again.acted
    assert len([e for e in table.db.stream(game.id) if e.type == "TurnTimedOut"]) == 3


def test_the_next_turn_runs_from_the_autoplay_not_from_the_missed_deadline(table: Table) -> None:
    """A deadline missed long ago (no worker ran) is acted on once; the next seat gets a
    whole turn from then."""
    table.dealer.script.append(ordered_deal())
    game = table.start(clock=MINUTE)
    table.pass_all(game)
    table.clock.advance(timedelta(hours=5))
    assert run_worker(table) == 1
    plays = [e for e in table.db.stream(game.id) if e.type == "CardPlayed"]
    assert len(plays) == 1
    now = table.clock.now()
    turn = table.turn(game)
    assert table.public(game.id).seats[turn].deadline == (now + timedelta(seconds=60)).isoformat()


def test_a_seat_that_acts_before_its_deadline_is_never_timed_out(table: Table) -> None:
    table.dealer.script.append(ordered_deal())
    game = table.start(clock=MINUTE)
    table.pass_all(game)
    table.clock.advance(timedelta(seconds=59))
    table.play_turn(game)
    table.clock.advance(timedelta(seconds=2))  # past the first seat's deadline
    assert run_worker(table) == 0
    assert "TurnTimedOut" not in types(table.db.stream(game.id))


def test_a_forfeit_ends_the_game_and_the_late_seats_side_loses(table: Table) -> None:
    table.dealer.script.append(ordered_deal())
    game = table.start(clock=FORFEIT)
    table.pass_first_three(game, 0)
    table.pass_first_three(game, 2)
    table.clock.advance(timedelta(seconds=61))
    run_worker(table)
    view = table.public(game.id)
    assert view.status == "finished" and view.winner == (0,)
    assert view.rounds[-1].reason == "forfeit"
    late = [e.data["seat"] for e in table.db.stream(game.id) if e.type == "TurnTimedOut"]
    assert late == [1, 3]


def test_a_claimed_game_that_is_not_due_gets_its_wakeup_back(table: Table) -> None:
    """A claim moves the wakeup to the lease's end; a worker that finds nothing due puts
    it back where the game's state says (here: the deadline)."""
    table.dealer.script.append(ordered_deal())
    game = table.start(clock=MINUTE)
    due, _ = table.db.committed.wakeups[game.id]
    execute(table.deps, Advance(game.id), Context(OPERATOR))
    assert table.db.committed.wakeups[game.id][0] == due


def test_the_public_view_of_a_finished_bot_game_has_no_deadline(table: Table) -> None:
    deals(table, 40)
    game_id = table.create(clock=MINUTE, bots=tuple(BotSeat(s, BotLevel.BASIC) for s in range(4)))
    run_worker(table)
    found = public_view(table.deps, game_id)
    assert not isinstance(found, Unchanged)
    assert found.view.status == "finished"
    assert all(s.deadline is None for s in found.view.seats)
    assert game_id not in table.db.committed.wakeups


def test_the_inbox_gives_the_deadline_and_forgets_the_turn_of_a_seat_left(table: Table) -> None:
    mio = player(table)
    table.dealer.script.append(ordered_deal())
    game_id = table.create(clock=MINUTE)
    table.run(JoinSeat(game_id, 2, None), mio)
    for seat in (0, 1, 3):
        table.join(game_id, seat)
    page = inbox(table.deps, mio, "active", None, 10)
    assert isinstance(page, InboxPage)
    (entry,) = page.games
    assert entry.my_turn and entry.deadline == table.clock.now() + timedelta(seconds=60)
    table.run(Leave(game_id), table.deps.identity.in_game(mio, game_id))
    page = inbox(table.deps, mio, "active", None, 10)
    assert isinstance(page, InboxPage)
    (entry,) = page.games
    assert not entry.my_turn and entry.deadline is None


def test_a_batch_past_its_slice_hands_back_the_games_it_did_not_reach(table: Table) -> None:
    """A worker's call runs at most ``slice_seconds`` (issue 44: a seek waited while the
    worker played a batch of slow bots): the claimed games it did not reach are due again
    at once, for it or another worker, not at the end of their lease."""
    deals(table, 12)
    bots = tuple(BotSeat(s, BotLevel.RANDOM) for s in range(4))
    games = [table.create(bots=bots) for _ in range(3)]
    jobs = DueGames(slice_seconds=0)  # every call reaches only its first game
    assert jobs.run_due(table.deps) == 1
    now = table.deps.clock.now()
    due = sorted(table.db.committed.wakeups[g][0] for g in games)
    assert due[-1] <= now and due[-2] <= now  # the two not reached: due now, not leased
    played = {g: len(table.db.stream(g)) for g in games}
    assert jobs.run_due(table.deps) == 1
    assert sum(len(table.db.stream(g)) > played[g] for g in games) == 1
    assert run_worker(table) > 0  # and the rest is played on
    assert all(table.public(g).status == "finished" for g in games)
