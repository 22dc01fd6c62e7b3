"""This process's connections for units of work (session.py): psycopg connections kept
in autocommit, handed out without SQLAlchemy's pool.

Why not SQLAlchemy's pool here: its checkout and checkin (a proxy and a record for each
connection, its events, the rollback on return, its queue's condition) cost a unit of
work 10-15 µs of CPU under gevent against 1-2 µs here, and its overflow connections,
closed at checkin whenever the pool already held its size, came back as new connections
under load: each a new backend, preparing and planning every statement again. Here the
connection returned last goes out first (its statements are prepared and their plans
kept), at most ``limit`` are open at once, and one is closed only when it broke, grew
old (``recycle``) or the pool was disposed of. The engine (engine.py) keeps SQLAlchemy's
pool for the rest: the health check, the store's gauges, the key vault.

A unit of work waiting for a connection parks its greenlet under gevent, or blocks its
thread under threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any, Protocol

import psycopg
from gevent.monkey import get_original, is_module_patched  # type: ignore[import-untyped]

_IDLE = psycopg.pq.TransactionStatus.IDLE

_POLL: Any = get_original("select", "poll")
"""The system's poll, even where gevent has patched ``select`` (gunicorn's gevent
workers): gevent's goes through its event loop even with a zero timeout, which cost
15-30 µs a checkout there; a check that never waits needs no loop. (select.select
cannot take descriptors past 1023.)"""


def _semaphore(value: int) -> Any:
    """gevent's own semaphore where gevent has patched ``threading``: its
    ``threading.Semaphore`` is then a Python condition over gevent's locks, 3.5 µs an
    acquire and release against 0.2."""
    if is_module_patched("threading"):
        from gevent.lock import Semaphore  # type: ignore[import-untyped]  # noqa: PLC0415

        return Semaphore(value)
    return threading.Semaphore(value)


class Bus(Protocol):
    """Where the units of work publish, once committed, what they announce on the
    channels it carries, instead of PostgreSQL's NOTIFY (service/adapters/bus.py
    ``Notices``: Redis, with YOKAI_REDIS_URL). Publishing never raises: the commit
    stands, and what Redis does not take is kept and published again."""

    channels: frozenset[str]

    def publish(self, notices: Sequence[tuple[str, str]]) -> None: ...


class Connections:
    def __init__(
        self,
        conninfo: str,
        limit: int,
        *,
        prepared: bool = True,
        bus: Bus | None = None,
        recycle: float = 1800.0,
        timeout: float = 30.0,
        connect_timeout: int = 5,
    ) -> None:
        self.limit = limit
        self.bus = bus
        """With YOKAI_REDIS_URL: a relay announces the commits, and the other
        announcements go there once committed (session.py ``notify``)."""
        self._conninfo = conninfo
        self._options: dict[str, Any] = {"autocommit": True, "connect_timeout": connect_timeout}
        if not prepared:  # PgBouncer in transaction mode (engine.py make_engine)
            self._options["prepare_threshold"] = None
        self._recycle, self._timeout = recycle, timeout
        self._slots = _semaphore(limit)
        # No lock: a list's append and pop, a set's add and discard and a dict's get, set
        # and pop are each atomic (the GIL; under gevent nothing switches in between).
        self._idle: list[psycopg.Connection[Any]] = []
        self._out: set[psycopg.Connection[Any]] = set()
        self._born: dict[psycopg.Connection[Any], tuple[int, float]] = {}
        self._generation = 0

    @property
    def relayed(self) -> bool:
        """A relay announces the commits: the commands do not notify them, and each
        connection says so to the inbox's trigger (migration 0016)."""
        return self.bus is not None

    def in_use(self) -> int:
        return len(self._out)

    def take(self) -> psycopg.Connection[Any]:
        """An open connection, idle, in autocommit: the one returned last that is still
        sound, else a new one. Waits while ``limit`` are in use; psycopg's
        OperationalError when none comes free in time or the server cannot be reached."""
        if not self._slots.acquire(timeout=self._timeout):
            raise psycopg.OperationalError(
                f"no database connection came free in {self._timeout:g} s ({self.limit} in use)"
            )
        try:
            while True:
                try:
                    conn = self._idle.pop()
                except IndexError:
                    conn = self._connect()
                    break
                if self._sound(conn):
                    break
                self._close(conn)
        except BaseException:
            self._slots.release()
            raise
        self._out.add(conn)
        return conn

    def give(self, conn: psycopg.Connection[Any]) -> None:
        """``conn`` back, idle: kept for the next unit of work unless it is not sound (then
        closed)."""
        try:
            born = self._born.get(conn)
            keep = (
                born is not None
                and born[0] == self._generation
                and not conn.closed
                and conn.pgconn.transaction_status == _IDLE
            )
            if keep:
                self._idle.append(conn)
            else:
                self._close(conn)
        finally:
            self._release(conn)

    def discard(self, conn: psycopg.Connection[Any]) -> None:
        """``conn`` is broken: closed, its place free for a new one."""
        try:
            self._close(conn)
        finally:
            self._release(conn)

    def dispose(self) -> None:
        """Close the idle connections; those in use are closed when given back. The pool
        opens new ones afterwards (as SQLAlchemy's does after ``Engine.dispose``)."""
        self._generation += 1
        idle, self._idle = self._idle, []
        for conn in idle:
            self._close(conn)

    # -- internals -----------------------------------------------------------------------

    def _connect(self) -> psycopg.Connection[Any]:
        conn = psycopg.Connection.connect(self._conninfo, **self._options)
        if self.relayed:
            conn.execute("SET yokai.relayed = on")
        self._born[conn] = (self._generation, time.monotonic())
        return conn

    def _sound(self, conn: psycopg.Connection[Any]) -> bool:
        born = self._born.get(conn)
        if born is None or born[0] != self._generation:
            return False
        return time.monotonic() - born[1] <= self._recycle and not went_away(conn)

    def _close(self, conn: psycopg.Connection[Any]) -> None:
        self._born.pop(conn, None)
        conn.close()

    def _release(self, conn: psycopg.Connection[Any]) -> None:
        self._out.discard(conn)
        self._slots.release()


def went_away(conn: psycopg.Connection[Any]) -> bool:
    """Without a round trip, whether an idle connection is closed or its server went away
    (a restart, an idle timeout, a failover): its socket is then readable, most likely
    the server saying it is terminating the connection (an idle connection has nothing
    to read unless the server spoke first)."""
    if conn.closed or conn.broken:
        return True
    poller = _POLL()
    try:
        poller.register(conn.fileno(), 1)  # POLLIN
        return bool(poller.poll(0))
    except (OSError, ValueError):
        return True
