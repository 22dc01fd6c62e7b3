"""The unit of work (service/application/ports.py: UnitOfWork, UnitOfWorkFactory), on
the fakes and on PostgreSQL: one transaction whose writes are queued and done together
at commit, or not at all; its reads see what is committed, never its own queued writes;
a snapshot sees one state and writes nothing."""

from __future__ import annotations

from uuid import UUID, uuid4

import pytest

from service.application.games.ports import Snapshot
from service.application.identity.ports import PlayerRecord
from service.application.ports import AppendConflictError, UnitOfWork
from service.application.webhooks.ports import WebhookEndpoint
from service.application.write.ports import SealedRecord
from tests.contract.builders import (
    append,
    events,
    inbox_entry,
    made_token,
    minutes,
    new_game,
    new_player,
    sha,
    summary,
)
from tests.contract.stores import Store


def version(uow: UnitOfWork, game_id: UUID) -> int:
    found = uow.games.get(game_id)
    assert found is not None
    return found.version


def test_queued_writes_are_seen_by_no_one_until_the_commit(store: Store) -> None:
    """Not even by the unit of work's own reads: they are sent with the commit."""
    at = store.clock.now()
    game_id = new_game(store)
    with store.uow() as writer:
        writer.events.append(events(game_id, at, after=1))
        writer.games.update(game_id, status="playing", version=2, updated_at=at)
        assert [e.seq for e in writer.events.load(game_id)] == [1]
        assert writer.games.get(game_id) == summary(game_id, at)
        with store.uow() as other:
            assert [e.seq for e in other.events.load(game_id)] == [1]
        writer.commit()
    with store.uow() as reader:
        assert [e.seq for e in reader.events.load(game_id)] == [1, 2]
        assert reader.games.get(game_id) == summary(game_id, at, version=2, status="playing")


def test_a_unit_of_work_left_without_commit_leaves_nothing(store: Store) -> None:
    at = store.clock.now()
    game_id = new_game(store)
    mio = new_player(store)
    other, bo = uuid4(), PlayerRecord(uuid4(), "Bo", at)
    hook = WebhookEndpoint(uuid4(), None, "https://example.test/", ("turn",), at)
    with store.uow() as uow:
        uow.games.add(summary(other, at))
        uow.events.append(events(game_id, at, after=1))
        uow.games.update(game_id, status="playing", version=2, updated_at=at)
        uow.credentials.add(game_id, 0, sha("seat 0"), at)
        uow.idempotency.add("scope", sha("key"), SealedRecord("f", b"x"), at)
        uow.players.add(bo, made_token(bo.id, sha("bo"), at))
        uow.players.bind(game_id, 1, mio.id)
        uow.inbox.add(inbox_entry(mio.id, game_id, at, seat=1))
        uow.snapshots.put(Snapshot(game_id, 1, "h", 1, {"n": 1}))
        uow.wakeups.set(game_id, at, 1)
        uow.webhooks.add(hook, "whsec_x")
    with store.uow() as uow:
        assert uow.games.get(other) is None
        assert [e.seq for e in uow.events.load(game_id)] == [1]
        assert uow.games.get(game_id) == summary(game_id, at)
        assert uow.credentials.find(sha("seat 0")) is None
        assert uow.idempotency.get("scope", sha("key")) is None
        assert uow.players.get(bo.id) is None
        assert uow.players.seat_in(game_id, mio.id) is None
        assert uow.inbox.page(mio.id, ["playing"], None, 10) == []
        assert uow.snapshots.get(game_id, 1) is None
        assert uow.wakeups.next_due() is None
        assert uow.webhooks.get(hook.id) is None


def test_a_commit_that_fails_does_nothing_of_the_unit_of_work(store: Store) -> None:
    at = store.clock.now()
    game_id = new_game(store)
    with store.uow() as uow:
        uow.games.update(game_id, status="playing", version=2, updated_at=at)
        uow.idempotency.add("scope", sha("key"), SealedRecord("f", b"x"), at)
        uow.credentials.add(game_id, 0, sha("seat 0"), at)
        uow.events.append(events(game_id, at, data={"again": True}))  # seq 1 is taken
        with pytest.raises(AppendConflictError):
            uow.commit()
    with store.uow() as uow:
        assert uow.games.get(game_id) == summary(game_id, at)
        assert uow.idempotency.get("scope", sha("key")) is None
        assert uow.credentials.find(sha("seat 0")) is None
        (first,) = uow.events.load(game_id)
        assert first.data == {"n": 1}


def test_a_writer_reads_what_others_committed_since_its_last_read(store: Store) -> None:
    game_id = new_game(store)
    with store.uow() as writer:
        assert len(writer.events.load(game_id)) == 1
        append(store, game_id)
        assert len(writer.events.load(game_id)) == 2
        assert version(writer, game_id) == 2


def test_a_snapshot_sees_the_store_as_it_was_at_its_first_read(store: Store) -> None:
    game_id = new_game(store)
    with store.uow(snapshot=True) as snapshot:
        append(store, game_id)  # before its first read: seen
        assert version(snapshot, game_id) == 2
        append(store, game_id)
        later = new_game(store)
        assert version(snapshot, game_id) == 2
        assert len(snapshot.events.load(game_id)) == 2
        assert snapshot.games.get(later) is None
        assert {e.game_id for _, e in snapshot.events.read_all(None, 10)} == {game_id}
    with store.uow(snapshot=True) as snapshot:
        assert version(snapshot, game_id) == 3


def test_a_snapshot_writes_nothing(store: Store) -> None:
    at = store.clock.now()
    game_id = new_game(store)

    def finish_in_a_snapshot() -> None:
        with store.uow(snapshot=True) as snapshot:
            snapshot.games.update(game_id, status="finished", version=1, updated_at=at)
            snapshot.commit()

    with pytest.raises(store.read_only_error):  # at once, or at commit
        finish_in_a_snapshot()
    with store.uow() as uow:
        assert uow.games.get(game_id) == summary(game_id, at)


def test_the_writes_of_a_commit_see_the_store_as_it_was_before_it(store: Store) -> None:
    """A unit of work's writes are done together, as one statement: an update does not
    see the row the same commit adds (so the service never updates what it adds)."""
    at = store.clock.now()
    game_id = uuid4()
    with store.uow() as uow:
        uow.games.add(summary(game_id, at))
        uow.events.append(events(game_id, at))
        uow.games.update(game_id, status="playing", version=1, updated_at=at + minutes(1))
        uow.commit()
    with store.uow() as uow:
        assert uow.games.get(game_id) == summary(game_id, at)


def test_the_order_of_the_writes_does_not_matter_to_their_foreign_keys(store: Store) -> None:
    """Foreign keys are checked once every write of the commit is in."""
    at = store.clock.now()
    game_id = uuid4()
    with store.uow() as uow:
        uow.events.append(events(game_id, at))
        uow.credentials.add(game_id, 0, sha("seat 0"), at)
        uow.games.add(summary(game_id, at))
        uow.commit()
    with store.uow() as uow:
        assert [e.seq for e in uow.events.load(game_id)] == [1]
        assert uow.credentials.find(sha("seat 0")) == (game_id, 0)
