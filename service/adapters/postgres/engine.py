"""Connecting to PostgreSQL through SQLAlchemy with the psycopg 3 driver."""

from __future__ import annotations

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import URL, make_url

from service.adapters.postgres.session import check_connections_on_checkout


def sqlalchemy_url(database_url: str) -> URL:
    """A plain ``postgresql://`` URL (as hosting providers give it) for the psycopg driver."""
    url = make_url(database_url)
    if url.drivername in ("postgres", "postgresql", "postgresql+psycopg"):
        return url.set(drivername="postgresql+psycopg")
    raise ValueError(f"DATABASE_URL must be a postgresql:// URL, not {url.drivername}://")


def make_engine(database_url: str, pool_size: int = 5, *, prepared: bool = True) -> Engine:
    """The service's pool. ``prepared=False`` keeps psycopg from preparing statements on
    the server, which PgBouncer in transaction mode (before 1.21) cannot follow: the next
    transaction may run on another server connection."""
    connect_args: dict[str, object] = {"connect_timeout": 5}
    if not prepared:
        connect_args["prepare_threshold"] = None
    engine = create_engine(
        sqlalchemy_url(database_url),
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_recycle=1800,
        # An unreachable server must fail fast (readyz answers 503, not a worker timeout).
        connect_args=connect_args,
    )
    check_connections_on_checkout(engine)
    return engine
