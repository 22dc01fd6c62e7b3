"""The service's own database role: least privilege (docs/security.md).

Migrations run as the owner of the tables (``YOKAI_MIGRATION_DATABASE_URL``); the
service runs as a role that may read and write the projections, queues and keys, but may
only INSERT and SELECT events: no UPDATE, DELETE or TRUNCATE of the history, no DDL (it
owns no table, so it cannot drop or disable the append-only triggers, and it is not a
superuser, so it cannot set ``session_replication_role``). Its connections get a
``statement_timeout`` and an ``idle_in_transaction_session_timeout`` as role settings, so
they hold behind PgBouncer too.

``grant_app_role`` is idempotent: run it after every migration (``yokai migrate`` does
when ``YOKAI_APP_ROLE`` is set; the embedded default does it by itself), so tables that
new migrations add are granted as well.
"""

from __future__ import annotations

import re
import secrets

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from service.adapters.postgres.engine import sqlalchemy_url

STATEMENT_TIMEOUT = "30s"
IDLE_IN_TRANSACTION_TIMEOUT = "60s"
_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def _check(role: str) -> str:
    if not _ROLE.match(role):
        raise ValueError(f"a role name is lowercase letters, digits and _, not {role!r}")
    return role


def grant_statements(role: str, database: str) -> list[str]:
    """What the service's role may do in ``database`` (run by the tables' owner)."""
    _check(role)
    return [
        f'GRANT CONNECT ON DATABASE "{database}" TO {role}',
        f"GRANT USAGE ON SCHEMA public TO {role}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
        # The history: appended and read, never changed.
        f"REVOKE UPDATE, DELETE, TRUNCATE ON events FROM {role}",
        f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON alembic_version FROM {role}",
        # Operator tokens are made and revoked by the owner (yokai operator): read only.
        f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON operators FROM {role}",
        f"REVOKE CREATE ON SCHEMA public FROM {role}",
        f"ALTER ROLE {role} SET statement_timeout = '{STATEMENT_TIMEOUT}'",
        f"ALTER ROLE {role} SET idle_in_transaction_session_timeout = "
        f"'{IDLE_IN_TRANSACTION_TIMEOUT}'",
    ]


def grant_app_role(owner_url: str, role: str, password: str | None = None) -> str:
    """Create ``role`` if need be (a login role without any other power), set its
    password when given, and grant it what the service needs in the owner's database.
    Returns the service's ``DATABASE_URL`` (with the password when given)."""
    _check(role)
    url = sqlalchemy_url(owner_url)
    database = url.database or "postgres"
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            exists = conn.scalar(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role})
            if not exists:
                conn.execute(
                    text(
                        f"CREATE ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE "
                        "NOREPLICATION NOBYPASSRLS"
                    )
                )
            if password is not None:
                quoted = conn.scalar(text("SELECT quote_literal(:p)"), {"p": password})
                conn.execute(text(f"ALTER ROLE {role} PASSWORD {quoted}"))
            for statement in grant_statements(role, database):
                conn.execute(text(statement))
    finally:
        engine.dispose()
    app = make_url(owner_url).set(username=role, password=password)
    return app.render_as_string(hide_password=False)


def new_password() -> str:
    return secrets.token_urlsafe(24)
