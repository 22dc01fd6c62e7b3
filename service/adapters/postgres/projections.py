"""Projections kept in the same transaction as the events: the games index (listings,
cheap version checks) and the seats' credentials."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, Row, and_, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from service.adapters.postgres.errors import is_unique_violation
from service.adapters.postgres.tables import games, seat_credentials
from service.application.ports import AppendConflictError, GameSummary


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
            if is_unique_violation(exc):  # a racing join took the seat first
                raise AppendConflictError(game_id) from exc
            raise

    def find(self, token_sha256: str) -> tuple[UUID, int] | None:
        row = self._conn.execute(
            select(seat_credentials.c.game_id, seat_credentials.c.seat).where(
                seat_credentials.c.token_sha256 == token_sha256
            )
        ).first()
        return None if row is None else (row.game_id, row.seat)
