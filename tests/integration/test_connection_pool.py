"""The units of work's pool (service/adapters/postgres/pool.py) on the suite's server:
the connection given back last goes out first, at most ``limit`` are open and a unit of
work waits for one (then fails as a store it cannot reach), and a connection is kept only
while it is sound. (Connections the server dropped, high descriptors and an unreachable
server, through the app: tests/integration/test_store_connection.py.)"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from service.adapters.postgres.pool import Connections

Conn = psycopg.Connection[Any]


@pytest.fixture
def pool(database_url: str) -> Iterator[Connections]:
    made = Connections(database_url, 2, timeout=0.2)
    yield made
    made.dispose()


def backend(conn: Conn) -> int:
    row = conn.execute("SELECT pg_backend_pid()").fetchone()
    assert row is not None
    return int(row[0])


def test_the_connection_given_back_last_goes_out_first(pool: Connections) -> None:
    first, second = pool.take(), pool.take()
    assert backend(first) != backend(second)
    pool.give(first)
    pool.give(second)
    again = pool.take()
    assert again is second  # its prepared statements are the warm ones
    assert again.autocommit
    pool.give(again)


def test_past_the_limit_a_unit_of_work_waits_then_fails_as_an_unreachable_store(
    pool: Connections,
) -> None:
    held = [pool.take(), pool.take()]
    assert pool.in_use() == 2
    with pytest.raises(psycopg.OperationalError, match="came free"):
        pool.take()
    pool.give(held.pop())
    taken = pool.take()  # a place came free
    for conn in [*held, taken]:
        pool.give(conn)
    assert pool.in_use() == 0


def test_a_connection_given_back_in_a_transaction_is_closed_not_kept(
    pool: Connections,
) -> None:
    conn = pool.take()
    conn.execute("BEGIN")
    pool.give(conn)
    assert conn.closed
    fresh = pool.take()
    assert fresh is not conn
    pool.give(fresh)


def test_a_broken_connection_is_replaced_and_its_place_freed(pool: Connections, sql: Any) -> None:
    conn = pool.take()
    pid = backend(conn)
    pool.give(conn)
    sql("SELECT pg_terminate_backend(:p)", p=pid)
    deadline = time.monotonic() + 10  # terminating only signals: wait until it has ended
    while sql("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = :p", p=pid)[0].n:
        assert time.monotonic() < deadline, "the terminated backend did not end"
        time.sleep(0.01)
    # The server closed it while it was idle in the pool: taking notices (its socket is
    # readable), closes it and hands out a new one.
    taken = pool.take()
    assert backend(taken) != pid
    pool.discard(taken)
    assert pool.in_use() == 0


def test_disposing_closes_the_idle_connections_and_those_in_use_when_given_back(
    pool: Connections,
) -> None:
    idle, busy = pool.take(), pool.take()
    pool.give(idle)
    pool.dispose()
    assert idle.closed
    pool.give(busy)
    assert busy.closed
    after = pool.take()  # the pool still serves, with new connections
    assert not after.closed
    pool.give(after)


def test_a_connection_past_its_recycle_age_is_replaced(database_url: str) -> None:
    pool = Connections(database_url, 1, recycle=0.0)
    try:
        conn = pool.take()
        pool.give(conn)
        again = pool.take()
        assert again is not conn and conn.closed
        pool.give(again)
    finally:
        pool.dispose()
