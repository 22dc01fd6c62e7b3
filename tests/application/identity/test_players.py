"""Players through the handlers: a player's join binds the seat and opens an inbox entry,
one seat per game, and the entry follows the game."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service.application.commands import CreatePlayer, JoinSeat, PassCards
from service.application.errors import AlreadySeatedError, InvalidInputError
from service.application.games.ports import InboxEntry
from service.application.games.queries.inbox import inbox
from service.application.games.queries.views import seat_view
from service.application.identity.bearer import token_digest
from service.application.identity.principals import PlayerHolder, Principal
from service.application.results import InboxPage, PlayerCreated, Versioned
from tests.application.table import Table, ordered_deal


def player(table: Table, name: str = "Mio") -> PlayerHolder:
    created = table.run(CreatePlayer(name))
    assert isinstance(created, PlayerCreated)
    return PlayerHolder(created.player_id, token_digest(created.token))


def test_a_players_join_binds_the_seat_and_opens_an_inbox_entry(table: Table) -> None:
    mio = player(table)
    game_id = table.create()
    table.run(JoinSeat(game_id, 1, None), mio)

    assert table.public(game_id).seats[1].name == "Mio"
    page = inbox(table.deps, mio, "all", None, 10)
    assert isinstance(page, InboxPage)
    (entry,) = page.games
    assert (entry.game_id, entry.seat, entry.status, entry.my_turn) == (
        game_id,
        1,
        "waiting",
        False,
    )
    # The seat is the player's wherever the game is concerned.
    holder = table.deps.identity.in_game(mio, game_id)
    assert (holder.game_id, holder.seat) == (game_id, 1)  # type: ignore[union-attr]


def test_a_player_holds_one_seat_per_game(table: Table) -> None:
    mio = player(table)
    game_id = table.create()
    table.run(JoinSeat(game_id, 0, None), mio)
    seated = table.deps.identity.in_game(mio, game_id)
    with pytest.raises(AlreadySeatedError):
        table.run(JoinSeat(game_id, 2, None), seated)


def test_the_entry_follows_the_game_and_the_turn(table: Table) -> None:
    mio = player(table)
    game_id = table.create()
    table.dealer.script.append(ordered_deal())
    table.run(JoinSeat(game_id, 0, None), mio)
    others = [table.deps.identity.identify(table.join(game_id, s).token) for s in (1, 2, 3)]

    def entry() -> InboxEntry:
        page = inbox(table.deps, mio, "active", None, 10)
        assert isinstance(page, InboxPage)
        (only,) = page.games
        return only

    first = entry()
    assert (first.status, first.my_turn, first.action) == ("passing", True, "pass")
    assert first.due_since is not None

    def pass_three(principal: Principal) -> None:
        view = seat_view(table.deps, game_id, principal)
        assert isinstance(view, Versioned)
        table.run(PassCards(game_id, view.view.legal[:3]), principal)

    table.clock.advance(timedelta(seconds=5))
    pass_three(others[0])
    assert entry().due_since == first.due_since  # still my turn, waiting since then

    pass_three(table.deps.identity.in_game(mio, game_id))
    after = entry()
    assert (after.my_turn, after.action, after.due_since) == (False, None, None)


def test_an_anonymous_join_needs_a_name(table: Table) -> None:
    with pytest.raises(InvalidInputError):
        table.run(JoinSeat(table.create(), 0, None))
