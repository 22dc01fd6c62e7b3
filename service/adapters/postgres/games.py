"""Projections kept in the same transaction as the events: the games index (listings,
cheap version checks) and the seats' credentials."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from service.adapters.postgres.session import Session, Statement
from service.application.games.ports import GameSummary, Head

_GAME_COLUMNS = "id, created_at, updated_at, players, scoring, variant, status, version"


def _summary(r: Sequence[Any]) -> GameSummary:
    return GameSummary(*r)


_FIRST = datetime.min.replace(tzinfo=UTC)
_LAST = datetime.max.replace(tzinfo=UTC)


def _utc(moment: datetime) -> datetime:
    """A time a client gave, as the same instant in UTC: PostgreSQL refuses offsets
    beyond ±15:59, which RFC 3339 allows up to ±23:59. An instant before year 1 or after
    9999 in UTC (years Python does not have) becomes the first or the last instant
    Python has: no game changed before the one or at the other, so the answer is the
    same."""
    offset = moment.utcoffset()
    if offset is None:  # pragma: no cover - the callers give aware times
        raise ValueError("a time without a time zone")
    try:
        return (moment.replace(tzinfo=None) - offset).replace(tzinfo=UTC)
    except OverflowError:
        return _FIRST if offset > timedelta(0) else _LAST


class SqlGameIndex:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, summary: GameSummary) -> None:
        self._session.write(
            Statement(
                f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (
                    summary.id,
                    summary.created_at,
                    summary.updated_at,
                    summary.players,
                    summary.scoring,
                    summary.variant,
                    summary.status,
                    summary.version,
                ),
            )
        )

    def update(self, game_id: UUID, *, status: str, version: int, updated_at: datetime) -> None:
        self._session.write(
            Statement(
                "UPDATE games SET status = %s, version = %s, updated_at = %s WHERE id = %s",
                (status, version, updated_at, game_id),
            )
        )

    def get(self, game_id: UUID) -> GameSummary | None:
        rows = self._session.fetch(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE id = %s", [game_id], one_row=True
        )
        return _summary(rows[0]) if rows else None

    def page(
        self, *, status: str | None, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[GameSummary]:
        conditions: list[str] = []
        params: list[Any] = []
        if status is not None:
            conditions.append("status = %s")
            params.append(status)
        if before is not None:
            conditions.append("(created_at, id) < (%s, %s)")
            params.extend(before)
        where = f"WHERE {' AND '.join(conditions)} " if conditions else ""
        sql = f"SELECT {_GAME_COLUMNS} FROM games {where}ORDER BY created_at DESC, id DESC LIMIT %s"
        return [_summary(r) for r in self._session.fetch(sql, [*params, limit])]

    def ids(self) -> list[UUID]:
        rows = self._session.fetch("SELECT id FROM games ORDER BY created_at, id")
        return [r[0] for r in rows]

    def idle(self, *, status: str, before: datetime, limit: int) -> list[UUID]:
        rows = self._session.fetch(
            "SELECT id FROM games WHERE status = %s AND updated_at < %s "
            "ORDER BY updated_at, id LIMIT %s",
            [status, before, limit],
        )
        return [r[0] for r in rows]

    def changed(
        self,
        *,
        status: str | None,
        since: datetime | None,
        after: tuple[datetime, UUID] | None,
        limit: int,
    ) -> list[GameSummary]:
        conditions: list[str] = []
        params: list[Any] = []
        if status is not None:
            conditions.append("status = %s")
            params.append(status)
        if since is not None:
            conditions.append("updated_at >= %s")
            params.append(_utc(since))
        if after is not None:
            conditions.append("(updated_at, id) > (%s, %s)")
            params.extend(after)
        where = f"WHERE {' AND '.join(conditions)} " if conditions else ""
        sql = f"SELECT {_GAME_COLUMNS} FROM games {where}ORDER BY updated_at, id LIMIT %s"
        return [_summary(r) for r in self._session.fetch(sql, [*params, limit])]

    def heads(
        self, *, since: datetime | None, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Head]:
        conditions: list[str] = []
        params: list[Any] = []
        if since is not None:
            conditions.append("g.updated_at >= %s")
            params.append(_utc(since))
        if after is not None:
            conditions.append("(g.updated_at, g.id) > (%s, %s)")
            params.extend(after)
        where = f"WHERE {' AND '.join(conditions)} " if conditions else ""
        sql = (
            "SELECT g.id, g.version, e.hash, g.updated_at FROM games AS g "
            "JOIN events AS e ON e.game_id = g.id AND e.seq = g.version "
            f"{where}ORDER BY g.updated_at, g.id LIMIT %s"
        )
        return [Head(*r) for r in self._session.fetch(sql, [*params, limit])]


class SqlCredentials:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        """Queued; at commit, :class:`AppendConflictError` if the seat has a token (a
        racing join took it first)."""
        self._session.write(
            Statement(
                "INSERT INTO seat_credentials (game_id, seat, token_sha256, created_at) "
                "VALUES (%s, %s, %s, %s)",
                (game_id, seat, token_sha256, created_at),
            ),
            game_id,
        )

    def find(self, token_sha256: str) -> tuple[UUID, int] | None:
        rows = self._session.fetch(
            "SELECT game_id, seat FROM seat_credentials WHERE token_sha256 = %s",
            [token_sha256],
            one_row=True,
        )
        return (rows[0][0], rows[0][1]) if rows else None

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        self._session.require(
            Statement(
                "SELECT yokai_require(EXISTS (SELECT FROM seat_credentials WHERE "
                "token_sha256 = %s AND game_id = %s AND seat = %s), 'seat credential')",
                (token_sha256, game_id, seat),
            )
        )
