"""Rematch through the handlers (docs/api.md "Rematch", issue 29): a finished game played
again once, its seats moved one to the left, its players invited, the asker seated."""

from __future__ import annotations

import threading
from uuid import UUID

import pytest

from service.application.commands import BotSeat, JoinSeat, Leave, Rematch, Resign
from service.application.errors import ForbiddenError, SeatLeftError, UnauthenticatedError
from service.application.games.queries.inbox import inbox
from service.application.identity.principals import PlayerHolder, Principal, seat_of
from service.application.results import InboxPage, Joined, Rematched
from service.rules import BotLevel, RuleViolationError, Violation
from tests.application.games.test_invitations import entries
from tests.application.identity.test_players import player
from tests.application.table import ANYONE, Table, ordered_deal


def finished_game(
    table: Table, *holders: PlayerHolder | None, seat_tokens: bool = False
) -> tuple[UUID, list[Principal]]:
    """A three-player game each ``holders`` seat joined by its player (None: anonymous,
    missing: a bot), over by seat 0's resignation; each seat's principal as a request
    about the game makes it: the player (by their player token), else the seat token
    (with ``seat_tokens``, the seat token of every seat)."""
    table.dealer.script.append(ordered_deal(3))
    bots = tuple(BotSeat(s, BotLevel.BASIC) for s in range(len(holders), 3))
    game_id = table.create(3, bots=bots)
    seats: list[Principal] = []
    for seat, holder in enumerate(holders):
        if holder is None:
            joined = table.join(game_id, seat)
            seats.append(table.deps.identity.identify(joined.token))
        else:
            took = table.run(JoinSeat(game_id, seat, None), holder)
            assert isinstance(took, Joined)
            seats.append(
                table.deps.identity.identify(took.token)
                if seat_tokens
                else table.deps.identity.in_game(holder, game_id)
            )
    table.run(Resign(game_id), seats[0])
    return game_id, seats


def rematched(table: Table, game_id: UUID, who: Principal) -> Rematched:
    result = table.run(Rematch(game_id), who)
    assert isinstance(result, Rematched)
    return result


