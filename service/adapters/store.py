"""The PostgreSQL event store, projections and unit of work (SQLAlchemy Core, psycopg 3)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Self
from uuid import UUID

from sqlalchemy import Connection, Engine, Row, and_, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from service.adapters.tables import events, games, idempotency_keys, seat_credentials
from service.application.ports import (
    Actor,
    ActorKind,
    AppendConflictError,
    DuplicateKeyError,
    GameSummary,
    SealedResponse,
    StoredEvent,
)

UNIQUE_VIOLATION = "23505"


def _is_unique_violation(exc: IntegrityError) -> bool:
    return getattr(exc.orig, "sqlstate", None) == UNIQUE_VIOLATION


class SqlEventStore:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def load(
        self, game_id: UUID, *, after: int = 0, upto: int | None = None, limit: int | None = None
    ) -> list[StoredEvent]:
        query = select(events).where(events.c.game_id == game_id, events.c.seq > after)
        if upto is not None:
            query = query.where(events.c.seq <= upto)
        query = query.order_by(events.c.seq)
        if limit is not None:
            query = query.limit(limit)
        return [
            StoredEvent(
                game_id=r.game_id,
                seq=r.seq,
                type=r.type,
                schema_version=r.schema_version,
                data=r.data,
                recorded_at=r.recorded_at,
                actor=Actor(ActorKind(r.actor_kind), r.actor_seat),
                request_id=r.request_id,
                idempotency_key=r.idempotency_key,
                prev_hash=r.prev_hash,
                hash=r.hash,
            )
            for r in self._conn.execute(query)
        ]

    def append(self, rows: Sequence[StoredEvent]) -> None:
        try:
            self._conn.execute(
                insert(events),
                [
                    {
                        "game_id": e.game_id,
                        "seq": e.seq,
                        "type": e.type,
                        "schema_version": e.schema_version,
                        "data": e.data,
                        "recorded_at": e.recorded_at,
                        "actor_kind": e.actor.kind.value,
                        "actor_seat": e.actor.seat,
                        "request_id": e.request_id,
                        "idempotency_key": e.idempotency_key,
                        "prev_hash": e.prev_hash,
                        "hash": e.hash,
                    }
                    for e in rows
                ],
            )
        except IntegrityError as exc:
            if _is_unique_violation(exc):
                raise AppendConflictError(str(rows[0].game_id)) from exc
            raise


def _summary(r: Row[Any]) -> GameSummary:
    return GameSummary(
        id=r.id,
        created_at=r.created_at,
        updated_at=r.updated_at,
        players=r.players,
        scoring=r.scoring,
        variant=r.variant,
        status=r.status,
        version=r.version,
    )


class SqlGameIndex:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def add(self, summary: GameSummary) -> None:
        self._conn.execute(
            insert(games).values(
                id=summary.id,
                created_at=summary.created_at,
                updated_at=summary.updated_at,
                players=summary.players,
                scoring=summary.scoring,
                variant=summary.variant,
                status=summary.status,
                version=summary.version,
            )
        )

    def update(self, game_id: UUID, *, status: str, version: int, updated_at: datetime) -> None:
        self._conn.execute(
            update(games)
            .where(games.c.id == game_id)
            .values(status=status, version=version, updated_at=updated_at)
        )

    def get(self, game_id: UUID) -> GameSummary | None:
        row = self._conn.execute(select(games).where(games.c.id == game_id)).first()
        return None if row is None else _summary(row)

    def page(
        self, *, status: str | None, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[GameSummary]:
        query = select(games)
        if status is not None:
            query = query.where(games.c.status == status)
        if before is not None:
            created, ident = before
            query = query.where(
                or_(
                    games.c.created_at < created,
                    and_(games.c.created_at == created, games.c.id < ident),
                )
            )
        query = query.order_by(games.c.created_at.desc(), games.c.id.desc()).limit(limit)
        return [_summary(r) for r in self._conn.execute(query)]

    def ids(self) -> list[UUID]:
        return list(self._conn.scalars(select(games.c.id).order_by(games.c.created_at)))


class SqlCredentials:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        try:
            self._conn.execute(
                insert(seat_credentials).values(
                    game_id=game_id, seat=seat, token_sha256=token_sha256, created_at=created_at
                )
            )
        except IntegrityError as exc:
            if _is_unique_violation(exc):  # a racing join took the seat first
                raise AppendConflictError(str(game_id)) from exc
            raise

    def find(self, token_sha256: str) -> tuple[UUID, int] | None:
        row = self._conn.execute(
            select(seat_credentials.c.game_id, seat_credentials.c.seat).where(
                seat_credentials.c.token_sha256 == token_sha256
            )
        ).first()
        return None if row is None else (row.game_id, row.seat)


class SqlIdempotencyStore:
    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def lock(self, scope: str, key_sha256: str) -> None:
        # A transaction-scoped advisory lock on 64 bits of the key's hash.
        lock_id = int.from_bytes(
            hashlib.sha256(f"{scope}|{key_sha256}".encode()).digest()[:8], "big", signed=True
        )
        self._conn.execute(select(func.pg_advisory_xact_lock(lock_id)))

    def get(self, scope: str, key_sha256: str) -> SealedResponse | None:
        row = self._conn.execute(
            select(idempotency_keys).where(
                idempotency_keys.c.scope == scope, idempotency_keys.c.key_sha256 == key_sha256
            )
        ).first()
        if row is None:
            return None
        return SealedResponse(row.fingerprint, row.status, bytes(row.body))

    def add(
        self, scope: str, key_sha256: str, response: SealedResponse, created_at: datetime
    ) -> None:
        try:
            self._conn.execute(
                insert(idempotency_keys).values(
                    scope=scope,
                    key_sha256=key_sha256,
                    fingerprint=response.fingerprint,
                    status=response.status,
                    body=response.body,
                    created_at=created_at,
                )
            )
        except IntegrityError as exc:
            if _is_unique_violation(exc):
                raise DuplicateKeyError(key_sha256) from exc
            raise


class SqlUnitOfWork:
    """One transaction on one pooled connection; rolled back unless committed.

    Writes run at READ COMMITTED: the (game_id, seq) key settles races. Queries
    (``snapshot``) run read-only at REPEATABLE READ, so every statement of a query sees
    the same snapshot (a version and the events up to it agree).
    """

    events: SqlEventStore
    games: SqlGameIndex
    credentials: SqlCredentials
    idempotency: SqlIdempotencyStore

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
