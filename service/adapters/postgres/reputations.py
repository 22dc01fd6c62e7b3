"""Reputations (migration 0018): each player's standing (``reputations``) and the marks
it was made of (``reputation_marks``), both written by the command that left the marks,
in its one statement.

Nothing is read for it: each mark's player is found in that statement (the seat's
``seat_players`` row, or the player bound in this transaction), and the standing is
updated by one upsert per seat whose score applies its marks in order, clamped at each
step. Commands that mark one player commit one after the other (the upsert holds the
player's row), in the order a rebuild follows (the marks' times), but for two commits in
the same instant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.session import Session, Statement
from service.application.reputation.model import (
    HIGHEST,
    LIFTED,
    LOWEST,
    Abandonment,
    How,
    Mark,
    Standing,
    standing,
)
from service.application.reputation.ports import Kept, PlayerMark


def _score(marks: Sequence[Mark]) -> str:
    """The kept score after ``marks``, as SQL: each step clamped (the changes are the
    model's own integers, written into the text so that one statement serves each count
    of marks)."""
    sql = "r.score"
    for m in marks:
        sql = f"least({HIGHEST}, greatest({LOWEST}, {sql} + ({m.how.change:d})))"
    return sql


class SqlReputations:
    def __init__(self, session: Session) -> None:
        self._session = session

    def mark(
        self,
        game_id: UUID,
        rated: bool,
        at: datetime,
        marks: Sequence[Mark],
        bound: Mapping[int, UUID],
    ) -> None:
        by_seat: dict[int, list[Mark]] = {}
        for m in marks:
            by_seat.setdefault(m.seat, []).append(m)
        for seat, mine in sorted(by_seat.items()):
            if seat in bound:
                whose: list[Any] = [bound[seat]]
                who = "SELECT %s::uuid AS player_id"
            else:
                who = "SELECT player_id FROM seat_players WHERE game_id = %s AND seat = %s"
                whose = [game_id, seat]
            for m in mine:
                banning = "false"
                params: list[Any] = [game_id, m.seq, at, m.how.value]
                if m.how.abandoned:
                    banning = "(%s OR EXISTS (SELECT FROM seeks WHERE game_id = %s))"
                    params += [rated, game_id]
                    self._session.write(
                        Statement(
                            "UPDATE seeks SET status = 'cancelled', ended_at = %s WHERE "
                            f"status = 'open' AND player_id IN ({who}) AND {banning}",
                            (at, *whose, rated, game_id),
                        )
                    )
                self._session.write(
                    Statement(
                        "INSERT INTO reputation_marks (player_id, game_id, seq, at, how, "
                        f"banning) SELECT h.player_id, %s, %s, %s, %s, {banning} FROM ({who}) AS h",
                        (*params, *whose),
                    )
                )
            first = standing(m.how for m in mine)
            self._session.write(
                Statement(
                    "INSERT INTO reputations AS r (player_id, score, finished, abandoned, "
                    f"timeouts) SELECT h.player_id, %s, %s, %s, %s FROM ({who}) AS h "
                    f"ON CONFLICT (player_id) DO UPDATE SET score = {_score(mine)}, "
                    "finished = r.finished + excluded.finished, "
                    "abandoned = r.abandoned + excluded.abandoned, "
                    "timeouts = r.timeouts + excluded.timeouts",
                    (first.score, first.finished, first.abandoned, first.timeouts, *whose),
                )
            )

    def of(self, player_id: UUID, since: datetime) -> Kept:
        rows = self._session.fetch(
            "SELECT r.score, r.finished, r.abandoned, r.timeouts, r.lifted_at, "
            "ARRAY(SELECT m.at FROM reputation_marks AS m WHERE m.player_id = p.id "
            "AND m.banning AND m.at > %s ORDER BY m.at, m.game_id, m.seq), "
            "ARRAY(SELECT m.how FROM reputation_marks AS m WHERE m.player_id = p.id "
            "AND m.banning AND m.at > %s ORDER BY m.at, m.game_id, m.seq) "
            "FROM (SELECT %s::uuid AS id) AS p LEFT JOIN reputations AS r ON r.player_id = p.id",
            [since, since, player_id],
            one_row=True,
        )
        score, finished, abandoned, timeouts, lifted, ats, hows = rows[0]
        kept = Standing() if score is None else Standing(score, finished, abandoned, timeouts)
        recent = [Abandonment(a, How(h)) for a, h in zip(ats, hows, strict=True)]
        return Kept(kept, recent, lifted)

    def scores(self, player_ids: Sequence[UUID]) -> dict[UUID, int]:
        found = dict(
            self._session.fetch(
                "SELECT player_id, score FROM reputations WHERE player_id = ANY(%s)",
                [list(player_ids)],
            )
        )
        return {p: found.get(p, Standing().score) for p in player_ids}

    def lift(self, player_id: UUID, at: datetime) -> None:
        start = Standing()
        self._session.write(
            Statement(
                "INSERT INTO reputations AS r (player_id, score, finished, abandoned, "
                "timeouts, lifted_at) VALUES (%s, %s, 0, 0, 0, %s) "
                "ON CONFLICT (player_id) DO UPDATE SET lifted_at = excluded.lifted_at",
                (player_id, start.score, at),
            )
        )

    def games(self) -> list[UUID]:
        self._session.hold(Statement("LOCK TABLE reputation_marks IN EXCLUSIVE MODE"))
        rows = self._session.fetch(
            "SELECT DISTINCT game_id FROM events WHERE type = ANY(%s) ORDER BY game_id",
            [["SeatLeft", "SeatResigned", "TurnTimedOut", "GameEnded"]],
        )
        return [r[0] for r in rows]

    def holders(self, game_id: UUID) -> tuple[dict[int, UUID], bool]:
        rows = self._session.fetch(
            "SELECT seat, player_id, EXISTS (SELECT FROM seeks WHERE game_id = %s) "
            "FROM (SELECT %s::uuid AS id) AS g "
            "LEFT JOIN seat_players AS s ON s.game_id = g.id ORDER BY seat",
            [game_id, game_id],
        )
        seats = {int(r[0]): r[1] for r in rows if r[0] is not None}
        return seats, bool(rows[0][2])

    def lifts(self) -> dict[UUID, datetime]:
        rows = self._session.fetch(
            "SELECT player_id, max(at) FROM player_audit WHERE action = %s GROUP BY player_id",
            [LIFTED],
        )
        return dict(rows)

    def marked(self) -> list[PlayerMark]:
        rows = self._session.fetch(
            "SELECT at, game_id, seq, player_id, how, banning FROM reputation_marks "
            "ORDER BY at, game_id, seq, player_id"
        )
        return [PlayerMark(r[0], r[1], r[2], r[3], How(r[4]), r[5]) for r in rows]

    def standings(self) -> dict[UUID, tuple[Standing, datetime | None]]:
        rows = self._session.fetch(
            "SELECT player_id, score, finished, abandoned, timeouts, lifted_at FROM reputations"
        )
        return {r[0]: (Standing(r[1], r[2], r[3], r[4]), r[5]) for r in rows}

    def rewrite(
        self,
        marks: Sequence[PlayerMark],
        standings: Mapping[UUID, Standing],
        lifted: Mapping[UUID, datetime],
    ) -> None:
        # At once, not with the inserts: the parts of one statement see the same rows,
        # and a mark deleted there would still hold its key against its new copy.
        self._session.fetch("DELETE FROM reputation_marks")
        self._session.fetch("DELETE FROM reputations")
        write = self._session.write
        for m in marks:
            write(
                Statement(
                    "INSERT INTO reputation_marks (player_id, game_id, seq, at, how, banning) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    (m.player_id, m.game_id, m.seq, m.at, m.how.value, m.banning),
                )
            )
        for player_id in sorted(set(standings) | set(lifted)):
            s = standings.get(player_id, Standing())
            write(
                Statement(
                    "INSERT INTO reputations (player_id, score, finished, abandoned, timeouts, "
                    "lifted_at) VALUES (%s, %s, %s, %s, %s, %s)",
                    (
                        player_id,
                        s.score,
                        s.finished,
                        s.abandoned,
                        s.timeouts,
                        lifted.get(player_id),
                    ),
                )
            )
