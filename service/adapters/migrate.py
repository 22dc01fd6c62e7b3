"""Applying the alembic migrations in ``migrations/`` (the only owner of the schema)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine


def _migrations() -> Path:
    """The migrations: inside the installed package (``service.migrations``, mapped from
    the source tree's migrations/), else beside the source tree's service/."""
    try:
        found = Path(str(resources.files("service.migrations")))
    except ModuleNotFoundError:
        found = Path(__file__).resolve().parents[2] / "migrations"
    return found


MIGRATIONS_DIR = _migrations()


def alembic_config(database_url: str) -> Config:
    if not (MIGRATIONS_DIR / "env.py").exists():
        raise RuntimeError(f"alembic migrations not found at {MIGRATIONS_DIR}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["database_url"] = database_url
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


def head_revision(database_url: str) -> str | None:
    return ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


class DatabaseHealth:
    """Ready when the database answers and is migrated to the head revision."""

    def __init__(self, engine: Engine, database_url: str) -> None:
        self._engine = engine
        self._head = head_revision(database_url)

    def ready(self) -> tuple[bool, str]:
        try:
            current = current_revision(self._engine)
        except Exception as exc:  # any failure to reach the database means not ready
            return False, f"database unreachable: {type(exc).__name__}"
        if current != self._head:
            return False, f"database at revision {current}, expected {self._head}"
        return True, "ok"
