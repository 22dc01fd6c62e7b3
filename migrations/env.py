"""Alembic environment: the database URL comes from the caller or DATABASE_URL."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import create_engine, pool

from service.adapters.postgres.engine import sqlalchemy_url
from service.adapters.postgres.tables import metadata

config = context.config
target_metadata = metadata


def _url() -> str:
    url = config.attributes.get("database_url") or os.environ.get("DATABASE_URL")
    if not url:
        raise RuntimeError("set DATABASE_URL to the PostgreSQL database to migrate")
    return str(url)


def run_migrations_offline() -> None:
    context.configure(url=sqlalchemy_url(_url()), target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(sqlalchemy_url(_url()), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
