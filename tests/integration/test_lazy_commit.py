"""The worker's webhook claims and records commit without waiting for the disk
(issue 13: the outbox must not slow play). Losing one in a crash of the server only
delivers again, which at-least-once allows; these tests prove the statements really turn
``synchronous_commit`` off for their own transaction, and only for it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from service.adapters.postgres.engine import sqlalchemy_url
from service.adapters.postgres.session import _LAZY_COMMIT, Statement, _one_statement
from service.adapters.postgres.webhooks import _CLAIM


@pytest.fixture
def conn(database_url: str) -> Iterator[psycopg.Connection[Any]]:
    url = sqlalchemy_url(database_url).set(drivername="postgresql")
    with psycopg.connect(url.render_as_string(hide_password=False)) as c:
        yield c


def _setting(conn: psycopg.Connection[Any]) -> str:
    row = conn.execute("SHOW synchronous_commit").fetchone()
    assert row is not None
    return str(row[0])


def test_a_claim_that_takes_a_delivery_commits_lazily(
    conn: psycopg.Connection[Any], sql: Any
) -> None:
    hook = uuid.uuid4()
    now = datetime.now(UTC)
    sql(
        "INSERT INTO webhooks (id, player_id, url, events, secret, created_at) "
        "VALUES (:id, NULL, 'http://127.0.0.1:9/x', ARRAY['turn'], 'whsec_x', :now)",
        id=hook,
        now=now,
    )
    try:
        sql(
            "INSERT INTO outbox (kind, payload, created_at, available_at, webhook_id, "
            "message_id) VALUES ('webhook', '{}', :now, :now, :id, 'msg_lazy')",
            id=hook,
            now=now - timedelta(days=400),  # before every other test's rows
        )
        assert _setting(conn) == "on"  # the server's default, and this connection's
        rows = conn.execute(
            _CLAIM, [[], [], [], 2, now, [], 64, 1, now, now + timedelta(seconds=60)]
        ).fetchall()  # in a transaction, as psycopg begins one: the setting is still visible
        assert [r[2] for r in rows] == ["msg_lazy"]
        assert _setting(conn) == "off"
        conn.rollback()
        assert _setting(conn) == "on"  # for that transaction only
    finally:
        sql("DELETE FROM webhooks WHERE id = :id", id=hook)  # its outbox rows go with it


def test_a_unit_of_work_asked_to_commit_lazily_does(conn: psycopg.Connection[Any]) -> None:
    write = Statement("UPDATE games SET version = version WHERE false")
    statement = _one_statement([_LAZY_COMMIT], [write])
    conn.execute(statement.sql, statement.params)
    assert _setting(conn) == "off"
    conn.rollback()
    plain = _one_statement([], [write])
    conn.execute(plain.sql, plain.params)
    assert _setting(conn) == "on"
    conn.rollback()
