"""Players, the seats they hold, and their audit log."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.errors import AlreadySeatedError
from service.application.identity.ports import (
    PlayerAuditEntry,
    PlayerRecord,
    PlayerToken,
)
from service.application.ports import AppendConflictError
from tests.application.fakes.tables import Commit, IntegrityViolation, Tables
from tests.application.fakes.tokens import _add_token, _live_token, _not_suspended

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakePlayers:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, player: PlayerRecord, token: PlayerToken) -> None:
        def write(c: Commit) -> None:
            if player.id in c.after.players:
                raise IntegrityViolation(f"players: duplicate id {player.id}")
            c.after.players[player.id] = player
            _add_token(c, token)

        self._uow.queue(write)

    def get(self, player_id: UUID) -> PlayerRecord | None:
        return self._uow.read().players.get(player_id)

    def find(self, token_sha256: str) -> PlayerRecord | None:
        t = self._uow.read()
        token = _live_token(t, token_sha256)
        return t.players.get(token.player_id) if token else None

    def suspend(self, player_id: UUID, at: datetime | None, reason: str | None) -> None:
        def write(c: Commit) -> None:
            found = c.before.players.get(player_id)
            if found is not None:
                c.after.players[player_id] = replace(
                    found, suspended_at=at, suspended_reason=reason
                )
            if at is not None:
                c.revoked.update(
                    r.token.token_sha256
                    for r in c.before.player_tokens.values()
                    if r.token.player_id == player_id and r.revoked_at is None
                )

        self._uow.queue(write)

    def rename(self, player_id: UUID, name: str) -> None:
        def write(c: Commit) -> None:
            found = c.before.players.get(player_id)
            if found is not None:
                c.after.players[player_id] = replace(found, name=name)

        self._uow.queue(write)

    def seat_in(self, game_id: UUID, player_id: UUID) -> int | None:
        return _seat_of(self._uow.read(), game_id, player_id)

    def of_game(self, game_id: UUID) -> dict[int, UUID]:
        held = self._uow.read().seat_players
        return {seat: player for (game, seat), player in held.items() if game == game_id}

    def bind(self, game_id: UUID, seat: int, player_id: UUID) -> None:
        def write(c: Commit) -> None:
            if (game_id, seat) in c.after.seat_players:
                raise AppendConflictError(game_id)
            if _seat_of(c.after, game_id, player_id) is not None:
                raise AlreadySeatedError("this player holds a seat of this game")
            c.after.seat_players[(game_id, seat)] = player_id
            c.game(game_id, "seat_players")
            c.player(player_id, "seat_players")

        self._uow.queue(write)

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        def holds(t: Tables) -> bool:
            player_id = t.seat_players.get((game_id, seat))
            token = _live_token(t, token_sha256)
            _not_suspended(t, token)
            return token is not None and token.player_id == player_id

        self._uow.require(holds)


def _seat_of(tables: Tables, game_id: UUID, player_id: UUID) -> int | None:
    return next(
        (seat for (g, seat), p in tables.seat_players.items() if g == game_id and p == player_id),
        None,
    )


class FakePlayerAudit:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, entry: PlayerAuditEntry) -> None:
        def write(c: Commit) -> None:
            ident = len(c.after.player_audit) + 1
            c.after.player_audit.append(replace(entry, id=ident))
            c.player(entry.player_id, "player_audit")

        self._uow.queue(write)

    def page(self, player_id: UUID, after: int, limit: int) -> list[PlayerAuditEntry]:
        entries = [
            e for e in self._uow.read().player_audit if e.player_id == player_id and e.id > after
        ]
        return entries[:limit]
