"""Fixtures for everything that touches storage: a real PostgreSQL server, migrated by
alembic in the session (never SQLite, never a mock of the store).

With ``TEST_DATABASE_URL`` set, the tests use that server (they create their own
databases on it, so the user needs CREATEDB); otherwise an embedded server (pgserver)
is started in a temporary folder and deleted afterwards.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from service.adapters import migrate
from service.adapters.db import sqlalchemy_url
from service.adapters.embedded import EmbeddedPostgres
from service.bootstrap import Container, build
from service.settings import Settings
from service.web.app import create_app
from tests.service.api import OPERATOR_TOKEN, Api


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    """A URL of the PostgreSQL server's maintenance database (a superuser's)."""
    given = os.environ.get("TEST_DATABASE_URL")
    if given:
        yield given
        return
    import pgserver  # noqa: PLC0415 - only when no server is given

    # Outside pytest's temporary tree: pytest prunes old run folders, which could pull the
    # data folder from under a server still used by a concurrent session.
    folder = Path(tempfile.mkdtemp(prefix="yokai-test-pg-"))
    server = pgserver.get_server(folder / "data", cleanup_mode="delete")  # type: ignore[attr-defined]
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def new_database(server_url: str, prefix: str = "yokai_test") -> str:
    """Create an empty database on the test server; returns its URL."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    EmbeddedPostgres.create_database(server_url, name)
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def database_url(server_url: str) -> str:
    """The suite's database, migrated to head by alembic."""
    url = new_database(server_url)
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="session")
def settings(database_url: str) -> Settings:
    return Settings(database_url=database_url, operator_token=OPERATOR_TOKEN, rate_limit="")


@pytest.fixture(scope="session")
def container(settings: Settings) -> Iterator[Container]:
    built = build(settings)
    yield built
    built.engine.dispose()


@pytest.fixture(scope="session")
def app(settings: Settings, container: Container) -> Flask:
    return create_app(settings, container)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def api(client: FlaskClient) -> Api:
    return Api(client)


@pytest.fixture
def sql(database_url: str) -> Iterator[Any]:
    """Run SQL on the suite's database as the same (super)user, in autocommit."""
    engine = create_engine(sqlalchemy_url(database_url), isolation_level="AUTOCOMMIT")

    def run(statement: str, **params: Any) -> list[Any]:
        with engine.connect() as conn:
            result = conn.execute(text(statement), params)
            return list(result) if result.returns_rows else []

    yield run
    engine.dispose()
