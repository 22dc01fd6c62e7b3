"""Ratings (migration 0013): players' ratings, their histories, and the finished rated
games, each rated once.

Exactly once, whatever the number of workers: an update holds the oldest game not rated
yet (``next_due``: FOR UPDATE), so workers make updates one at a time, in the order the
games finished, each waiting for the one before it; the update marks the game rated in
the same commit (a worker that comes second finds it rated and takes the next). A worker
killed mid-update holds nothing once its connection ends: its transaction is rolled back
and the game is due again. ``rating_history_once`` (a player once per game) backs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.session import Session, Statement
from service.adapters.postgres.wakeups import CHANNEL
from service.application.jobs.source import RATING_NOTE
from service.application.ratings.model import (
    BOT_PLAYERS,
    DEFAULT,
    PROVISIONAL_GAMES,
    Rating,
    bot_player_name,
)
from service.application.ratings.ports import (
    Change,
    FinishedGame,
    PlayerResult,
    Ranked,
    Stats,
)

# A bot level's player has no row in players: its name is its level's.
_BOT_NAMES = {player: bot_player_name(level) for player, level in BOT_PLAYERS.items()}


class SqlRatings:
    def __init__(self, session: Session) -> None:
        self._session = session

    def ordinals(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, float]:
        found = dict(
            self._session.fetch(
                "SELECT player_id, mu - 3 * sigma FROM ratings "
                "WHERE ladder = %s AND player_id = ANY(%s)",
                [ladder, list(player_ids)],
            )
        )
        return {p: found.get(p, DEFAULT.ordinal) for p in player_ids}

    def finished(self, game_id: UUID, at: datetime) -> None:
        self._session.write(
            Statement(
                "INSERT INTO rated_games (game_id, finished_at) VALUES (%s, %s) "
                "ON CONFLICT (game_id) DO NOTHING",
                (game_id, at),
            )
        )
        self._session.notify(CHANNEL, RATING_NOTE)

    def results(self, rows: Sequence[PlayerResult]) -> None:
        for r in rows:
            self._session.write(
                Statement(
                    "INSERT INTO player_results (player_id, game_id, seat, finished_at, rated, "
                    "won, abandoned) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (r.player_id, r.game_id, r.seat, r.finished_at, r.rated, r.won, r.abandoned),
                )
            )

    def stats(self, player_id: UUID) -> Stats:
        rows = self._session.fetch(
            "SELECT count(*), count(*) FILTER (WHERE won), count(*) FILTER (WHERE rated), "
            "count(*) FILTER (WHERE abandoned) FROM player_results WHERE player_id = %s",
            [player_id],
            one_row=True,
        )
        return Stats(*rows[0])

    def finished_games(
        self, player_id: UUID, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[FinishedGame]:
        since = ""
        params: list[Any] = [player_id]
        if before is not None:
            since = "AND (r.finished_at, r.game_id) < (%s, %s) "
            params += [before[0], before[1]]
        rows = self._session.fetch(
            "SELECT r.player_id, r.game_id, r.seat, r.finished_at, r.rated, r.won, "
            "r.abandoned, g.players, g.scoring, g.variant FROM player_results AS r "
            f"JOIN games AS g ON g.id = r.game_id WHERE r.player_id = %s {since}"
            "ORDER BY r.finished_at DESC, r.game_id DESC LIMIT %s",
            [*params, limit],
        )
        return [FinishedGame(PlayerResult(*r[:7]), r[7], r[8], r[9]) for r in rows]

    def due_at(self) -> datetime | None:
        rows = self._session.fetch(
            "SELECT min(finished_at) FROM rated_games WHERE rated_at IS NULL", one_row=True
        )
        return rows[0][0] if rows else None

    def next_due(self) -> UUID | None:
        self._session.begin()
        rows = self._session.fetch(
            "SELECT game_id FROM rated_games WHERE rated_at IS NULL "
            "ORDER BY finished_at, game_id LIMIT 1 FOR UPDATE",
            one_row=True,
        )
        return rows[0][0] if rows else None

    def hold(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, Rating]:
        self._session.begin()
        rows = self._session.fetch(
            "SELECT player_id, mu, sigma, games FROM ratings "
            "WHERE ladder = %s AND player_id = ANY(%s) ORDER BY player_id FOR UPDATE",
            [ladder, sorted(player_ids)],
        )
        found = {r[0]: Rating(r[1], r[2], r[3]) for r in rows}
        return {p: found.get(p, DEFAULT) for p in player_ids}

    def apply(
        self,
        game_id: UUID,
        ladder: str,
        before: Mapping[UUID, Rating],
        after: Mapping[UUID, Rating],
        at: datetime,
    ) -> None:
        for player_id in sorted(after):
            new, old = after[player_id], before[player_id]
            self._session.write(
                Statement(
                    "INSERT INTO ratings (player_id, ladder, mu, sigma, games, updated_at) "
                    "VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (player_id, ladder) DO "
                    "UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                    "games = excluded.games, updated_at = excluded.updated_at",
                    (player_id, ladder, new.mu, new.sigma, new.games, at),
                )
            )
            self._session.write(
                Statement(
                    "INSERT INTO rating_history (game_id, player_id, ladder, at, before_mu, "
                    "before_sigma, after_mu, after_sigma) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (game_id, player_id, ladder, at, old.mu, old.sigma, new.mu, new.sigma),
                )
            )
        self._session.write(
            Statement(
                "UPDATE rated_games SET rated_at = %s, rated_seq = (SELECT "
                "coalesce(max(rated_seq), 0) + 1 FROM rated_games) WHERE game_id = %s",
                (at, game_id),
            )
        )

    def of(self, player_id: UUID) -> dict[str, Rating]:
        rows = self._session.fetch(
            "SELECT ladder, mu, sigma, games FROM ratings WHERE player_id = %s ORDER BY ladder",
            [player_id],
        )
        return {r[0]: Rating(r[1], r[2], r[3]) for r in rows}

    def history(self, player_id: UUID, ladder: str) -> list[Change]:
        rows = self._session.fetch(
            "SELECT game_id, at, before_mu, before_sigma, after_mu, after_sigma, "
            "row_number() OVER (ORDER BY id) FROM rating_history "
            "WHERE player_id = %s AND ladder = %s ORDER BY id",
            [player_id, ladder],
        )
        return [
            Change(r[0], r[1], Rating(r[2], r[3], int(r[6]) - 1), Rating(r[4], r[5], int(r[6])))
            for r in rows
        ]

    def leaderboard(
        self, ladder: str, after: tuple[float, int, UUID] | None, limit: int, bots: bool = False
    ) -> list[Ranked]:
        params: list[Any] = [ladder]
        since = ""
        if after is not None:
            # Ordinal descending, games descending, player id ascending: the row after.
            since = (
                "AND (r.mu - 3 * r.sigma < %s OR (r.mu - 3 * r.sigma = %s AND "
                "(r.games < %s OR (r.games = %s AND r.player_id > %s)))) "
            )
            params += [after[0], after[0], after[1], after[1], after[2]]
        # People past their provisional games; with ``bots``, every bot level rated too.
        who = (
            "(r.games >= %s OR r.player_id = ANY(%s))"
            if bots
            else "r.games >= %s AND r.player_id <> ALL(%s)"
        )
        rows = self._session.fetch(
            "SELECT r.player_id, p.name, r.mu, r.sigma, r.games FROM ratings AS r "
            "LEFT JOIN players AS p ON p.id = r.player_id "
            f"WHERE r.ladder = %s {since}AND {who} "
            "ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC, r.player_id LIMIT %s",
            [*params, PROVISIONAL_GAMES, list(BOT_PLAYERS), limit],
        )
        return [
            Ranked(
                r[0],
                r[1] if r[1] is not None else _BOT_NAMES.get(r[0], "?"),
                Rating(*r[2:]),
                BOT_PLAYERS[r[0]].value if r[0] in BOT_PLAYERS else None,
            )
            for r in rows
        ]

    def rated_games(self) -> list[UUID]:
        # Held until the unit of work ends: no worker updates a game meanwhile (EXCLUSIVE
        # conflicts with the ROW SHARE of next_due's FOR UPDATE; plain reads go on).
        self._session.hold(Statement("LOCK TABLE rated_games IN EXCLUSIVE MODE", ()))
        rows = self._session.fetch(
            "SELECT game_id FROM rated_games WHERE rated_seq IS NOT NULL ORDER BY rated_seq"
        )
        return [r[0] for r in rows]

    def rewrite(
        self,
        ratings: Mapping[tuple[UUID, str], Rating],
        changes: Sequence[tuple[UUID, UUID, Rating, Rating]],
    ) -> None:
        # One statement (the session's writes are parts of one WITH, on one snapshot): so
        # each row is written once, in place, never deleted and inserted again; the rows
        # deleted are those the rebuild did not make, which nothing else writes.
        kept = sorted(ratings)
        self._session.write(
            Statement(
                "DELETE FROM ratings AS r WHERE NOT EXISTS (SELECT FROM unnest(%s::uuid[], "
                "%s::text[]) AS v (player_id, ladder) WHERE v.player_id = r.player_id AND "
                "v.ladder = r.ladder)",
                ([p for p, _ in kept], [lad for _, lad in kept]),
            )
        )
        self._session.write(
            Statement(
                "DELETE FROM rating_history AS h WHERE NOT EXISTS (SELECT FROM "
                "unnest(%s::uuid[], %s::uuid[]) AS v (game_id, player_id) "
                "WHERE v.game_id = h.game_id AND v.player_id = h.player_id)",
                ([g for g, *_ in changes], [p for _, p, *_ in changes]),
            )
        )
        if ratings:
            rows = sorted(ratings.items())
            values = ", ".join(["(%s::uuid, %s, %s::float8, %s::float8, %s::int)"] * len(rows))
            self._session.write(
                Statement(
                    "UPDATE ratings AS r SET mu = v.mu, sigma = v.sigma, games = v.games "
                    f"FROM (VALUES {values}) AS v (player_id, ladder, mu, sigma, games) "
                    "WHERE r.player_id = v.player_id AND r.ladder = v.ladder",
                    tuple(x for (p, lad), r in rows for x in (p, lad, r.mu, r.sigma, r.games)),
                )
            )
        if changes:
            values = ", ".join(
                ["(%s::uuid, %s::uuid, %s::float8, %s::float8, %s::float8, %s::float8)"]
                * len(changes)
            )
            self._session.write(
                Statement(
                    "UPDATE rating_history AS h SET before_mu = v.bm, before_sigma = v.bs, "
                    f"after_mu = v.am, after_sigma = v.as_ FROM (VALUES {values}) "
                    "AS v (game_id, player_id, bm, bs, am, as_) "
                    "WHERE h.game_id = v.game_id AND h.player_id = v.player_id",
                    tuple(
                        x for g, p, b, a in changes for x in (g, p, b.mu, b.sigma, a.mu, a.sigma)
                    ),
                )
            )
