"""Blocks and follows (migration 0023), and which games are public."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.events import CHANNEL
from service.adapters.postgres.session import Session, Statement
from service.application.live.hub import block_key, follow_key
from service.application.social.ports import Friend, Listed

_OVER = "('finished', 'expired')"
# The public games a player sits in that are not over (a seat of theirs: seat_players).
_PLAYING = (
    "FROM seat_players AS sp "
    "JOIN public_games AS pg ON pg.game_id = sp.game_id "
    f"JOIN games AS g ON g.id = sp.game_id AND g.status NOT IN {_OVER} "
)


class _Choices:
    """One player's choices about others, in ``table`` (blocks or follows)."""

    table = ""

    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, player_id: UUID, other_id: UUID, at: datetime) -> None:
        self._session.write(
            Statement(
                f"INSERT INTO {self.table} (player_id, other_id, created_at) "
                "VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                (player_id, other_id, at),
            )
        )

    def remove(self, player_id: UUID, other_id: UUID) -> None:
        self._session.write(
            Statement(
                f"DELETE FROM {self.table} WHERE player_id = %s AND other_id = %s",
                (player_id, other_id),
            )
        )

    def forget(self, player_id: UUID) -> None:
        self._session.write(
            Statement(
                f"DELETE FROM {self.table} WHERE player_id = %s OR other_id = %s",
                (player_id, player_id),
            )
        )

    def _others(self, player_id: UUID) -> list[UUID]:
        rows = self._session.fetch(
            f"SELECT other_id FROM {self.table} WHERE player_id = %s", [player_id]
        )
        return [r[0] for r in rows]

    def _page(
        self,
        player_id: UUID,
        after: tuple[datetime, UUID] | None,
        limit: int,
        columns: str = "",
        params: Sequence[Any] = (),
    ) -> list[tuple[Any, ...]]:
        """The other player, their name and since when, then ``columns`` (whose
        parameters are ``params``), oldest first."""
        later = "" if after is None else " AND (c.created_at, c.other_id) > (%s, %s)"
        return self._session.fetch(
            f"SELECT c.other_id, p.name, c.created_at{columns} FROM {self.table} AS c "
            f"JOIN players AS p ON p.id = c.other_id WHERE c.player_id = %s{later} "
            "ORDER BY c.created_at, c.other_id LIMIT %s",
            [*params, player_id, *(after or ()), limit],
        )


class SqlBlocks(_Choices):
    table = "blocks"

    def add(self, player_id: UUID, other_id: UUID, at: datetime) -> None:
        super().add(player_id, other_id, at)
        # The player's open game streams read their blocks again (the chat they show).
        self._session.notify(CHANNEL, block_key(player_id))

    def remove(self, player_id: UUID, other_id: UUID) -> None:
        super().remove(player_id, other_id)
        self._session.notify(CHANNEL, block_key(player_id))

    def blocked_by(self, player_id: UUID) -> frozenset[UUID]:
        return frozenset(self._others(player_id))

    def apart(self, players: Collection[UUID]) -> frozenset[frozenset[UUID]]:
        if len(players) < 2:
            return frozenset()
        rows = self._session.fetch(
            "SELECT player_id, other_id FROM blocks "
            "WHERE player_id = ANY(%s::uuid[]) AND other_id = ANY(%s::uuid[])",
            [list(players), list(players)],
        )
        return frozenset(frozenset(r) for r in rows)

    def page(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[Listed]:
        return [Listed(r[0], r[1], r[2]) for r in self._page(player_id, after, limit)]


class SqlFollows(_Choices):
    table = "follows"

    def followed(self, player_id: UUID) -> list[UUID]:
        return self._others(player_id)

    def page(
        self,
        player_id: UUID,
        after: tuple[datetime, UUID] | None,
        limit: int,
        online_since: datetime,
    ) -> list[Friend]:
        # Online: a stream of theirs was refreshed lately (service/application/notify/
        # watching.py keeps the watchers' rows).
        columns = (
            ", EXISTS (SELECT FROM watchers AS w WHERE w.player_id = c.other_id "
            f"AND w.seen_at >= %s), ARRAY(SELECT sp.game_id {_PLAYING}"
            "WHERE sp.player_id = c.other_id ORDER BY g.created_at, g.id)"
        )
        rows = self._page(player_id, after, limit, columns, [online_since])
        return [Friend(r[0], r[1], r[2], r[3], tuple(r[4])) for r in rows]

    def playing(self, players: Collection[UUID]) -> list[tuple[UUID, UUID]]:
        if not players:
            return []
        rows = self._session.fetch(
            f"SELECT sp.player_id, sp.game_id {_PLAYING}WHERE sp.player_id = ANY(%s::uuid[]) "
            "ORDER BY g.created_at, g.id",
            [list(players)],
        )
        return [(r[0], r[1]) for r in rows]

    def public(self, game_id: UUID) -> None:
        self._session.write(
            Statement("INSERT INTO public_games (game_id) VALUES (%s)", (game_id,)), game_id
        )

    def seated(self, player_id: UUID) -> None:
        self._session.notify(CHANNEL, follow_key(player_id))
