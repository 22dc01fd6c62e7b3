"""The event store (service/application/ports.py: EventStore), on the fakes and on
PostgreSQL: each game's stream in ``seq`` order, read by bounds and pages; the
``(game_id, seq)`` key that settles races between writers; and every game's events in
the global order that feeds across games follow."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest

from service.application.integrity.chain import Origin
from service.application.ports import Actor, ActorKind, AppendConflictError, Position
from tests.contract.builders import append, events, new_game, summary
from tests.contract.stores import Store


def seqs(store: Store, game_id: UUID, **bounds: int) -> list[int]:
    with store.uow() as uow:
        return [e.seq for e in uow.events.load(game_id, **bounds)]


def test_an_event_is_read_back_as_it_was_appended(store: Store) -> None:
    at = store.clock.now()
    game_id = uuid4()
    origin = Origin("req-1", "a" * 64, "client-req-1", "203.0.113.9")
    actor = Actor(ActorKind.PLAYER, 2, str(uuid4()))
    data = {"cards": ["blue-13", "red-2"], "nested": {"n": 1, "none": None}}
    rows = events(game_id, at, count=2, actor=actor, origin=origin, data=data)
    with store.uow() as uow:
        uow.games.add(summary(game_id, at, version=2))
        uow.events.append(rows)
        uow.commit()
    with store.uow() as uow:
        assert uow.events.load(game_id) == rows


def test_load_gives_events_oldest_first_after_up_to_at_most_a_limit(store: Store) -> None:
    game_id = new_game(store, count=5)
    assert seqs(store, game_id) == [1, 2, 3, 4, 5]
    assert seqs(store, game_id, after=2) == [3, 4, 5]
    assert seqs(store, game_id, upto=3) == [1, 2, 3]
    assert seqs(store, game_id, limit=2) == [1, 2]
    assert seqs(store, game_id, after=1, upto=4, limit=2) == [2, 3]
    assert seqs(store, game_id, after=5) == []
    assert seqs(store, uuid4()) == []


def test_page_gives_the_version_and_the_events_up_to_it(store: Store) -> None:
    """The version is the games row's: events past it (not yet counted there) wait."""
    at = store.clock.now()
    game_id = uuid4()
    with store.uow() as uow:
        uow.games.add(summary(game_id, at, version=3))
        uow.events.append(events(game_id, at, count=5))
        uow.commit()
    with store.uow() as uow:
        found = uow.events.page(game_id, 1, 10)
        assert found is not None and found[0] == 3
        assert [e.seq for e in found[1]] == [2, 3]
        found = uow.events.page(game_id, 0, 2)
        assert found is not None and [e.seq for e in found[1]] == [1, 2]
        assert uow.events.page(game_id, 3, 10) == (3, [])
        assert uow.events.page(uuid4(), 0, 10) is None


def test_a_taken_seq_is_a_conflict_at_commit(store: Store) -> None:
    at = store.clock.now()
    game_id = new_game(store)
    with store.uow() as uow:
        uow.events.append(events(game_id, at, count=2))  # seq 1 is taken, seq 2 is free
        with pytest.raises(AppendConflictError) as conflict:
            uow.commit()
    assert conflict.value.game_id == game_id
    assert seqs(store, game_id) == [1]


def test_a_seq_appended_twice_in_one_unit_of_work_is_a_conflict(store: Store) -> None:
    at = store.clock.now()
    game_id = new_game(store)
    with store.uow() as uow:
        uow.events.append(events(game_id, at, after=1))
        uow.events.append(events(game_id, at, after=1))
        with pytest.raises(AppendConflictError):
            uow.commit()
    assert seqs(store, game_id) == [1]


def test_events_need_their_games_row(store: Store) -> None:
    game_id = uuid4()
    with store.uow() as uow:
        uow.events.append(events(game_id, store.clock.now()))
        with pytest.raises(store.integrity_error):
            uow.commit()
    assert seqs(store, game_id) == []


def test_commits_groups_events_by_the_unit_of_work_that_appended_them(store: Store) -> None:
    game_id = new_game(store, count=2)
    append(store, game_id, 1)
    append(store, game_id, 3)
    with store.uow() as uow:
        grouped = uow.events.commits(game_id, 0)
        assert [[e.seq for e in group] for group in grouped] == [[1, 2], [3], [4, 5, 6]]
        grouped = uow.events.commits(game_id, 1)
        assert [[e.seq for e in group] for group in grouped] == [[2], [3], [4, 5, 6]]
        assert uow.events.commits(game_id, 6) == []
        assert uow.events.commits(uuid4(), 0) == []


def read_all(store: Store, after: Position | None = None) -> list[tuple[Position, UUID, int]]:
    with store.uow(snapshot=True) as uow:
        return [(p, e.game_id, e.seq) for p, e in uow.events.read_all(after, 1000)]


def test_read_all_gives_every_commit_in_turn_each_in_its_append_order(store: Store) -> None:
    first = new_game(store, count=3)
    second = new_game(store, count=2)
    append(store, first, 1)
    read = read_all(store)
    assert [(g, s) for _, g, s in read] == [
        (first, 1),
        (first, 2),
        (first, 3),
        (second, 1),
        (second, 2),
        (first, 4),
    ]
    positions = [p for p, _, _ in read]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    assert len({p.transaction for p in positions}) == 3
    # Reading on from any position gives exactly the rest, a limit at a time.
    for i, position in enumerate(positions):
        assert read_all(store, position) == read[i + 1 :]
    with store.uow() as uow:
        assert [(p, e.game_id, e.seq) for p, e in uow.events.read_all(None, 2)] == read[:2]
        assert [(p, e.game_id, e.seq) for p, e in uow.events.read_all(read[1][0], 2)] == read[2:4]


def test_a_unit_of_work_that_commits_later_comes_later(store: Store) -> None:
    """Its place in the global order is taken when it commits, not when it appends: a
    reader that has moved past what committed first still finds it."""
    at = store.clock.now()
    early_game, late_game = new_game(store), new_game(store)
    cursor = read_all(store)[-1][0]
    with store.uow() as early:
        early.events.append(events(early_game, at, after=1))  # appended first ...
        append(store, late_game)  # ... another commits first
        assert [(g, s) for _, g, s in read_all(store, cursor)] == [(late_game, 2)]
        cursor = read_all(store, cursor)[-1][0]
        early.commit()
    assert [(g, s) for _, g, s in read_all(store, cursor)] == [(early_game, 2)]


def test_events_of_a_unit_of_work_left_without_commit_never_appear(store: Store) -> None:
    at, dropped = store.clock.now(), uuid4()
    with store.uow() as uow:
        uow.games.add(summary(dropped, at))
        uow.events.append(events(dropped, at))
    kept = new_game(store)
    assert [g for _, g, _ in read_all(store)] == [kept]