def test_the_players_move_one_seat_left_and_the_asker_is_seated(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id, seats = finished_game(table, mio, None, ren)
    made = rematched(table, game_id, seats[2])  # Ren, at seat 2: seat 0 in the new game
    assert made.created
    view = table.public(made.game_id)
    assert (view.players, view.scoring, view.variant) == (3, "basic", "standard")
    assert [(s.name, s.reserved_for) for s in view.seats] == [
        ("Ren", None),  # seated at once
        (None, str(mio.player_id)),  # Mio, from seat 0: invited to seat 1
        (None, None),  # the anonymous seat 1's: free for anyone
    ]
    assert table.public(game_id).rematch == str(made.game_id)
    assert entries(table, mio)[0] == (made.game_id, 1, "join", True)
    told = [(e.type, e.data.get("seat")) for g, e, _ in table.db.committed.told]
    assert ("invited", 1) in told and ("invited", 0) not in told  # Ren is not invited


def test_a_seat_token_asking_is_seated_too_and_answered_with_its_token(table: Table) -> None:
    """Issue 44: the asker by a seat token is seated in its new seat, for the seat's
    player when it was a player's (not invited), else under its name; the answer holds
    the new seat's token, which acts for it. A player's token is answered without one
    (its own acts for the seat)."""
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id, seats = finished_game(table, mio, None, ren, seat_tokens=True)
    made = rematched(table, game_id, seats[0])  # the seat token of Mio's seat
    assert (made.seat, made.token is not None) == (1, True)
    view = table.public(made.game_id)
    assert [(s.name, s.reserved_for) for s in view.seats] == [
        (None, str(ren.player_id)),  # Ren, from seat 2: invited to seat 0
        ("Mio", None),  # Mio's seat, seated for her
        (None, None),  # the anonymous seat 1's: free
    ]
    with table.deps.uow() as uow:
        assert uow.players.of_game(made.game_id) == {1: mio.player_id}
    assert (made.game_id, 1, None, False) in entries(table, mio)  # seated, not invited
    assert made.token is not None
    mine = table.deps.identity.identify(made.token)
    assert seat_of(made.game_id, mine) == 1
    table.run(Leave(made.game_id), mine)  # the token acts for the seat: a bot takes it
    assert table.public(made.game_id).seats[1].bot == "basic"

    game_id, seats = finished_game(table, mio, None, ren)
    anonymous = rematched(table, game_id, seats[1])  # the seat token of seat 1
    assert anonymous.seat == 2 and anonymous.token is not None
    assert table.public(anonymous.game_id).seats[2].name == "player 1"
    game_id, seats = finished_game(table, mio, None, ren)
    by_player = rematched(table, game_id, seats[0])  # Mio's player token
    assert (by_player.seat, by_player.token) == (None, None)
    assert table.public(by_player.game_id).seats[1].name == "Mio"


def test_a_bot_comes_back_one_seat_left(table: Table) -> None:
    mio = player(table, "Mio")
    game_id, seats = finished_game(table, mio)  # seats 1 and 2: bots
    table.dealer.script.append(ordered_deal(3))
    made = rematched(table, game_id, seats[0])
    view = table.public(made.game_id)
    assert [(s.name is not None, s.bot) for s in view.seats] == [
        (True, "basic"),  # seat 2's bot
        (True, None),  # Mio, seated
        (True, "basic"),  # seat 1's bot
    ]
    assert view.status != "waiting"  # every seat is filled: it is dealt


def test_the_rematch_is_made_once_whoever_asks(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id, seats = finished_game(table, mio, ren, None)
    first = rematched(table, game_id, seats[1])
    for who in (seats[0], seats[2], ANYONE, ren):
        again = rematched(table, game_id, who)
        assert (again.game_id, again.created) == (first.game_id, False)
    assert table.types(game_id).count("Rematched") == 1


def test_racing_askers_make_one_rematch(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id, seats = finished_game(table, mio, ren, None)
    results: list[Rematched] = []
    start = threading.Barrier(2)

    def ask(who: Principal) -> None:
        start.wait()
        results.append(rematched(table, game_id, who))

    threads = [threading.Thread(target=ask, args=(s,)) for s in seats[:2]]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(r.created for r in results) == [False, True]
    assert len({r.game_id for r in results}) == 1
    assert table.public(game_id).rematch == str(results[0].game_id)


def test_only_a_seat_of_the_finished_game_makes_it(table: Table) -> None:
    mio, ren, aiko = player(table, "Mio"), player(table, "Ren"), player(table, "Aiko")
    game_id, _ = finished_game(table, mio, ren, None)
    with pytest.raises(UnauthenticatedError):
        table.run(Rematch(game_id))
    with pytest.raises(ForbiddenError):
        table.run(Rematch(game_id), aiko)
    assert table.public(game_id).rematch is None


def test_an_unfinished_game_has_no_rematch(table: Table) -> None:
    table.dealer.script.append(ordered_deal(3))
    game = table.start(3)
    with pytest.raises(RuleViolationError) as refused:
        table.run(Rematch(game.id), game.seats[0])
    assert refused.value.code is Violation.NOT_FINISHED
    assert table.types(game.id)[-1] != "Rematched"


def test_a_seat_that_left_does_not_make_it(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    table.dealer.script.append(ordered_deal(3))
    game_id = table.create(3)
    seats = []
    for seat, who in enumerate((mio, ren)):
        joined = table.run(JoinSeat(game_id, seat, None), who)
        seats.append(table.deps.identity.identify(joined.token))  # type: ignore[union-attr]
    seats.append(table.deps.identity.identify(table.join(game_id, 2).token))
    table.run(Leave(game_id), seats[1])
    table.run(Resign(game_id), seats[0])
    with pytest.raises(SeatLeftError):
        table.run(Rematch(game_id), seats[1])
    made = rematched(table, game_id, seats[0])  # Ren, who left, is invited all the same
    assert table.public(made.game_id).seats[2].reserved_for == str(ren.player_id)


def test_a_rematch_invitation_says_who_invites_and_what_game_it_plays_again(
    table: Table,
) -> None:
    """Issue 48, item 4: the invited player's inbox entry names the asker (their name as
    it reads now) and the finished game, and so does the entry of that game alone."""
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id, seats = finished_game(table, mio, None, ren)
    made = rematched(table, game_id, seats[2])
    page = inbox(table.deps, mio, "all", None, 10)
    assert isinstance(page, InboxPage)
    invitation = next(e for e in page.games if e.game_id == made.game_id)
    assert (invitation.invited_by, invitation.invited_by_name) == (ren.player_id, "Ren")
    assert invitation.rematch_of == game_id
    alone = inbox(table.deps, mio, "all", None, 10, game=made.game_id)
    assert isinstance(alone, InboxPage) and alone.games == [invitation]
    asker = inbox(table.deps, ren, "all", None, 10, game=made.game_id)
    assert isinstance(asker, InboxPage)
    assert [(e.seat, e.invited_by) for e in asker.games] == [(0, None)]  # seated, not invited


def test_a_rematch_asked_by_a_seat_no_player_holds_invites_in_nobodys_name(
    table: Table,
) -> None:
    mio = player(table, "Mio")
    game_id, seats = finished_game(table, mio, None, seat_tokens=True)
    made = rematched(table, game_id, seats[1])  # the anonymous seat's token
    page = inbox(table.deps, mio, "all", None, 10, game=made.game_id)
    assert isinstance(page, InboxPage)
    assert [(e.action, e.invited_by, e.rematch_of) for e in page.games] == [("join", None, game_id)]
