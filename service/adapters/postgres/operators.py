"""Operator tokens kept in the database, by name (``yokai operator create|revoke``).

Only a token's SHA-256 is stored. The service's role reads them (:class:`SqlOperators`);
only the tables' owner makes and revokes them (:func:`create`, :func:`revoke`), so an
injection into the service cannot mint itself an operator.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from service.adapters.postgres.engine import sqlalchemy_url
from service.adapters.postgres.session import Session


class SqlOperators:
    def __init__(self, session: Session) -> None:
        self._session = session

    def find(self, token_sha256: str) -> str | None:
        rows = self._session.fetch(
            "SELECT name FROM operators WHERE token_sha256 = %s AND revoked_at IS NULL",
            [token_sha256],
            one_row=True,
        )
        return rows[0][0] if rows else None


class OperatorExistsError(Exception):
    """An operator of that name exists (or existed: names are never reused)."""


def create(owner_url: str, name: str, token_sha256: str) -> None:
    """Keep a new operator token (as the tables' owner); :class:`OperatorExistsError` if
    the name was ever taken."""
    engine = create_engine(sqlalchemy_url(owner_url))
    try:
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO operators (name, token_sha256, created_at) VALUES (:n, :t, :at)"),
                {"n": name, "t": token_sha256, "at": datetime.now(UTC)},
            )
    except IntegrityError:
        raise OperatorExistsError(name) from None
    finally:
        engine.dispose()


def revoke(owner_url: str, name: str) -> bool:
    """Revoke the operator's token from now on (as the owner); whether there was one."""
    engine = create_engine(sqlalchemy_url(owner_url))
    try:
        with engine.begin() as conn:
            done = conn.execute(
                text(
                    "UPDATE operators SET revoked_at = :at WHERE name = :n AND revoked_at IS NULL"
                ),
                {"n": name, "at": datetime.now(UTC)},
            )
            return done.rowcount == 1
    finally:
        engine.dispose()


def listing(owner_url: str) -> list[tuple[str, datetime, datetime | None]]:
    """Every operator kept in the database: name, created, revoked (oldest first)."""
    engine = create_engine(sqlalchemy_url(owner_url))
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT name, created_at, revoked_at FROM operators ORDER BY created_at")
            )
            return [(r[0], r[1], r[2]) for r in rows]
    finally:
        engine.dispose()
