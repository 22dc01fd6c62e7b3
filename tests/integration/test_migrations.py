"""The alembic migrations, on databases of their own: upgrade, downgrade, upgrade again, and
the Core tables of service/adapters/postgres/tables.py agreeing with the schema they build."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, create_engine, inspect, text

from service.adapters import migrate
from service.adapters.postgres.engine import sqlalchemy_url
from service.adapters.postgres.tables import metadata
from tests.support.postgres import new_database

TABLES = {
    "games",
    "events",
    "seat_credentials",
    "idempotency_keys",
    "snapshots",
    "outbox",
    "wakeups",
    "webhooks",
    "webhook_attempts",
    "players",
    "seat_players",
    "inbox",
    "operators",
    "player_tokens",
    "identities",
    "link_codes",
    "player_audit",
    "lobby",
    "seeks",
    "ratings",
    "rating_history",
    "rated_games",
    "player_results",
    "privacy_keys",
    "relay_positions",
    "reputations",
    "reputation_marks",
    "notification_settings",
    "push_subscriptions",
    "email_codes",
    "watchers",
    "reminded",
    "reviews",
    "chat_messages",
    "chat_senders",
    "reports",
    "blocks",
    "follows",
    "public_games",
}
TRIGGERS = {"events_append_only", "events_no_truncate"}


@pytest.fixture
def fresh_url(server_url: str) -> str:
    """An empty database: nothing migrated yet."""
    return new_database(server_url, prefix="yokai_migrations")


@pytest.fixture
def engine(fresh_url: str) -> Iterator[Engine]:
    built = create_engine(sqlalchemy_url(fresh_url))
    yield built
    built.dispose()


def _tables(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())


def _triggers(engine: Engine) -> set[str]:
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal "
                "AND tgrelid = 'events'::regclass"
            )
        )
        return {r.tgname for r in rows}


def test_an_empty_database_is_at_no_revision_and_not_ready(fresh_url: str, engine: Engine) -> None:
    assert migrate.current_revision(engine) is None
    assert _tables(engine).isdisjoint(TABLES)
    ready, reason = migrate.DatabaseHealth(engine, fresh_url).ready()
    assert not ready
    assert "revision" in reason


def test_upgrade_builds_every_table_and_the_append_only_triggers(
    fresh_url: str, engine: Engine
) -> None:
    migrate.upgrade(fresh_url)

    assert _tables(engine) == TABLES | {"alembic_version"}
    assert _triggers(engine) == TRIGGERS
    assert migrate.current_revision(engine) == migrate.head_revision(fresh_url)
    assert migrate.head_revision(fresh_url) is not None
    assert migrate.DatabaseHealth(engine, fresh_url).ready() == (True, "ok")


def test_upgrade_twice_is_a_no_op(fresh_url: str, engine: Engine) -> None:
    migrate.upgrade(fresh_url)
    migrate.upgrade(fresh_url)

    assert _tables(engine) == TABLES | {"alembic_version"}
    assert _triggers(engine) == TRIGGERS
    assert migrate.current_revision(engine) == migrate.head_revision(fresh_url)


def test_downgrade_to_base_removes_everything_and_upgrade_rebuilds_it(
    fresh_url: str, engine: Engine
) -> None:
    migrate.upgrade(fresh_url)
    migrate.downgrade(fresh_url, "base")

    assert _tables(engine).isdisjoint(TABLES)
    assert migrate.current_revision(engine) is None
    with engine.connect() as conn:
        functions = conn.scalar(
            text("SELECT count(*) FROM pg_proc WHERE proname = 'events_append_only'")
        )
    assert functions == 0
    assert not migrate.DatabaseHealth(engine, fresh_url).ready()[0]

    migrate.upgrade(fresh_url)

    assert _tables(engine) == TABLES | {"alembic_version"}
    assert _triggers(engine) == TRIGGERS
    assert migrate.current_revision(engine) == migrate.head_revision(fresh_url)
    assert migrate.DatabaseHealth(engine, fresh_url).ready() == (True, "ok")


def test_the_rebuilt_schema_still_refuses_to_edit_events(fresh_url: str, engine: Engine) -> None:
    """After a downgrade and upgrade the guard is back: the triggers are not only listed
    but fire."""
    migrate.upgrade(fresh_url)
    migrate.downgrade(fresh_url, "base")
    migrate.upgrade(fresh_url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO games VALUES (gen_random_uuid(), now(), now(), 4, 'basic', "
                "'standard', 'waiting', 1)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO events (game_id, seq, type, schema_version, data, recorded_at, "
                "actor_kind, prev_hash, hash) SELECT id, 1, 'GameCreated', 1, '{}', now(), "
                "'system', repeat('0', 64), repeat('1', 64) FROM games"
            )
        )
    for statement in ("UPDATE events SET type = 'X'", "DELETE FROM events", "TRUNCATE events"):
        with pytest.raises(Exception, match="append-only"), engine.begin() as conn:
            conn.execute(text(statement))
    with engine.connect() as conn:
        assert conn.scalar(text("SELECT type FROM events")) == "GameCreated"


def test_the_core_tables_agree_with_the_migrated_schema(fresh_url: str, engine: Engine) -> None:
    migrate.upgrade(fresh_url)
    with engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        diffs = compare_metadata(context, metadata)
    assert diffs == []


def _columns(engine: Engine, table: str) -> dict[str, tuple[str, bool]]:
    return {
        c["name"]: (_type_name(engine, c["type"]), bool(c["nullable"]))
        for c in inspect(engine).get_columns(table)
    }


def _type_name(engine: Engine, type_: Any) -> str:
    return str(type_.compile(dialect=engine.dialect)).upper()


def test_every_column_has_the_type_and_nullability_of_the_core_table(
    fresh_url: str, engine: Engine
) -> None:
    """Column by column, independently of alembic's comparison."""
    migrate.upgrade(fresh_url)
    for table in metadata.sorted_tables:
        declared = {c.name: (_type_name(engine, c.type), bool(c.nullable)) for c in table.columns}
        assert _columns(engine, table.name) == declared, table.name
        reflected = inspect(engine).get_pk_constraint(table.name)
        assert reflected["constrained_columns"] == [c.name for c in table.primary_key.columns]


