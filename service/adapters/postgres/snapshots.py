"""Snapshots: the latest folded state of a game, kept as a cache of its events."""

from __future__ import annotations

from uuid import UUID

from psycopg.types.json import Jsonb

from service.adapters.postgres.session import Session, Statement
from service.application.games.ports import Snapshot


class SqlSnapshotStore:
    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, game_id: UUID, schema_version: int) -> Snapshot | None:
        rows = self._session.fetch(
            "SELECT version, last_hash, data FROM snapshots "
            "WHERE game_id = %s AND schema_version = %s",
            [game_id, schema_version],
            one_row=True,
        )
        if not rows:
            return None
        version, last_hash, data = rows[0]
        return Snapshot(game_id, version, last_hash, schema_version, data)

    def put(self, snapshot: Snapshot) -> None:
        self._session.write(
            Statement(
                "INSERT INTO snapshots (game_id, version, last_hash, schema_version, data) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (game_id) DO UPDATE SET "
                "version = excluded.version, last_hash = excluded.last_hash, "
                "schema_version = excluded.schema_version, data = excluded.data "
                "WHERE snapshots.version < excluded.version "
                "OR snapshots.schema_version <> excluded.schema_version",
                (
                    snapshot.game_id,
                    snapshot.version,
                    snapshot.last_hash,
                    snapshot.schema_version,
                    Jsonb(snapshot.data),
                ),
            )
        )
