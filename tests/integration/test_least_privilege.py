"""Least privilege (issue 15; docs/security.md): the service's own role appends and
reads events but can neither change nor remove them, nor switch off the guard; it plays
whole games; its connections carry statement and idle-in-transaction timeouts."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from service import cli
from service.adapters import migrate
from service.adapters.postgres.engine import sqlalchemy_url
from service.adapters.postgres.roles import IDLE_IN_TRANSACTION_TIMEOUT, STATEMENT_TIMEOUT
from service.settings import Settings
from tests.support.api import Api
from tests.support.postgres import new_database, running_app

INSUFFICIENT_PRIVILEGE = "42501"
ROLE = "yokai_lp_test"


@pytest.fixture(scope="module")
def owner_url(server_url: str) -> str:
    url = new_database(server_url, prefix="yokai_lp")
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="module")
def app_url(owner_url: str) -> str:
    """The role as `yokai db create-app-role` makes it (its printed DATABASE_URL)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("YOKAI_MIGRATION_DATABASE_URL", owner_url)
    mp.setenv("YOKAI_LP_PASSWORD", "not-a-real-secret-1")
    try:
        printed: list[str] = []
        mp.setattr("builtins.print", lambda *a, **k: printed.append(str(a[0])))
        assert cli.main(["db", "create-app-role", ROLE, "--password-env", "YOKAI_LP_PASSWORD"]) == 0
        assert cli.main(["db", "create-app-role", ROLE, "--password-env", "YOKAI_LP_PASSWORD"]) == 0
    finally:
        mp.undo()
    assert printed[0] == printed[1] and f"{ROLE}:" in printed[0]
    return printed[0]


@pytest.fixture(scope="module")
def as_app(app_url: str) -> Iterator[Engine]:
    engine = create_engine(sqlalchemy_url(app_url), isolation_level="AUTOCOMMIT")
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def played(app_url: str, settings: Settings) -> str:
    """A whole game played by the service running as the role; its id."""
    with running_app(dataclasses.replace(settings, database_url=app_url)) as made:
        api: Api = made.api()
        game = api.start(4)
        for _ in api.play_out(game, random.Random(2)):
            pass
        assert api.public(game.id)["status"] == "finished"
        return game.id


def refused(engine: Engine, statement: str, **params: Any) -> str:
    with pytest.raises(DBAPIError) as caught, engine.connect() as conn:
        conn.execute(text(statement), params)
    state = getattr(caught.value.orig, "sqlstate", None)
    assert state == INSUFFICIENT_PRIVILEGE, caught.value
    return str(caught.value.orig)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE events SET data = '{}'::jsonb WHERE game_id = :g",
        "DELETE FROM events WHERE game_id = :g",
        "TRUNCATE events",
        "ALTER TABLE events DISABLE TRIGGER ALL",
        "DROP TRIGGER IF EXISTS events_append_only ON events",
        "DROP TABLE events",
        "SET session_replication_role = replica",
        "CREATE TABLE forged (x int)",
        "UPDATE alembic_version SET version_num = '0001'",
        # Operator tokens are made and revoked by the owner only (yokai operator).
        "INSERT INTO operators VALUES ('mallory', repeat('a', 64), now(), NULL)",
        "UPDATE operators SET revoked_at = NULL",
        "DELETE FROM operators",
    ],
)
def test_the_services_role_cannot_change_the_history_or_its_guard(
    as_app: Engine, played: str, statement: str
) -> None:
    refused(as_app, statement, g=played)


def test_the_services_role_appends_and_reads_events(as_app: Engine, played: str) -> None:
    with as_app.connect() as conn:
        count = conn.scalar(text("SELECT count(*) FROM events WHERE game_id = :g"), {"g": played})
        super_ = conn.scalar(text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"))
    assert count and count > 50
    assert super_ is False


def test_the_services_connections_time_out(as_app: Engine) -> None:
    with as_app.connect() as conn:
        statement = conn.scalar(text("SHOW statement_timeout"))
        idle = conn.scalar(text("SHOW idle_in_transaction_session_timeout"))
    assert (statement, idle) == (STATEMENT_TIMEOUT, "1min")
    assert IDLE_IN_TRANSACTION_TIMEOUT == "60s"


def test_a_bad_role_name_is_refused(
    owner_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("YOKAI_MIGRATION_DATABASE_URL", owner_url)
    assert cli.main(["db", "create-app-role", "Robert'); DROP TABLE events;--"]) == 2
    assert "role name" in capsys.readouterr().err
