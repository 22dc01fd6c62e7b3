"""The lobby's store (service/application/lobby/ports.py: Lobby), on the fakes and on
PostgreSQL (issue 29): a row per public game, put with each command of it; pages of the
games with an open seat, oldest first, by filter; the stamp that changes with any row;
the rows changed since a time (those that left too); and forgetting rows that left."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from service.application.lobby.ports import LobbyEntry, LobbyFilter, LobbySeat
from service.rules import OnTimeout, TurnClock
from tests.contract.builders import new_game, new_player, seat_player
from tests.contract.stores import Store


def table(
    game_id: UUID,
    at: datetime,
    *,
    players: int = 4,
    variant: str = "standard",
    open_seats: int | None = None,
    names: tuple[str | None, ...] = (),
) -> LobbyEntry:
    seats = tuple(LobbySeat(s, names[s] if s < len(names) else None) for s in range(players))
    free = players - sum(n is not None for n in names) if open_seats is None else open_seats
    return LobbyEntry(
        game_id, players, "basic", variant, False, TurnClock(60, OnTimeout.AUTOPLAY), seats,
        free, at, at,
    )  # fmt: skip


def put(store: Store, entry: LobbyEntry) -> None:
    with store.uow() as uow:
        uow.lobby.put(entry)
        uow.commit()


def test_open_tables_are_paged_oldest_first_by_filter(store: Store) -> None:
    at = store.clock.now()
    games = [new_game(store) for _ in range(4)]
    put(store, table(games[0], at))
    put(store, table(games[1], at + timedelta(minutes=1), players=3))
    put(store, table(games[2], at + timedelta(minutes=2), variant="seven_followers"))
    put(store, table(games[3], at + timedelta(minutes=3), open_seats=0))  # left
    with store.uow() as uow:
        everything = uow.lobby.page(LobbyFilter(), None, 10)
        assert [e.game_id for e in everything] == games[:3]
        assert everything[0].clock == TurnClock(60, OnTimeout.AUTOPLAY)
        first = uow.lobby.page(LobbyFilter(), None, 1)
        rest = uow.lobby.page(LobbyFilter(), (first[0].created_at, first[0].game_id), 10)
        assert [e.game_id for e in first + rest] == games[:3]
        assert [e.game_id for e in uow.lobby.page(LobbyFilter(players=3), None, 10)] == [games[1]]
        found = uow.lobby.page(LobbyFilter(players=4, variant="standard"), None, 10)
        assert [e.game_id for e in found] == [games[0]]
        assert uow.lobby.page(LobbyFilter(rated=True), None, 10) == []


def test_a_put_keeps_when_the_table_was_listed_and_shows_who_sits(store: Store) -> None:
    at = store.clock.now()
    game_id, mio = new_game(store), new_player(store)
    put(store, table(game_id, at))
    seat_player(store, game_id, 1, mio.id)
    later = at + timedelta(minutes=5)
    with store.uow() as uow:
        uow.lobby.put(table(game_id, later, names=(None, "Mio")))
        assert uow.lobby.page(LobbyFilter(), None, 10)[0].open_seats == 4  # queued
        uow.commit()
    with store.uow() as uow:
        (entry,) = uow.lobby.page(LobbyFilter(), None, 10)
    assert (entry.created_at, entry.updated_at, entry.open_seats) == (at, later, 3)
    assert [(s.name, s.player_id) for s in entry.seats[:2]] == [(None, None), ("Mio", mio.id)]


def test_the_stamp_and_the_changes_see_tables_come_and_go(store: Store) -> None:
    at = store.clock.now()
    a, b = new_game(store), new_game(store)
    with store.uow() as uow:
        assert uow.lobby.stamp(LobbyFilter()) == (0, None)
    put(store, table(a, at))
    put(store, table(b, at + timedelta(minutes=1), players=3))
    with store.uow() as uow:
        assert uow.lobby.stamp(LobbyFilter()) == (2, at + timedelta(minutes=1))
        assert uow.lobby.stamp(LobbyFilter(players=4)) == (1, at)
    put(store, table(a, at + timedelta(minutes=2), open_seats=0))  # a left
    with store.uow() as uow:
        assert uow.lobby.stamp(LobbyFilter(players=4)) == (0, at + timedelta(minutes=2))
        changed = uow.lobby.changed(LobbyFilter(), at + timedelta(minutes=1))
        assert [(e.game_id, e.open_seats) for e in changed] == [(b, 3), (a, 0)]
        assert [e.game_id for e in uow.lobby.changed(LobbyFilter(players=3), at)] == [b]


def test_tables_that_left_are_forgotten_after_a_while(store: Store) -> None:
    at = store.clock.now()
    a, b, c = new_game(store), new_game(store), new_game(store)
    put(store, table(a, at, open_seats=0))
    put(store, table(b, at + timedelta(minutes=10), open_seats=0))
    put(store, table(c, at))  # still open: kept whatever its age
    with store.uow() as uow:
        assert uow.lobby.forget(at + timedelta(minutes=5), 10) == 1
    with store.uow() as uow:
        left = uow.lobby.changed(LobbyFilter(), at)
        assert sorted(e.game_id for e in left) == sorted([b, c])
