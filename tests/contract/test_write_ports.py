"""The write path's store (service/application/write/ports.py: IdempotencyStore), on the
fakes and on PostgreSQL: the sealed outcome of each command sent with a key, stored once
per key and scope, held by a lock while a command decides, forgotten when old."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service.application.write.ports import DuplicateKeyError, SealedRecord
from tests.contract.builders import new_game, sha, summary
from tests.contract.stores import Store


def keep(store: Store, scope: str, key: str, record: SealedRecord, age: timedelta) -> None:
    with store.uow() as uow:
        uow.idempotency.add(scope, sha(key), record, store.clock.now() - age)
        uow.commit()


def test_an_outcome_is_read_back_under_its_key_and_scope(store: Store) -> None:
    sealed = SealedRecord("f" * 64, b"\x00sealed outcome\xff")
    legacy = SealedRecord("e" * 64, b'{"rendered": true}', legacy_status=201)
    keep(store, "seat:a", "key", sealed, timedelta())
    keep(store, "seat:b", "key", legacy, timedelta())
    with store.uow() as uow:
        assert uow.idempotency.get("seat:a", sha("key")) == sealed
        assert uow.idempotency.get("seat:b", sha("key")) == legacy
        assert uow.idempotency.get("seat:c", sha("key")) is None
        assert uow.idempotency.get("seat:a", sha("another key")) is None


def test_a_taken_key_is_a_duplicate_at_commit(store: Store) -> None:
    """A twin stored its outcome first: the caller replays it. Nothing of the unit of
    work is done."""
    at = store.clock.now()
    game_id = new_game(store)
    first = SealedRecord("f" * 64, b"first")
    keep(store, "scope", "key", first, timedelta())
    with store.uow() as uow:
        uow.games.update(game_id, status="playing", version=1, updated_at=at)
        uow.idempotency.add("scope", sha("key"), SealedRecord("g" * 64, b"second"), at)
        with pytest.raises(DuplicateKeyError):
            uow.commit()
    with store.uow() as uow:
        assert uow.idempotency.get("scope", sha("key")) == first
        assert uow.games.get(game_id) == summary(game_id, at)


def test_a_key_stored_twice_in_one_unit_of_work_is_a_duplicate(store: Store) -> None:
    at = store.clock.now()
    with store.uow() as uow:
        uow.idempotency.add("scope", sha("key"), SealedRecord("f" * 64, b"one"), at)
        uow.idempotency.add("scope", sha("key"), SealedRecord("f" * 64, b"two"), at)
        with pytest.raises(DuplicateKeyError):
            uow.commit()
    with store.uow() as uow:
        assert uow.idempotency.get("scope", sha("key")) is None


def test_a_locked_key_is_held_until_the_unit_of_work_ends(store: Store) -> None:
    """From the read that follows the lock (the adapter sends it with that read) until
    the commit, or until the unit of work is left without one."""
    for commit in (True, False):
        with store.uow() as uow:
            uow.idempotency.lock("scope", sha("key"))
            uow.idempotency.lock("scope", sha("key"))  # again, by the same unit of work
            assert uow.idempotency.get("scope", sha("key")) is None
            assert store.key_held("scope", sha("key"))
            assert not store.key_held("scope", sha("another key"))
            assert not store.key_held("another scope", sha("key"))
            if commit:
                uow.commit()
                assert not store.key_held("scope", sha("key"))
        assert not store.key_held("scope", sha("key"))


def test_expiry_forgets_a_batch_of_the_outcomes_stored_before_a_time(store: Store) -> None:
    """At once: the unit of work need not commit."""
    for n, age in enumerate((3, 2, 1)):
        keep(store, "scope", f"key {n}", SealedRecord("f" * 64, b"x"), timedelta(days=age))
    keep(store, "other", "key 3", SealedRecord("f" * 64, b"x"), timedelta(days=3))
    cutoff = store.clock.now() - timedelta(days=1)  # the newest, stored at the cutoff, stays
    with store.uow() as uow:
        assert uow.idempotency.expire(cutoff, 2) == 2
    with store.uow() as uow:
        assert uow.idempotency.expire(cutoff, 10) == 1
        assert uow.idempotency.expire(cutoff, 10) == 0
    with store.uow() as uow:
        kept = [n for n in range(3) if uow.idempotency.get("scope", sha(f"key {n}"))]
        assert kept == [2]
        assert uow.idempotency.get("other", sha("key 3")) is None
