"""Fixtures for everything that touches storage: a real PostgreSQL server, migrated by
alembic in the session (never SQLite, never a mock of the store), and the apps that run on
it: the suite's own, and more of them as other processes would run them (`make_app`).

With ``TEST_DATABASE_URL`` set, the tests use that server (they create their own
databases on it, so the user needs CREATEDB); otherwise an embedded server (pgserver)
is started in a temporary folder and deleted afterwards.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from service.adapters import migrate
from service.adapters.embedded import EmbeddedPostgres
from service.adapters.postgres import roles
from service.adapters.postgres.engine import sqlalchemy_url
from service.bootstrap import Container, build
from service.settings import Settings
from service.web.app import create_app
from tests.support.api import OPERATOR_TOKEN, Api


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


SUITE_APP_ROLE = "yokai_suite_app"


@pytest.fixture(scope="session")
def app_database_url(database_url: str) -> str:
    """The suite's database as the service's least-privilege role (docs/security.md):
    the service under test runs as it, as in production; ``database_url`` (the owner, a
    superuser) stays for the tests' own SQL."""
    return roles.grant_app_role(database_url, SUITE_APP_ROLE)


@pytest.fixture(scope="session")
def settings(app_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(
        erasure_list=tmp_path_factory.mktemp("privacy") / "erasures.list",
        database_url=app_database_url,
        operator_token=OPERATOR_TOKEN,
        rate_limit="",
        fairness_key=os.environ["YOKAI_FAIRNESS_KEY"],  # tests/conftest.py
        chain_key=os.environ["YOKAI_CHAIN_KEY"],
        vapid_private_key=os.environ["YOKAI_VAPID_PRIVATE_KEY"],
    )


@dataclass(frozen=True)
class AppUnderTest:
    """One process of the service: its container (engine, state cache) and its app."""

    container: Container
    flask: Flask

    def client(self) -> FlaskClient:
        return self.flask.test_client()

    def api(self) -> Api:
        return Api(self.flask.test_client())


@contextmanager
def running_app(settings: Settings, container: Container | None = None) -> Iterator[AppUnderTest]:
    """The app for ``settings``, on ``container`` or on a container of its own (as another
    worker process would have: its own engine and cache), disposed of afterwards."""
    built = container or build(settings)
    try:
        yield AppUnderTest(built, create_app(settings, built))
    finally:
        if container is None:
            built.close()


MakeApp = Callable[..., AppUnderTest]


@pytest.fixture(scope="session")
def suite_app(settings: Settings) -> Iterator[AppUnderTest]:
    with running_app(settings) as made:
        yield made


@pytest.fixture(scope="session")
def container(suite_app: AppUnderTest) -> Container:
    return suite_app.container


@pytest.fixture(scope="session")
def app(suite_app: AppUnderTest) -> Flask:
    return suite_app.flask


@pytest.fixture
def make_app(settings: Settings, container: Container) -> Iterator[MakeApp]:
    """More apps for one test: ``make_app()`` is another process on the suite's database;
    ``make_app(shared=True, rate_limit=...)`` the suite's process with other settings;
    ``make_app(database_url=...)`` a process on another database."""
    with ExitStack() as stack:

        def make(*, shared: bool = False, **overrides: Any) -> AppUnderTest:
            changed = dataclasses.replace(settings, **overrides)
            return stack.enter_context(running_app(changed, container if shared else None))

        yield make


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


def pg_tool(name: str) -> str:
    """A PostgreSQL client program (pg_dump, pg_restore) of the embedded server's own
    version when it is installed, else the system's."""
    import pgserver  # noqa: PLC0415 - only to find its programs

    bundled = Path(pgserver.__file__).parent / "pginstall" / "bin" / name
    if bundled.exists():
        return str(bundled)
    found = shutil.which(name)
    if found is None:  # pragma: no cover - both are installed by the project
        raise RuntimeError(f"{name} is not installed")
    return found


def migrated_database(server_url: str, prefix: str) -> str:
    """A new database on the test server, migrated to head (owned by the suite's user)."""
    url = new_database(server_url, prefix)
    migrate.upgrade(url)
    return url