def _insert_event(conn: Any, game_id: str, seq: int, recorded_at: str) -> None:
    conn.execute(
        text(
            "INSERT INTO events (game_id, seq, type, schema_version, data, recorded_at, "
            "actor_kind, prev_hash, hash) VALUES (:g, :s, 'E', 1, '{}', :t, 'system', "
            "repeat('0', 64), repeat('1', 64))"
        ),
        {"g": game_id, "s": seq, "t": recorded_at},
    )


def test_events_stored_before_the_global_position_get_one_in_recorded_order(
    fresh_url: str, engine: Engine
) -> None:
    """0002 numbers the events already stored by when they were recorded (not by where
    they lie in the table), and new events come after them."""
    migrate.upgrade(fresh_url, "0001")
    a, b = "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"
    with engine.begin() as conn:
        for game in (a, b):
            conn.execute(
                text(
                    "INSERT INTO games VALUES (:g, now(), now(), 4, 'basic', 'standard', "
                    "'waiting', 2)"
                ),
                {"g": game},
            )
        # Inserted out of their recorded order.
        _insert_event(conn, b, 1, "2026-01-01T10:00:02Z")
        _insert_event(conn, a, 1, "2026-01-01T10:00:01Z")
        _insert_event(conn, a, 2, "2026-01-01T10:00:03Z")
        _insert_event(conn, b, 2, "2026-01-01T10:00:04Z")
    migrate.upgrade(fresh_url)
    with engine.begin() as conn:
        _insert_event(conn, a, 3, "2026-01-01T09:00:00Z")  # a new event: after the old ones
        rows = conn.execute(
            text(
                "SELECT game_id::text AS g, seq, transaction_id AS tx FROM events ORDER BY position"
            )
        ).all()
    assert [(r.g, r.seq) for r in rows] == [(a, 1), (b, 1), (a, 2), (b, 2), (a, 3)]
    assert [r.tx for r in rows[:4]] == [0, 0, 0, 0]
    assert rows[4].tx > 0
    # The append-only guard is back on after the migration numbered the old rows.
    with pytest.raises(Exception, match="append-only"), engine.begin() as conn:
        conn.execute(text("UPDATE events SET type = 'X'"))


def test_downgrading_0002_keeps_every_event(fresh_url: str, engine: Engine) -> None:
    migrate.upgrade(fresh_url)
    game = "00000000-0000-0000-0000-00000000000c"
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO games VALUES (:g, now(), now(), 3, 'basic', 'standard', 'waiting', 1)"
            ),
            {"g": game},
        )
        _insert_event(conn, game, 1, "2026-01-01T10:00:00Z")
    migrate.downgrade(fresh_url, "0001")
    assert migrate.current_revision(engine) == "0001"
    with engine.connect() as conn:
        assert conn.scalar(text("SELECT count(*) FROM events")) == 1
    assert "position" not in {c["name"] for c in inspect(engine).get_columns("events")}
    assert "outbox" not in _tables(engine)


def test_each_games_events_keep_their_seq_order_whatever_the_clocks_said(
    fresh_url: str, engine: Engine
) -> None:
    """recorded_at is the clock of whichever host appended an event, so it need not grow
    with seq; the global order numbered by 0002 still keeps a game's events in order."""
    migrate.upgrade(fresh_url, "0001")
    game = "00000000-0000-0000-0000-00000000000d"
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO games VALUES (:g, now(), now(), 4, 'basic', 'standard', 'waiting', 2)"
            ),
            {"g": game},
        )
        _insert_event(conn, game, 1, "2026-01-01T10:00:05Z")  # its host's clock ran ahead
        _insert_event(conn, game, 2, "2026-01-01T10:00:01Z")
    migrate.upgrade(fresh_url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT seq FROM events ORDER BY transaction_id, position"))
        assert [r.seq for r in rows] == [1, 2]


def test_each_players_token_moves_to_player_tokens_and_back(fresh_url: str, engine: Engine) -> None:
    """Migration 0010 (issue 28): the token a player was made with becomes its first row
    of player_tokens (via created); a downgrade puts it back."""
    migrate.upgrade(fresh_url, "0009")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO players (id, name, token_sha256, created_at) VALUES "
                "('00000000-0000-0000-0000-00000000000a', 'Aiko', 'digest-a', now())"
            )
        )
    migrate.upgrade(fresh_url)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT player_id::text, token_sha256, via FROM player_tokens"))
        assert [tuple(r) for r in rows] == [
            ("00000000-0000-0000-0000-00000000000a", "digest-a", "created")
        ]
    migrate.downgrade(fresh_url, "0009")
    with engine.connect() as conn:
        (digest,) = conn.execute(text("SELECT token_sha256 FROM players")).one()
        assert digest == "digest-a"
