"""The lobby's rows (migration 0011), written in each command's own statement, and the
lobby's reads. A write announces ``lobby`` on the service's channel."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg.types.json import Jsonb

from service.adapters.postgres.events import CHANNEL
from service.adapters.postgres.session import Session, Statement
from service.application.live.hub import LOBBY_KEY
from service.application.lobby.ports import LobbyEntry, LobbyFilter, LobbySeat
from service.rules import OnTimeout, TurnClock

# The seats with the player who holds each, from seat_players (the row keeps names and
# bots: who holds a seat is the seat's, not the lobby's).
_ROW = (
    "l.game_id, l.players, l.scoring, l.variant, l.rated, l.clock, l.open_seats, "
    "l.created_at, l.updated_at, l.seats, "
    "(SELECT coalesce(jsonb_object_agg(s.seat::text, s.player_id), '{}'::jsonb) "
    "FROM seat_players AS s WHERE s.game_id = l.game_id)"
)


def _where(where: LobbyFilter) -> tuple[str, list[Any]]:
    parts, params = [], []
    for column, value in (
        ("players", where.players),
        ("variant", where.variant),
        ("scoring", where.scoring),
        ("rated", where.rated),
    ):
        if value is not None:
            parts.append(f"l.{column} = %s")
            params.append(value)
    return "".join(f" AND {p}" for p in parts), params


def _entry(r: Sequence[Any]) -> LobbyEntry:
    clock = None if r[5] is None else TurnClock(r[5]["turn_seconds"], OnTimeout(r[5]["on_timeout"]))
    holders: dict[str, Any] = r[10]
    seats = tuple(
        LobbySeat(
            int(s["seat"]),
            s["name"],
            s["bot"],
            UUID(str(holders[str(s["seat"])])) if str(s["seat"]) in holders else None,
            UUID(s["reserved_for"]) if s.get("reserved_for") else None,
        )
        for s in r[9]
    )
    return LobbyEntry(r[0], r[1], r[2], r[3], r[4], clock, seats, r[6], r[7], r[8])


class SqlLobby:
    def __init__(self, session: Session) -> None:
        self._session = session

    def put(self, entry: LobbyEntry) -> None:
        clock = entry.clock
        seats = [
            {
                "seat": s.seat,
                "name": s.name,
                "bot": s.bot,
                "reserved_for": None if s.reserved_for is None else str(s.reserved_for),
            }
            for s in entry.seats
        ]
        self._session.write(
            Statement(
                "INSERT INTO lobby (game_id, players, scoring, variant, rated, clock, seats, "
                "open_seats, created_at, updated_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                "%s, %s) ON CONFLICT (game_id) DO UPDATE SET seats = EXCLUDED.seats, "
                "open_seats = EXCLUDED.open_seats, updated_at = EXCLUDED.updated_at",
                (
                    entry.game_id,
                    entry.players,
                    entry.scoring,
                    entry.variant,
                    entry.rated,
                    None
                    if clock is None
                    else Jsonb(
                        {"turn_seconds": clock.turn_seconds, "on_timeout": clock.on_timeout.value}
                    ),
                    Jsonb(seats),
                    entry.open_seats,
                    entry.created_at,
                    entry.updated_at,
                ),
            ),
            entry.game_id,
        )
        self._session.notify(CHANNEL, LOBBY_KEY)

    def page(
        self, where: LobbyFilter, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[LobbyEntry]:
        filters, params = _where(where)
        later = "" if after is None else " AND (l.created_at, l.game_id) > (%s, %s)"
        rows = self._session.fetch(
            f"SELECT {_ROW} FROM lobby AS l WHERE l.open_seats > 0{filters}{later} "
            "ORDER BY l.created_at, l.game_id LIMIT %s",
            [*params, *(after or ()), limit],
        )
        return [_entry(r) for r in rows]

    def stamp(self, where: LobbyFilter) -> tuple[int, datetime | None]:
        filters, params = _where(where)
        rows = self._session.fetch(
            "SELECT count(*) FILTER (WHERE l.open_seats > 0), max(l.updated_at) "
            f"FROM lobby AS l WHERE true{filters}",
            params,
            one_row=True,
        )
        return int(rows[0][0]), rows[0][1]

    def changed(self, where: LobbyFilter, since: datetime) -> list[LobbyEntry]:
        filters, params = _where(where)
        rows = self._session.fetch(
            f"SELECT {_ROW} FROM lobby AS l WHERE l.updated_at >= %s{filters} "
            "ORDER BY l.updated_at, l.game_id",
            [since, *params],
        )
        return [_entry(r) for r in rows]

    def forget(self, before: datetime, limit: int) -> int:
        rows = self._session.fetch(
            "DELETE FROM lobby WHERE game_id IN (SELECT game_id FROM lobby WHERE "
            "open_seats = 0 AND updated_at < %s ORDER BY updated_at LIMIT %s) RETURNING 1",
            [before, limit],
        )
        return len(rows)
