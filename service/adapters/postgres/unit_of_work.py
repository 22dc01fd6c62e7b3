"""One transaction on one pooled connection, with every store on it."""

from __future__ import annotations

from types import TracebackType
from typing import Self

from sqlalchemy import Connection, Engine

from service.adapters.postgres.events import SqlEventStore
from service.adapters.postgres.idempotency import SqlIdempotencyStore
from service.adapters.postgres.outbox import SqlOutbox
from service.adapters.postgres.projections import SqlCredentials, SqlGameIndex


class SqlUnitOfWork:
    """One transaction; rolled back unless committed.

    Writes run at READ COMMITTED: the (game_id, seq) key settles races. Queries
    (``snapshot``) run read-only at REPEATABLE READ, so every statement of a query sees
    the same snapshot (a version and the events up to it agree).
    """

    events: SqlEventStore
    games: SqlGameIndex
    credentials: SqlCredentials
    idempotency: SqlIdempotencyStore
    outbox: SqlOutbox

    def __init__(self, engine: Engine, *, snapshot: bool = False) -> None:
        self._engine = engine
        self._snapshot = snapshot
        self._conn: Connection | None = None

    def __enter__(self) -> Self:
        conn = self._engine.connect()
        if self._snapshot:
            conn = conn.execution_options(
                isolation_level="REPEATABLE READ", postgresql_readonly=True
            )
        conn.begin()
        self._conn = conn
        self.events = SqlEventStore(conn)
        self.games = SqlGameIndex(conn)
        self.credentials = SqlCredentials(conn)
        self.idempotency = SqlIdempotencyStore(conn)
        self.outbox = SqlOutbox(conn)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._conn is not None
        try:
            if self._conn.in_transaction():
                self._conn.rollback()
        finally:
            self._conn.close()
            self._conn = None

    def commit(self) -> None:
        assert self._conn is not None
        self._conn.commit()
