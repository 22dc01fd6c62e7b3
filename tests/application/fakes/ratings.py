"""Ratings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.ratings.model import BOT_PLAYERS, Rating, bot_player_name
from service.application.ratings.model import DEFAULT as DEFAULT_RATING
from service.application.ratings.ports import Change, FinishedGame, PlayerResult, Ranked, Stats
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeRatings:
    """Ratings kept beside the tables (not copied per commit: no test reads them from a
    snapshot); writes are queued, so they happen only when the unit of work commits.
    ``Database.ordinals`` gives players ordinals directly, for pairing's tests. The
    store's locks (one update at a time) are PostgreSQL's: tests/integration covers them."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow
        self._db = uow.db

    def ordinals(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, float]:
        kept = self._db.ratings
        return {
            p: self._db.ordinals.get(p, kept.get((p, ladder), DEFAULT_RATING).ordinal)
            for p in player_ids
        }

    def finished(self, game_id: UUID, at: datetime) -> None:
        def write(c: Commit) -> None:
            c.db.rated_games.setdefault(game_id, [at, None])

        self._uow.queue(write)

    def results(self, rows: Sequence[PlayerResult]) -> None:
        def write(c: Commit) -> None:
            for r in rows:
                c.db.player_results[(r.player_id, r.game_id)] = r

        self._uow.queue(write)

    def stats(self, player_id: UUID) -> Stats:
        mine = [r for (p, _), r in self._db.player_results.items() if p == player_id]
        return Stats(
            len(mine),
            sum(r.won for r in mine),
            sum(r.rated for r in mine),
            sum(r.abandoned for r in mine),
        )

    def finished_games(
        self, player_id: UUID, before: tuple[datetime, UUID] | None, limit: int
    ) -> list[FinishedGame]:
        mine = sorted(
            (r for (p, _), r in self._db.player_results.items() if p == player_id),
            key=lambda r: (r.finished_at, r.game_id),
            reverse=True,
        )
        if before is not None:
            mine = [r for r in mine if (r.finished_at, r.game_id) < before]
        games = self._uow.read().games
        return [
            FinishedGame(
                r, games[r.game_id].players, games[r.game_id].scoring, games[r.game_id].variant
            )
            for r in mine[:limit]
        ]

    def due_at(self) -> datetime | None:
        return min((f for f, seq in self._db.rated_games.values() if seq is None), default=None)

    def next_due(self) -> UUID | None:
        due = [(f, g) for g, (f, seq) in self._db.rated_games.items() if seq is None]
        return min(due)[1] if due else None

    def hold(self, ladder: str, player_ids: Sequence[UUID]) -> dict[UUID, Rating]:
        return {p: self._db.ratings.get((p, ladder), DEFAULT_RATING) for p in player_ids}

    def apply(
        self,
        game_id: UUID,
        ladder: str,
        before: Mapping[UUID, Rating],
        after: Mapping[UUID, Rating],
        at: datetime,
    ) -> None:
        def write(c: Commit) -> None:
            db = c.db
            for player_id, new in after.items():
                db.ratings[(player_id, ladder)] = new
                change = Change(game_id, at, before[player_id], new)
                db.rating_history.setdefault((player_id, ladder), []).append(change)
            seq = 1 + max((s for _, s in db.rated_games.values() if s is not None), default=0)
            db.rated_games[game_id] = [db.rated_games[game_id][0], seq]

        self._uow.queue(write)

    def of(self, player_id: UUID) -> dict[str, Rating]:
        return {lad: r for (p, lad), r in sorted(self._db.ratings.items()) if p == player_id}

    def history(self, player_id: UUID, ladder: str) -> list[Change]:
        return list(self._db.rating_history.get((player_id, ladder), []))

    def leaderboard(
        self, ladder: str, after: tuple[float, int, UUID] | None, limit: int, bots: bool = False
    ) -> list[Ranked]:
        rows = sorted(
            ((-r.ordinal, -r.games, p), p, r)
            for (p, lad), r in self._db.ratings.items()
            if lad == ladder
            and ((bots and p in BOT_PLAYERS) or (p not in BOT_PLAYERS and not r.provisional))
        )
        if after is not None:
            rows = [row for row in rows if row[0] > (-after[0], -after[1], after[2])]
        names = self._uow.read().players
        return [
            Ranked(p, bot_player_name(BOT_PLAYERS[p]), r, BOT_PLAYERS[p].value)
            if p in BOT_PLAYERS
            else Ranked(p, names[p].name if p in names else "?", r)
            for _, p, r in rows[:limit]
        ]

    def rated_games(self) -> list[UUID]:
        done = [(seq, g) for g, (_, seq) in self._db.rated_games.items() if seq is not None]
        return [g for _, g in sorted(done)]

    def rewrite(
        self,
        ratings: Mapping[tuple[UUID, str], Rating],
        changes: Sequence[tuple[UUID, UUID, Rating, Rating]],
    ) -> None:
        def write(c: Commit) -> None:
            c.db.ratings.clear()
            c.db.ratings.update(ratings)
            new = {(g, p): (b, a) for g, p, b, a in changes}
            for key, kept in list(c.db.rating_history.items()):
                c.db.rating_history[key] = [
                    replace(h, before=new[h.game_id, key[0]][0], after=new[h.game_id, key[0]][1])
                    for h in kept
                    if (h.game_id, key[0]) in new
                ]
                if not c.db.rating_history[key]:
                    del c.db.rating_history[key]

        self._uow.queue(write)
