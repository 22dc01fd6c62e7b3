"""The two implementations every contract check runs on, each behind a :class:`Store`:
the in-memory fakes of tests/application/fakes/, and the PostgreSQL adapters
(service/adapters/postgres) on a database of the contract suite's own (see conftest.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import UUID

from psycopg import errors as pg_errors
from sqlalchemy import Engine, text

from service.adapters.postgres import operators
from service.adapters.postgres.idempotency import advisory_lock_id
from service.adapters.postgres.seeks import pool_lock_id
from service.adapters.postgres.tables import metadata
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.application.ports import UnitOfWork
from service.application.seeks.ports import Pool
from tests.application.fakes import Database, FixedClock, IntegrityViolation, TransactionError

START = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


class Store(ABC):
    """One implementation of the ports, and what a check may do around them: what the
    store's owner does outside any unit of work (revoke a credential, keep an operator
    token), and what another transaction would find (a held idempotency key)."""

    name: str
    integrity_error: type[Exception]
    """What a broken key or foreign key that the ports do not translate raises."""
    read_only_error: type[Exception]
    """What a write in a snapshot unit of work raises."""

    def __init__(self) -> None:
        self.clock = FixedClock(START)

    @abstractmethod
    def uow(self, *, snapshot: bool = False) -> UnitOfWork:
        """The UnitOfWorkFactory."""

    @abstractmethod
    def revoke_credential(self, game_id: UUID, seat: int) -> None:
        """The seat's token no longer opens it (its credential is gone)."""

    @abstractmethod
    def unseat(self, game_id: UUID, seat: int) -> None:
        """No player holds the seat any more."""

    @abstractmethod
    def keep_operator(self, name: str, token_sha256: str) -> None:
        """An operator token, as ``yokai operator create`` keeps it."""

    @abstractmethod
    def revoke_operator(self, name: str) -> None:
        """As ``yokai operator revoke``."""

    @abstractmethod
    def key_held(self, scope: str, key_sha256: str) -> bool:
        """Whether another transaction that locked this idempotency key would wait."""

    @abstractmethod
    def pool_held(self, pool: Pool) -> bool:
        """Whether another pairing of this pool would wait."""

    @abstractmethod
    def seek_held(self, seek_id: UUID) -> bool:
        """Whether another transaction that holds this seek would wait."""


class FakeStore(Store):
    name = "fake"
    integrity_error = IntegrityViolation
    read_only_error = TransactionError

    def __init__(self) -> None:
        super().__init__()
        self.db = Database()

    def uow(self, *, snapshot: bool = False) -> UnitOfWork:
        return self.db.unit_of_work(snapshot=snapshot)

    def revoke_credential(self, game_id: UUID, seat: int) -> None:
        self.db.change(lambda t: t.credentials.pop((game_id, seat)))

    def unseat(self, game_id: UUID, seat: int) -> None:
        self.db.change(lambda t: t.seat_players.pop((game_id, seat)))

    def keep_operator(self, name: str, token_sha256: str) -> None:
        self.db.operators[token_sha256] = name

    def revoke_operator(self, name: str) -> None:
        for digest in [d for d, n in self.db.operators.items() if n == name]:
            del self.db.operators[digest]

    def key_held(self, scope: str, key_sha256: str) -> bool:
        return self.db.key_held(scope, key_sha256)

    def pool_held(self, pool: Pool) -> bool:
        return self.db.held(("seek-pool", pool.key))

    def seek_held(self, seek_id: UUID) -> bool:
        return self.db.held(("seek", seek_id))


@dataclass(frozen=True)
class ContractDatabase:
    owner_url: str
    owner: Engine  # the tables' owner: for what the service's role may not do
    app: Engine  # the service's least-privilege role


# Every table of the schema, emptied before each check. The events' append-only guard
# refuses TRUNCATE even to their owner: it is lifted for that statement only, in the
# same transaction.
_EMPTY = (
    "BEGIN; ALTER TABLE events DISABLE TRIGGER events_no_truncate; "
    f"TRUNCATE {', '.join(t.name for t in metadata.sorted_tables)} RESTART IDENTITY; "
    "ALTER TABLE events ENABLE TRIGGER events_no_truncate; COMMIT"
)


class PostgresStore(Store):
    name = "postgres"
    integrity_error = pg_errors.IntegrityError
    read_only_error = pg_errors.ReadOnlySqlTransaction

    def __init__(self, database: ContractDatabase) -> None:
        super().__init__()
        self.database = database
        with database.owner.connect() as conn:
            conn.exec_driver_sql(_EMPTY)

    def uow(self, *, snapshot: bool = False) -> UnitOfWork:
        return SqlUnitOfWork(self.database.app, snapshot=snapshot)

    def _owner_sql(self, statement: str, **params: object) -> list[tuple[object, ...]]:
        with self.database.owner.connect() as conn:
            result = conn.execute(text(statement), params)
            return [tuple(r) for r in result] if result.returns_rows else []

    def revoke_credential(self, game_id: UUID, seat: int) -> None:
        self._owner_sql(
            "DELETE FROM seat_credentials WHERE game_id = :g AND seat = :s", g=game_id, s=seat
        )

    def unseat(self, game_id: UUID, seat: int) -> None:
        self._owner_sql(
            "DELETE FROM seat_players WHERE game_id = :g AND seat = :s", g=game_id, s=seat
        )

    def keep_operator(self, name: str, token_sha256: str) -> None:
        operators.create(self.database.owner_url, name, token_sha256)

    def revoke_operator(self, name: str) -> None:
        operators.revoke(self.database.owner_url, name)

    def key_held(self, scope: str, key_sha256: str) -> bool:
        # Taken (and let go at once, in autocommit) only if no transaction holds it.
        with self.database.owner.connect() as conn:
            taken = conn.scalar(
                text("SELECT pg_try_advisory_xact_lock(:id)"),
                {"id": advisory_lock_id(scope, key_sha256)},
            )
        return not taken

    def pool_held(self, pool: Pool) -> bool:
        with self.database.owner.connect() as conn:
            taken = conn.scalar(
                text("SELECT pg_try_advisory_xact_lock(:id)"), {"id": pool_lock_id(pool)}
            )
        return not taken

    def seek_held(self, seek_id: UUID) -> bool:
        with self.database.owner.connect() as conn:
            free = conn.scalar(
                text("SELECT id FROM seeks WHERE id = :id FOR UPDATE SKIP LOCKED"),
                {"id": seek_id},
            )
        return free is None
