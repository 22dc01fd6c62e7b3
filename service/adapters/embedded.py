"""An embedded PostgreSQL server (pgserver, from PyPI) in a local data folder.

Used when ``DATABASE_URL`` is unset: by ``yokai serve`` and by the test suite. It
listens on a Unix socket only.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from service.adapters.postgres.engine import sqlalchemy_url

log = logging.getLogger(__name__)


class EmbeddedPostgres:
    def __init__(self, data_dir: Path, database: str = "yokai") -> None:
        self.data_dir = data_dir
        self.database = database
        self._server: Any = None

    def start(self) -> str:
        """Start (or attach to) the server; returns a ``postgresql://`` URL of the database."""
        # Imported here: only this mode needs it, and importing it touches the file system
        # (and warns where XDG_RUNTIME_DIR is unset, though /tmp serves it well).
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
            import pgserver  # noqa: PLC0415

        pgdata = self.data_dir / "pgdata"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log.info("starting embedded PostgreSQL in %s", pgdata)
        self._server = pgserver.get_server(  # type: ignore[attr-defined]
            pgdata, cleanup_mode="stop"
        )
        self.create_database(self._server.get_uri(), self.database)
        url: str = self._server.get_uri(database=self.database)
        return url

    def stop(self) -> None:
        if self._server is not None:
            self._server.cleanup()
            self._server = None

    @staticmethod
    def create_database(admin_url: str, name: str) -> None:
        engine = create_engine(sqlalchemy_url(admin_url), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                exists = conn.scalar(
                    text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}
                )
                if not exists:
                    conn.execute(text(f'CREATE DATABASE "{name}"'))
        finally:
            engine.dispose()
