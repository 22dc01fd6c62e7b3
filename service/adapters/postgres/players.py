"""Players, the seats they hold, and their inbox (a projection kept with the events)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.events import CHANNEL
from service.adapters.postgres.session import Session, Statement, json_text
from service.adapters.postgres.tokens import NOT_SUSPENDED, add_token
from service.application.games.ports import InboxCursor, InboxEntry, SeatTurn
from service.application.identity.ports import PlayerRecord, PlayerToken
from service.application.live.hub import token_key

_PLAYER = "id, name, created_at, suspended_at, suspended_reason, erased_at"


class SqlPlayers:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, player: PlayerRecord, token: PlayerToken) -> None:
        self._session.write(
            Statement(
                "INSERT INTO players (id, name, created_at) VALUES (%s, %s, %s)",
                (player.id, player.name, player.created_at),
            )
        )
        add_token(self._session, token)

    def get(self, player_id: UUID) -> PlayerRecord | None:
        rows = self._session.fetch(
            f"SELECT {_PLAYER} FROM players WHERE id = %s", [player_id], one_row=True
        )
        return PlayerRecord(*rows[0]) if rows else None

    def find(self, token_sha256: str) -> PlayerRecord | None:
        rows = self._session.fetch(
            "SELECT p.id, p.name, p.created_at, p.suspended_at, p.suspended_reason, p.erased_at "
            "FROM player_tokens AS t JOIN players AS p "
            "ON p.id = t.player_id WHERE t.token_sha256 = %s AND t.revoked_at IS NULL",
            [token_sha256],
            one_row=True,
        )
        return PlayerRecord(*rows[0]) if rows else None

    def suspend(self, player_id: UUID, at: datetime | None, reason: str | None) -> None:
        self._session.write(
            Statement(
                "UPDATE players SET suspended_at = %s, suspended_reason = %s WHERE id = %s",
                (at, reason, player_id),
            )
        )
        # Its tokens' streams end (a lifted suspension ends none: nothing is announced).
        if at is not None:
            for (digest,) in self._session.fetch(
                "SELECT token_sha256 FROM player_tokens WHERE player_id = %s "
                "AND revoked_at IS NULL",
                [player_id],
            ):
                self._session.notify(CHANNEL, token_key(str(digest)))

    def rename(self, player_id: UUID, name: str) -> None:
        self._session.write(
            Statement("UPDATE players SET name = %s WHERE id = %s", (name, player_id))
        )

    def seat_in(self, game_id: UUID, player_id: UUID) -> int | None:
        rows = self._session.fetch(
            "SELECT seat FROM seat_players WHERE game_id = %s AND player_id = %s",
            [game_id, player_id],
            one_row=True,
        )
        return int(rows[0][0]) if rows else None

    def of_game(self, game_id: UUID) -> dict[int, UUID]:
        rows = self._session.fetch(
            "SELECT seat, player_id FROM seat_players WHERE game_id = %s ORDER BY seat",
            [game_id],
            order="seat",
        )
        return {int(seat): player_id for seat, player_id in rows}

    def bind(self, game_id: UUID, seat: int, player_id: UUID) -> None:
        self._session.write(
            Statement(
                "INSERT INTO seat_players (game_id, seat, player_id) VALUES (%s, %s, %s)",
                (game_id, seat, player_id),
            ),
            game_id,
        )

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        self._session.require(
            Statement(
                "SELECT yokai_require(EXISTS (SELECT FROM seat_players AS s JOIN "
                "player_tokens AS t ON t.player_id = s.player_id WHERE t.token_sha256 = %s "
                "AND t.revoked_at IS NULL AND s.game_id = %s AND s.seat = %s), "
                "'seat of a player'), " + NOT_SUSPENDED,
                (token_sha256, game_id, seat, token_sha256),
            )
        )


_WRITTEN = (
    "player_id, game_id, seat, status, version, players, scoring, variant, scores, winner, "
    "my_turn, action, due_since, deadline, updated_at, invited_by, rematch_of"
)
# An entry as read: its columns and its inviter's name (sealed like every name), from
# the inbox joined to the inviter's row (no column name of the one is in the other).
_ENTRY = f"{_WRITTEN}, inviter.name"
_ENTRIES = "inbox LEFT JOIN players AS inviter ON inviter.id = inbox.invited_by"
# The inbox order, as one sortable key: the seat's turn first, then soonest deadline,
# longest waiting; then the others, most recently updated first.
_KEY = (
    "(NOT {p}my_turn, coalesce({p}deadline, 'infinity'), coalesce({p}due_since, 'infinity'), "
    "-extract(epoch FROM {p}updated_at), {p}game_id)"
)
_PAGE = (
    f"SELECT {_ENTRY}{{number}} FROM {_ENTRIES} WHERE player_id = %s AND status = ANY(%s) "
    f"{{after}}ORDER BY {_KEY.format(p='')} LIMIT %s"
)
_STAMP = (
    "SELECT count(*), max(updated_at), coalesce(sum(version), 0) FROM inbox "
    "WHERE player_id = %s AND status = ANY(%s)"
)
# The stamp, then the page's entries numbered in order (none: the stamp alone, its
# entry's columns null). One read: the page and its stamp are of the same moment.
_STAMPED_PAGE = (
    "SELECT s.*, e.* FROM ({stamp}) AS s LEFT JOIN LATERAL ({page}) AS e ON true ORDER BY e.n"
).format(
    stamp=_STAMP,
    page=_PAGE.format(
        number=f", row_number() OVER (ORDER BY {_KEY.format(p='')}) AS n", after="{after}"
    ),
)
_AFTER = (
    f"AND {_KEY.format(p='')} > (NOT %s::boolean, coalesce(%s::timestamptz, 'infinity'), "
    "coalesce(%s::timestamptz, 'infinity'), -extract(epoch FROM %s::timestamptz), %s::uuid) "
)


@functools.lru_cache(maxsize=32)
def _update_game(turns: int, gone: int) -> str:
    """The update of a game's entries for so many seats' turns, leaving out the entries
    of so many players gone (one statement may not change a row twice: they are deleted
    after). Scalar parameters only, as the command's statement wants them
    (webhooks.py ``_FAN_OUT`` says why)."""
    rows = ", ".join(["(%s::smallint, %s::text, %s::timestamptz)"] * turns)
    kept = f" AND i.player_id NOT IN ({_some(gone)})" if gone else ""
    return (
        "UPDATE inbox AS i SET status = %s, version = %s, scores = %s::jsonb, "
        "winner = %s::jsonb, updated_at = %s, my_turn = v.action IS NOT NULL, "
        "action = v.action, deadline = v.deadline, "
        "due_since = CASE WHEN v.action IS NULL THEN NULL "
        "WHEN i.action IS NOT DISTINCT FROM v.action THEN i.due_since ELSE %s END "
        f"FROM (VALUES {rows}) AS v(seat, action, deadline) "
        f"WHERE i.game_id = %s AND i.seat = v.seat{kept}"
    )


def _some(count: int) -> str:
    return ", ".join(["%s"] * count)


def _entry(r: Sequence[Any]) -> InboxEntry:
    return InboxEntry(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        tuple(r[8]),
        tuple(r[9]) if r[9] is not None else None,
        r[10],
        r[11],
        r[12],
        r[13],
        r[14],
        invited_by=r[15],
        rematch_of=r[16],
        invited_by_name=r[17],
    )


def _page_params(
    player_id: UUID, statuses: Sequence[str], after: InboxCursor | None, limit: int
) -> list[Any]:
    params: list[Any] = [player_id, list(statuses)]
    if after is not None:
        params += (after.my_turn, after.deadline, after.due_since, after.updated_at)
        params.append(after.game_id)
    params.append(limit)
    return params


class SqlInbox:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, entry: InboxEntry) -> None:
        e = entry
        self._session.write(
            Statement(
                f"INSERT INTO inbox ({_WRITTEN}) VALUES ({_some(17)})",
                (
                    e.player_id,
                    e.game_id,
                    e.seat,
                    e.status,
                    e.version,
                    e.players,
                    e.scoring,
                    e.variant,
                    json_text(e.scores),
                    None if e.winner is None else json_text(e.winner),
                    e.my_turn,
                    e.action,
                    e.due_since,
                    e.deadline,
                    e.updated_at,
                    e.invited_by,
                    e.rematch_of,
                ),
            )
        )

    def update_game(
        self,
        game_id: UUID,
        *,
        status: str,
        version: int,
        scores: tuple[int, ...],
        winner: tuple[int, ...] | None,
        turns: Sequence[SeatTurn],
        updated_at: datetime,
        gone: Sequence[UUID] = (),
    ) -> None:
        params: list[Any] = [
            status,
            version,
            json_text(scores),
            None if winner is None else json_text(winner),
            updated_at,
            updated_at,
        ]
        for t in turns:
            params += (t.seat, t.action, t.deadline)
        params.append(game_id)
        params += gone
        self._session.write(Statement(_update_game(len(turns), len(gone)), params))
        if gone:
            self._session.write(
                Statement(
                    f"DELETE FROM inbox WHERE game_id = %s AND player_id IN ({_some(len(gone))})",
                    (game_id, *gone),
                )
            )

    def page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> list[InboxEntry]:
        sql = _PAGE.format(number="", after="" if after is None else _AFTER)
        params = _page_params(player_id, statuses, after, limit)
        return [_entry(r) for r in self._session.fetch(sql, params)]

    def stamp(self, player_id: UUID, statuses: Sequence[str]) -> tuple[int, datetime | None, int]:
        rows = self._session.fetch(_STAMP, [player_id, list(statuses)], one_row=True)
        return int(rows[0][0]), rows[0][1], int(rows[0][2])

    def stamped_page(
        self,
        player_id: UUID,
        statuses: Sequence[str],
        after: InboxCursor | None,
        limit: int,
    ) -> tuple[tuple[int, datetime | None, int], list[InboxEntry]]:
        sql = _STAMPED_PAGE.format(after="" if after is None else _AFTER)
        params = [player_id, list(statuses), *_page_params(player_id, statuses, after, limit)]
        rows = self._session.fetch(sql, params, order="n")
        stamp = int(rows[0][0]), rows[0][1], int(rows[0][2])
        return stamp, [_entry(r[3:-1]) for r in rows if r[-1] is not None]

    def watched(self, player_id: UUID, since: datetime) -> list[InboxEntry]:
        rows = self._session.fetch(
            f"SELECT {_ENTRY} FROM {_ENTRIES} WHERE player_id = %s "
            "AND (status <> 'finished' OR updated_at >= %s) ORDER BY updated_at, game_id",
            [player_id, since],
        )
        return [_entry(r) for r in rows]

    def of_game(self, player_id: UUID, game_id: UUID) -> InboxEntry | None:
        rows = self._session.fetch(
            f"SELECT {_ENTRY} FROM {_ENTRIES} WHERE player_id = %s AND game_id = %s",
            [player_id, game_id],
            one_row=True,
        )
        return _entry(rows[0]) if rows else None
