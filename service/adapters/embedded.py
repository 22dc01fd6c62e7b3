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


def _quiet_pgserver() -> None:
    """pgserver logs every command it runs (initdb, pg_ctl) with its whole output, at
    INFO: a screenful of log lines at each start. Only its warnings and errors (a failed
    command, with its output) are kept, unless the service logs at DEBUG."""
    if not log.isEnabledFor(logging.DEBUG):
        logging.getLogger("pgserver").setLevel(logging.WARNING)


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
        fresh = not (pgdata / "PG_VERSION").exists()
        _quiet_pgserver()
        self._server = pgserver.get_server(  # type: ignore[attr-defined]
            pgdata, cleanup_mode="stop"
        )
        self.create_database(self._server.get_uri(), self.database)
        url: str = self._server.get_uri(database=self.database)
        made = "made and started" if fresh else "started"
        log.info("embedded PostgreSQL %s in %s (its log: %s)", made, pgdata, pgdata / "log")
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
