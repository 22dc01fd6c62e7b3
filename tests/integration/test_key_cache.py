"""The keys a process keeps to open sealed names (service/adapters/postgres/keycache.py):
kept only while its own connection listens for destroyed keys, dropped when one is
destroyed anywhere, and none kept while it does not listen."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
from sqlalchemy import create_engine

from service.adapters.postgres.engine import sqlalchemy_url
from service.adapters.postgres.keycache import KeyCache
from service.adapters.postgres.privacy import SqlKeyVault
from tests.support.waiting import wait_for

Sql = Callable[..., list[Any]]


class Store:
    """A store of keys the test controls, which counts what is read from it."""

    def __init__(self) -> None:
        self.keys = {
            "p1": b"1" * 32,
            "p2": b"2" * 32,
            "d20261001": b"a" * 32,
            "d20261101": b"b" * 32,
        }
        self.reads: list[list[str]] = []

    def read(self, subjects: list[str]) -> Mapping[str, bytes]:
        self.reads.append(sorted(subjects))
        return {s: self.keys[s] for s in subjects if s in self.keys}


@pytest.fixture
def cache(app_database_url: str) -> Iterator[KeyCache]:
    made = KeyCache(app_database_url, poll_seconds=0.1)
    yield made
    made.stop()


def listening(cache: KeyCache, store: Store) -> None:
    cache.keys(["p1"], store.read)  # the first lookup starts the connection
    wait_for(cache.listening.is_set, "the cache listens")


def test_keys_are_kept_while_the_cache_listens(cache: KeyCache) -> None:
    store = Store()
    listening(cache, store)
    store.reads.clear()
    assert cache.keys(["p1", "p2"], store.read) == {"p1": b"1" * 32, "p2": b"2" * 32}
    assert cache.keys(["p1", "p2"], store.read) == {"p1": b"1" * 32, "p2": b"2" * 32}
    assert store.reads == [["p1", "p2"]]


def test_a_key_destroyed_elsewhere_is_dropped_when_announced(cache: KeyCache, sql: Sql) -> None:
    store = Store()
    listening(cache, store)
    cache.keys(["p1", "p2"], store.read)
    del store.keys["p1"]
    sql("SELECT pg_notify('yokai_keys', 'p1')")
    wait_for(lambda: "p1" not in cache.keys(["p1"], store.read), "p1 is dropped")
    assert cache.keys(["p2"], store.read) == {"p2": b"2" * 32}
    reads = len(store.reads)
    cache.keys(["p2"], store.read)
    assert len(store.reads) == reads  # p2 is still kept


def test_day_keys_before_a_day_are_dropped_together(cache: KeyCache, sql: Sql) -> None:
    store = Store()
    listening(cache, store)
    cache.keys(["d20261001", "d20261101", "p2"], store.read)
    del store.keys["d20261001"]
    sql("SELECT pg_notify('yokai_keys', 'before d20261015')")
    wait_for(lambda: cache.keys(["d20261001"], store.read) == {}, "the old day key is dropped")
    reads = len(store.reads)
    assert cache.keys(["d20261101", "p2"], store.read) == {
        "d20261101": b"b" * 32,
        "p2": b"2" * 32,
    }
    assert len(store.reads) == reads  # the later day and the player's key are kept


def test_nothing_is_kept_while_the_cache_does_not_listen(cache: KeyCache, sql: Sql) -> None:
    store = Store()
    listening(cache, store)
    cache.keys(["p2"], store.read)
    sql(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE application_name = 'yokai-keys'"
    )
    # Destroyed while nobody listened: no notification will say so.
    del store.keys["p2"]
    wait_for(lambda: cache.connections >= 2 and cache.listening.is_set(), "the cache listens again")
    assert cache.keys(["p2"], store.read) == {}


def test_what_was_opened_under_a_key_is_kept_as_long_as_the_key(cache: KeyCache, sql: Sql) -> None:
    store = Store()
    listening(cache, store)
    cache.keys(["p1", "p2"], store.read)
    kept = cache.opened(["p1", "p2", "d20261001"])
    assert set(kept) == {"p1", "p2"}  # only where the key is held
    kept["p1"]["pd1.n.p1.token"] = "Aiko"
    assert cache.opened(["p1"]) == {"p1": {"pd1.n.p1.token": "Aiko"}}
    sql("SELECT pg_notify('yokai_keys', 'p1')")
    wait_for(lambda: cache.opened(["p1"]) == {}, "what p1 opened is dropped with it")
    assert cache.opened(["p2"]) == {"p2": {}}


def test_without_a_database_url_every_lookup_reads_the_store() -> None:
    store = Store()
    cache = KeyCache(None)
    cache.keys(["p1"], store.read)
    cache.keys(["p1"], store.read)
    assert store.reads == [["p1"], ["p1"]]
    assert not cache.listening.is_set()
    assert cache.opened(["p1"]) == {}  # nothing opened is kept either


def test_a_vault_destroying_a_key_empties_every_process_cache(
    app_database_url: str, cache: KeyCache
) -> None:
    engine = create_engine(sqlalchemy_url(app_database_url))
    other = KeyCache(app_database_url, poll_seconds=0.1)
    try:
        here = SqlKeyVault(engine, None, cache)
        there = SqlKeyVault(engine, None, other)
        subject = f"p{os.urandom(6).hex()}"
        key = here.key(subject)
        wait_for(lambda: bool(here.keys([subject])) and cache.listening.is_set(), "here listens")
        wait_for(lambda: bool(there.keys([subject])) and other.listening.is_set(), "there listens")
        assert here.keys([subject]) == {subject: key} == there.keys([subject])
        here.destroy([subject])
        assert here.keys([subject]) == {}  # in the destroying process, at once
        wait_for(lambda: there.keys([subject]) == {}, "the other process drops the key")
    finally:
        other.stop()
        engine.dispose()
