"""Quick play's store (service/application/seeks/ports.py: Seeks, Ratings), on the fakes
and on PostgreSQL (issue 29): seeks kept as made, one open seek per player, cancelled and
matched only while open; the pairing's reads (a pool's open seeks, oldest first, held;
the pools that may pair now) and locks; expiry (at once, skipping held seeks), what is
due next, and a player's matches."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID, uuid4

import pytest

from service.application.seeks.ports import AlreadySeekingError, Pool, Seek, SeekStatus
from service.rules import OnTimeout, Scoring, TurnClock, Variant
from tests.contract.builders import new_game, new_player
from tests.contract.stores import Store

FOURS = Pool(4, Scoring.BASIC, Variant.STANDARD, False)
THREES = Pool(3, Scoring.ADVANCED, Variant.STANDARD, True, TurnClock(60, OnTimeout.FORFEIT))
DAY = timedelta(hours=24)


def seek(
    store: Store,
    player_id: UUID,
    pool: Pool = FOURS,
    *,
    at: datetime | None = None,
    rating_range: tuple[float, float] | None = None,
    bots_after: int | None = None,
    ttl: timedelta = DAY,
) -> Seek:
    """A committed open seek of the player."""
    at = at or store.clock.now()
    made = Seek(uuid4(), player_id, pool, rating_range, bots_after, SeekStatus.OPEN, at, at + ttl)
    with store.uow() as uow:
        uow.seeks.add(made)
        uow.commit()
    return made


def players(store: Store, n: int) -> list[UUID]:
    return [new_player(store, f"P{i}").id for i in range(n)]


def test_a_seek_is_kept_as_it_was_made(store: Store) -> None:
    (mio,) = players(store, 1)
    made = seek(store, mio, THREES, rating_range=(-1.5, 2.0), bots_after=30)
    plain = seek(store, players(store, 1)[0])
    with store.uow() as uow:
        assert uow.seeks.get(made.id) == made
        assert uow.seeks.get(plain.id) == plain
        assert uow.seeks.open_of(mio) == made
        assert uow.seeks.get(uuid4()) is None
        assert uow.seeks.open_of(uuid4()) is None


def test_a_player_has_one_open_seek_at_a_time(store: Store) -> None:
    (mio,) = players(store, 1)
    first = seek(store, mio)
    with store.uow() as uow:
        uow.seeks.add(replace_id(first))
        with pytest.raises(AlreadySeekingError):
            uow.commit()
    with store.uow() as uow:
        uow.seeks.cancel(first.id, store.clock.now())
        uow.commit()
    second = seek(store, mio, THREES)
    with store.uow() as uow:
        assert uow.seeks.open_of(mio) == second
        cancelled = uow.seeks.get(first.id)
    assert cancelled is not None
    assert (cancelled.status, cancelled.ended_at) == (SeekStatus.CANCELLED, store.clock.now())


def replace_id(made: Seek) -> Seek:
    return Seek(
        uuid4(),
        made.player_id,
        made.pool,
        made.rating_range,
        made.bots_after,
        SeekStatus.OPEN,
        made.created_at,
        made.expires_at,
    )


def test_only_an_open_seek_is_cancelled_or_matched(store: Store) -> None:
    a, b = players(store, 2)
    game_id = new_game(store)
    first, second = seek(store, a), seek(store, b)
    now = store.clock.now()
    with store.uow() as uow:
        uow.seeks.match(first.id, game_id, 2, now)
        uow.seeks.cancel(second.id, now)
        uow.commit()
    with store.uow() as uow:  # neither is open any more: nothing changes
        uow.seeks.cancel(first.id, now + timedelta(minutes=1))
        uow.seeks.match(second.id, game_id, 3, now + timedelta(minutes=1))
        uow.commit()
    with store.uow() as uow:
        matched, cancelled = uow.seeks.get(first.id), uow.seeks.get(second.id)
        assert uow.seeks.matched(a, now) == [matched]
        assert uow.seeks.matched(a, now + timedelta(seconds=1)) == []
        assert uow.seeks.matched(b, now) == []
    assert matched is not None and cancelled is not None
    assert (matched.status, matched.game_id, matched.seat, matched.ended_at) == (
        SeekStatus.MATCHED,
        game_id,
        2,
        now,
    )
    assert (cancelled.status, cancelled.game_id) == (SeekStatus.CANCELLED, None)


def test_a_pool_s_open_seeks_are_read_oldest_first_and_held(store: Store) -> None:
    ids = players(store, 6)
    at = store.clock.now()
    newer = seek(store, ids[0], at=at + timedelta(seconds=2))
    older = seek(store, ids[1], at=at)
    seek(store, ids[2], THREES, at=at)  # another pool
    gone = seek(store, ids[3], at=at - DAY, ttl=DAY)  # past its time
    suspended = seek(store, ids[4], at=at)
    cancelled = seek(store, ids[5], at=at)
    with store.uow() as uow:
        uow.players.suspend(ids[4], at, "cheating")
        uow.seeks.cancel(cancelled.id, at)
        uow.commit()
    now = at + timedelta(seconds=5)
    with store.uow() as uow:
        uow.seeks.lock_pool(FOURS)
        found = uow.seeks.waiting(FOURS, now, 10)
        assert [(w.seek, w.name) for w in found] == [(older, "P1"), (newer, "P0")]
        assert store.pool_held(FOURS) and not store.pool_held(THREES)
        assert store.seek_held(older.id) and store.seek_held(newer.id)
        assert not store.seek_held(gone.id) and not store.seek_held(suspended.id)
        assert [w.seek for w in uow.seeks.waiting(FOURS, now, 1)] == [older]
    assert not store.pool_held(FOURS)
    assert not store.seek_held(older.id)


def test_a_held_seek_is_read_as_it_stands(store: Store) -> None:
    (mio,) = players(store, 1)
    made = seek(store, mio)
    with store.uow() as uow:
        assert uow.seeks.hold(made.id) == made
        assert store.seek_held(made.id)
        assert uow.seeks.hold(uuid4()) is None
    assert not store.seek_held(made.id)


def test_the_pools_that_may_pair_now(store: Store) -> None:
    ids = players(store, 8)
    at = store.clock.now()
    for n, player in enumerate(ids[:4]):  # a full set of four, the oldest at +1 s
        seek(store, player, at=at + timedelta(seconds=1 + n))
    seek(store, ids[4], THREES, at=at + timedelta(seconds=2))  # one of three, no bots
    seek(store, ids[5], THREES, at=at + timedelta(seconds=3))
    late = Pool(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS, False)
    seek(store, ids[6], late, at=at, bots_after=10)  # the oldest; its bots due at +10 s
    with store.uow() as uow:
        assert uow.seeks.pools(at + timedelta(seconds=9), 10) == [FOURS]
        assert uow.seeks.pools(at + timedelta(seconds=10), 10) == [late, FOURS]
        assert uow.seeks.pools(at + timedelta(seconds=10), 1) == [late]
    seek(store, ids[7], THREES, at=at + timedelta(seconds=4))  # three of three
    with store.uow() as uow:
        assert uow.seeks.pools(at + timedelta(seconds=9), 10) == [FOURS, THREES]


def test_expiry_is_done_at_once_skipping_held_seeks(store: Store) -> None:
    a, b, c = players(store, 3)
    at = store.clock.now()
    first = seek(store, a, at=at, ttl=timedelta(hours=1))
    second = seek(store, b, at=at, ttl=timedelta(hours=2))
    third = seek(store, c, at=at, bots_after=60)
    with store.uow() as uow:
        assert uow.seeks.next_due(at) == at + timedelta(seconds=60)  # third's bots
        assert uow.seeks.next_due(at + timedelta(minutes=5)) == at + timedelta(hours=1)
    later = at + timedelta(hours=3)
    with store.uow() as holder:
        holder.seeks.hold(second.id)  # a pairing (or a cancel) holds it
        with store.uow() as uow:
            assert uow.seeks.expire(later, 10) == 1
        with store.uow() as uow:
            assert uow.seeks.expire(later, 10, player_id=a) == 0
    with store.uow() as uow:
        assert uow.seeks.expire(later, 10, player_id=c) == 0  # not past its time
        assert uow.seeks.expire(later, 10, player_id=b) == 1
    with store.uow() as uow:
        gone = [uow.seeks.get(s.id) for s in (first, second)]
        assert uow.seeks.open_of(a) is None
        assert uow.seeks.next_due(later) == third.expires_at
    assert [(s.status, s.ended_at) for s in gone if s is not None] == [
        (SeekStatus.EXPIRED, first.expires_at),
        (SeekStatus.EXPIRED, second.expires_at),
    ]
    assert first.status_at(later) is SeekStatus.EXPIRED


def test_a_player_without_a_rating_has_the_default_ordinal(store: Store) -> None:
    a, b = players(store, 2)
    with store.uow() as uow:
        assert uow.ratings.ordinals("standard-4p", [a, b]) == {a: 0.0, b: 0.0}
        assert uow.ratings.ordinals("standard-4p", []) == {}
