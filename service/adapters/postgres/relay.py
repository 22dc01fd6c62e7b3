"""The relay's commit log on PostgreSQL (service/application/live/relay.py): the events in
commit order (events.py's watermark query), the relay's lock and its saved position.

One connection of its own (listening.py's ``direct_connection``, not from the pool: the
lock lives as long as the connection), autocommit. The lock is a session
advisory lock: PostgreSQL releases it when the connection ends, however it ends, so a
relay that dies hands over to the next without anyone's help. The position is saved with
``synchronous_commit`` off for this connection: it is a hint (a relay that loses the last
ones announces a few commands again, which listeners take as one more "look again"), and
a save per batch must not wait for the disk.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import psycopg

from service.adapters.postgres.events import positioned, read_all_statement
from service.adapters.postgres.listening import direct_connection
from service.application.ports import Position, StoredEvent

LOCK_KEY = 0x796F6B61_69726C79  # "yokairly": the advisory lock's bigint, one per database
NAME = "commits"

_SAVED = "SELECT transaction_id, position FROM relay_positions WHERE name = %s"
_END = (
    "SELECT transaction_id, position FROM events "
    "WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint "
    "ORDER BY transaction_id DESC, position DESC LIMIT 1"
)
# Every player with an inbox entry of the games (seated, or invited and not yet seated):
# the entries the inbox's trigger announced before a relay ran (migration 0016).
_PLAYERS = "SELECT DISTINCT player_id FROM inbox WHERE game_id = ANY(%s)"
_SAVE = (
    "INSERT INTO relay_positions (name, transaction_id, position, updated_at) "
    "VALUES (%s, %s, %s, %s) ON CONFLICT (name) DO UPDATE SET "
    "transaction_id = excluded.transaction_id, position = excluded.position, "
    "updated_at = excluded.updated_at"
)


class SqlCommitLog:
    def __init__(self, conninfo: str, *, application_name: str = "yokai-relay") -> None:
        """``conninfo``: libpq's form (engine.libpq_conninfo)."""
        self._conninfo = conninfo
        self._application_name = application_name
        self._conn: psycopg.Connection[Any] | None = None

    def hold(self) -> bool:
        conn = self._connection()
        row = conn.execute("SELECT pg_try_advisory_lock(%s)", [LOCK_KEY]).fetchone()
        if row is None or not row[0]:
            self.reset()  # not ours: no connection kept while another relay holds it
            return False
        return True

    def start(self) -> Position | None:
        conn = self._connection()
        row = conn.execute(_SAVED, [NAME]).fetchone() or conn.execute(_END).fetchone()
        return None if row is None else Position(int(row[0]), int(row[1]))

    def committed_after(
        self, after: Position | None, limit: int
    ) -> list[tuple[Position, StoredEvent]]:
        sql, params = read_all_statement(after, limit)
        return positioned(self._connection().execute(sql, params).fetchall())

    def players(self, games: Collection[UUID]) -> list[UUID]:
        rows = self._connection().execute(_PLAYERS, [list(games)]).fetchall()
        return [row[0] for row in rows]

    def save(self, position: Position) -> None:
        self._connection().execute(
            _SAVE, [NAME, position.transaction, position.position, datetime.now(UTC)]
        )

    def reset(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            conn = direct_connection(self._conninfo, self._application_name)
            conn.execute("SET synchronous_commit = off")
            # The lock is held while this connection lives: if this process vanishes
            # without closing it (a partition), the server ends the session once it has
            # heard nothing for 30 s (the holder polls every few milliseconds), and
            # another relay takes over, instead of after the kernel's 2 hours.
            conn.execute("SET idle_session_timeout = '30s'")
            conn.execute("SET tcp_user_timeout = 30000")
            self._conn = conn
        return self._conn
