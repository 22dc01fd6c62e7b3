"""`yokai privacy reseal`'s store: the tables' owner rewriting the events of before
migration 0014 whose personal data it seals (service/application/privacy/legacy.py). The
append-only guard is lifted for that one transaction, by its owner, and put back before
it commits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from uuid import UUID

from sqlalchemy import Connection, Engine, text

from service.adapters.postgres.events import SELECTED, stored
from service.application.ports import StoredEvent

_EVENTS = f"SELECT {SELECTED} FROM events WHERE game_id = :g ORDER BY seq"
_GUARD = "ALTER TABLE events {} TRIGGER events_append_only"


class SqlLegacyStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def players_in_clear(self) -> list[tuple[UUID, str]]:
        with self._engine.connect() as conn:
            rows = conn.execute(text("SELECT id, name FROM players WHERE name NOT LIKE 'pd1.%'"))
            return [(r[0], r[1]) for r in rows]

    def rename(self, player_id: UUID, name: str) -> None:
        with self._engine.begin() as conn:
            conn.execute(
                text("UPDATE players SET name = :n WHERE id = :p"), {"n": name, "p": player_id}
            )

    def games(self) -> Iterator[UUID]:
        after = UUID(int=0)
        while True:
            with self._engine.connect() as conn:
                page = [
                    r[0]
                    for r in conn.execute(
                        text("SELECT id FROM games WHERE id > :a ORDER BY id LIMIT 500"),
                        {"a": after},
                    )
                ]
            yield from page
            if len(page) < 500:
                return
            after = page[-1]

    def events(self, game_id: UUID) -> list[StoredEvent]:
        with self._engine.connect() as conn:
            return [stored(r) for r in conn.execute(text(_EVENTS), {"g": game_id})]

    def seat_players(self, game_id: UUID) -> dict[int, UUID]:
        with self._engine.connect() as conn:
            rows = conn.execute(
                text("SELECT seat, player_id FROM seat_players WHERE game_id = :g"), {"g": game_id}
            )
            return {int(r[0]): r[1] for r in rows}

    def rewrite(self, game_id: UUID, rows: list[StoredEvent], names: dict[int, str]) -> None:
        with self._engine.begin() as conn:
            conn.execute(text(_GUARD.format("DISABLE")))
            for e in rows:
                conn.execute(
                    text(
                        "UPDATE events SET data = CAST(:d AS jsonb), client_address = :a, "
                        "client_request_id = :c, resealed = :r WHERE game_id = :g AND seq = :s"
                    ),
                    {
                        "d": json.dumps(e.data),
                        "a": e.client_address,
                        "c": e.client_request_id,
                        "r": e.resealed,
                        "g": game_id,
                        "s": e.seq,
                    },
                )
            conn.execute(text(_GUARD.format("ENABLE")))
            conn.execute(text("DELETE FROM snapshots WHERE game_id = :g"), {"g": game_id})
            if names:
                _seal_lobby(conn, game_id, names)


def _seal_lobby(conn: Connection, game_id: UUID, names: dict[int, str]) -> None:
    seats = conn.execute(
        text("SELECT seats FROM lobby WHERE game_id = :g FOR UPDATE"), {"g": game_id}
    ).scalar_one_or_none()
    if seats is None:
        return
    for s in seats:
        if int(s["seat"]) in names and s.get("name") is not None:
            s["name"] = names[int(s["seat"])]
    conn.execute(
        text("UPDATE lobby SET seats = CAST(:s AS jsonb) WHERE game_id = :g"),
        {"s": json.dumps(seats), "g": game_id},
    )
