"""Invitations through the handlers (docs/api.md "Invitations", issue 29): seats of a new
game kept for players, who find the game in their inbox (to join), hear of it by their
webhooks, and alone may join or decline their seat."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest

from service.application.commands import BotSeat, CreateGame, DeclineSeat, Invitation, JoinSeat
from service.application.errors import InvalidInputError, UnauthenticatedError
from service.application.games.queries.inbox import inbox
from service.application.identity.principals import PlayerHolder
from service.application.results import Created, InboxPage
from service.rules import BotLevel, RuleViolationError, Scoring, Violation
from tests.application.identity.test_players import player
from tests.application.table import ANYONE, Table


def entries(table: Table, who: PlayerHolder) -> list[tuple[UUID, int, str | None, bool]]:
    page = inbox(table.deps, who, "all", None, 10)
    assert isinstance(page, InboxPage)
    return [(e.game_id, e.seat, e.action, e.my_turn) for e in page.games]


def inviting(table: Table, by: PlayerHolder, *invite: Invitation, players: int = 3) -> UUID:
    created = table.run(CreateGame(players, Scoring.BASIC, invite=invite), by)
    assert isinstance(created, Created)
    return created.game_id


def test_invited_players_get_the_next_free_seats_and_an_entry_to_join(table: Table) -> None:
    mio, ren, aiko = player(table, "Mio"), player(table, "Ren"), player(table, "Aiko")
    game_id = inviting(table, mio, Invitation(ren.player_id), Invitation(aiko.player_id, 0))
    seats = table.public(game_id).seats
    assert [s.reserved_for for s in seats] == [str(aiko.player_id), str(ren.player_id), None]
    assert entries(table, ren) == [(game_id, 1, "join", True)]
    assert entries(table, aiko) == [(game_id, 0, "join", True)]
    assert entries(table, mio) == []  # the creator joins their own seat as anyone does


def test_an_invited_players_webhooks_hear_of_the_seat_kept_for_them(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id = inviting(table, mio, Invitation(ren.player_id, 2))
    told = [(e.type, e.data, bound) for g, e, bound in table.db.committed.told if g == game_id]
    base = {"game_id": str(game_id), "version": table.version(game_id)}
    assert told == [("invited", {**base, "seat": 2}, ((2, ren.player_id),))]


def test_a_reserved_seat_is_joined_by_its_player_only(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id = inviting(table, mio, Invitation(ren.player_id))
    for who in (ANYONE, mio):
        with pytest.raises(RuleViolationError) as refused:
            table.run(JoinSeat(game_id, 1, "Someone"), who)
        assert refused.value.code is Violation.SEAT_RESERVED
    table.run(JoinSeat(game_id, 1, None), ren)
    seat = table.public(game_id).seats[1]
    assert (seat.name, seat.reserved_for) == ("Ren", None)
    # The invitation's entry becomes the seat's: one entry, nothing to do while waiting.
    assert entries(table, ren) == [(game_id, 1, None, False)]


def test_a_declined_seat_is_free_for_anyone_and_leaves_the_inbox(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id = inviting(table, mio, Invitation(ren.player_id))
    with pytest.raises(RuleViolationError) as refused:
        table.run(DeclineSeat(game_id, 1), mio)
    assert refused.value.code is Violation.SEAT_RESERVED
    with pytest.raises(RuleViolationError) as refused:
        table.run(DeclineSeat(game_id, 2), ren)
    assert refused.value.code is Violation.NOT_RESERVED
    table.run(DeclineSeat(game_id, 1), ren)
    assert table.public(game_id).seats[1].reserved_for is None
    assert entries(table, ren) == []
    assert table.types(game_id)[-1] == "SeatDeclined"
    table.join(game_id, 1)  # anyone's now


def test_declining_needs_a_player_token(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id = inviting(table, mio, Invitation(ren.player_id))
    with pytest.raises(UnauthenticatedError):
        table.run(DeclineSeat(game_id, 1))


def test_inviting_needs_a_player_token(table: Table) -> None:
    ren = player(table, "Ren")
    with pytest.raises(UnauthenticatedError):
        table.run(CreateGame(3, Scoring.BASIC, invite=(Invitation(ren.player_id),)))


@pytest.mark.parametrize(
    ("invite", "code"),
    [
        (lambda a, b: (Invitation(uuid4()),), "unknown_player"),
        (lambda a, b: (Invitation(a, 3),), "unknown_seat"),
        (lambda a, b: (Invitation(a, 1), Invitation(b, 1)), "seat_taken"),
        (lambda a, b: (Invitation(a), Invitation(a)), "invited_twice"),
        (
            lambda a, b: (Invitation(a), Invitation(b), Invitation(uuid4()), Invitation(a)),
            "seat_taken",
        ),
    ],
)
def test_invitations_that_cannot_be_kept_are_refused(table: Table, invite, code) -> None:  # type: ignore[no-untyped-def]
    mio, ren, aiko = player(table, "Mio"), player(table, "Ren"), player(table, "Aiko")
    with pytest.raises(InvalidInputError) as refused:
        inviting(table, mio, *invite(ren.player_id, aiko.player_id))
    assert refused.value.code == code
    assert table.db.committed.events == {}  # nothing was written


def test_invitations_take_the_seats_bots_leave(table: Table) -> None:
    mio, ren = player(table, "Mio"), player(table, "Ren")
    created = table.run(
        CreateGame(
            3,
            Scoring.BASIC,
            bots=(BotSeat(1, BotLevel.BASIC),),
            invite=(Invitation(ren.player_id),),
        ),
        mio,
    )
    assert isinstance(created, Created)
    assert [s.reserved_for for s in table.public(created.game_id).seats] == [
        None,
        None,
        str(ren.player_id),
    ]


def test_an_invitation_names_who_invites_and_the_games_entry_alone_is_asked_for(
    table: Table,
) -> None:
    """Issue 48: an invitation's entry names its inviter; ``game`` asks for one game's
    entry (how the game page learns whether its player holds a seat before asking for
    the seat's view): none for a game the player has no seat of."""
    mio, ren = player(table, "Mio"), player(table, "Ren")
    game_id = inviting(table, mio, Invitation(ren.player_id))
    page = inbox(table.deps, ren, "all", None, 10, game=game_id)
    assert isinstance(page, InboxPage)
    assert [(e.game_id, e.invited_by, e.invited_by_name, e.rematch_of) for e in page.games] == [
        (game_id, mio.player_id, "Mio", None)
    ]
    table.run(JoinSeat(game_id, 1, None), ren)
    page = inbox(table.deps, ren, "active", None, 10, game=game_id)
    assert isinstance(page, InboxPage)
    assert [(e.action, e.invited_by) for e in page.games] == [(None, mio.player_id)]  # kept
    finished = inbox(table.deps, ren, "finished", None, 10, game=game_id)
    assert isinstance(finished, InboxPage) and finished.games == []  # `status` still applies
    elsewhere = inbox(table.deps, ren, "all", None, 10, game=uuid4())
    assert isinstance(elsewhere, InboxPage) and elsewhere.games == []
