"""Blocks and follows' store (service/application/social/ports.py), on the fakes and on
PostgreSQL (issue 47): choices kept once each, undone, listed oldest first by page, the
pairs a block keeps apart (either way), the public games a player sits in that are not
over, and an erasure's forgetting of the player's choices and of others' about them."""

from __future__ import annotations

from datetime import timedelta
from uuid import UUID

from tests.contract.builders import new_game, new_player, seat_player
from tests.contract.stores import Store


def choose(store: Store, table: str, player: UUID, *others: UUID) -> None:
    for other in others:
        with store.uow() as uow:
            getattr(uow, table).add(player, other, store.clock.now())
            uow.commit()
        store.clock.advance(timedelta(seconds=1))


def test_a_block_is_kept_once_undone_and_listed_oldest_first(store: Store) -> None:
    mio, ren, aiko = (new_player(store, n) for n in ("Mio", "Ren", "Aiko"))
    choose(store, "blocks", mio.id, ren.id, aiko.id, ren.id)
    with store.uow() as uow:
        assert uow.blocks.blocked_by(mio.id) == {ren.id, aiko.id}
        first = uow.blocks.page(mio.id, None, 1)
        assert [(p.player_id, p.name) for p in first] == [(ren.id, "Ren")]
        rest = uow.blocks.page(mio.id, (first[0].since, first[0].player_id), 5)
        assert [p.player_id for p in rest] == [aiko.id]
        assert uow.blocks.blocked_by(ren.id) == frozenset()
    with store.uow() as uow:
        uow.blocks.remove(mio.id, ren.id)
        uow.commit()
    with store.uow() as uow:
        assert uow.blocks.blocked_by(mio.id) == {aiko.id}


def test_the_pairs_a_block_keeps_apart_are_found_either_way(store: Store) -> None:
    mio, ren, aiko, kai = (new_player(store, n) for n in ("Mio", "Ren", "Aiko", "Kai"))
    choose(store, "blocks", ren.id, mio.id)
    choose(store, "blocks", aiko.id, kai.id)
    with store.uow() as uow:
        assert uow.blocks.apart([mio.id, ren.id, aiko.id]) == {frozenset((mio.id, ren.id))}
        assert uow.blocks.apart([mio.id, aiko.id, kai.id]) == {frozenset((aiko.id, kai.id))}
        assert uow.blocks.apart([mio.id]) == frozenset()


def test_a_followed_players_public_games_not_over_are_what_they_play(store: Store) -> None:
    mio, ren, aiko = (new_player(store, n) for n in ("Mio", "Ren", "Aiko"))
    choose(store, "follows", mio.id, ren.id, aiko.id)
    games = {}
    for name, status, public in (
        ("public", "playing", True),
        ("private", "playing", False),
        ("finished", "finished", True),
        ("waiting", "waiting", True),
    ):
        games[name] = new_game(store, status=status)
        store.clock.advance(timedelta(seconds=1))
        seat_player(store, games[name], 0, ren.id)
        if public:
            with store.uow() as uow:
                uow.follows.public(games[name])
                uow.commit()
    with store.uow() as uow:
        assert set(uow.follows.followed(mio.id)) == {ren.id, aiko.id}
        assert uow.follows.playing([ren.id, aiko.id]) == [
            (ren.id, games["public"]),
            (ren.id, games["waiting"]),
        ]
        friends = uow.follows.page(mio.id, None, 5, store.clock.now())
    assert [(f.player_id, f.name, f.playing) for f in friends] == [
        (ren.id, "Ren", (games["public"], games["waiting"])),
        (aiko.id, "Aiko", ()),
    ]


def test_forgetting_a_player_drops_their_choices_and_others_about_them(store: Store) -> None:
    mio, ren, aiko = (new_player(store, n) for n in ("Mio", "Ren", "Aiko"))
    for table in ("blocks", "follows"):
        choose(store, table, mio.id, ren.id, aiko.id)
        choose(store, table, ren.id, mio.id, aiko.id)
    with store.uow() as uow:
        uow.blocks.forget(mio.id)
        uow.follows.forget(mio.id)
        uow.commit()
    with store.uow() as uow:
        assert uow.blocks.blocked_by(mio.id) == frozenset()
        assert uow.blocks.blocked_by(ren.id) == {aiko.id}
        assert uow.follows.followed(mio.id) == []
        assert uow.follows.followed(ren.id) == [aiko.id]
