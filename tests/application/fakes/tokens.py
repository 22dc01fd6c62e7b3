"""Players' tokens."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.identity.ports import (
    PlayerSuspendedError,
    PlayerToken,
)
from tests.application.fakes.tables import Commit, IntegrityViolation, Tables, TokenRow

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


def _live_token(t: Tables, token_sha256: str) -> PlayerToken | None:
    return next(
        (
            row.token
            for row in t.player_tokens.values()
            if row.token.token_sha256 == token_sha256 and row.revoked_at is None
        ),
        None,
    )


def _add_token(c: Commit, token: PlayerToken) -> None:
    if token.id in c.after.player_tokens:
        raise IntegrityViolation(f"player_tokens: duplicate id {token.id}")
    if any(r.token.token_sha256 == token.token_sha256 for r in c.after.player_tokens.values()):
        raise IntegrityViolation("player_tokens: duplicate token_sha256")
    c.after.player_tokens[token.id] = TokenRow(token)
    c.player(token.player_id, "player_tokens")


class FakePlayerTokens:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, token: PlayerToken) -> None:
        self._uow.queue(lambda c: _add_token(c, token))

    def get(self, token_id: UUID) -> PlayerToken | None:
        row = self._uow.read().player_tokens.get(token_id)
        return row.token if row is not None and row.revoked_at is None else None

    def of(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[PlayerToken]:
        rows = [
            r.token
            for r in self._uow.read().player_tokens.values()
            if r.token.player_id == player_id
            and r.revoked_at is None
            and (after is None or (r.token.created_at, r.token.id) < after)
        ]
        rows.sort(key=lambda t: (t.created_at, t.id), reverse=True)
        return rows[:limit]

    def revoke(self, token: PlayerToken, at: datetime) -> None:
        def write(c: Commit) -> None:
            row = c.before.player_tokens.get(token.id)
            if row is not None and row.revoked_at is None:
                c.after.player_tokens[token.id] = replace(row, revoked_at=at)
            c.revoked.add(token.token_sha256)

        self._uow.queue(write)

    def touch(self, token_sha256: str, at: datetime) -> None:
        def edit(t: Tables) -> None:
            for key, row in t.player_tokens.items():
                token = row.token
                mine = token.token_sha256 == token_sha256 and row.revoked_at is None
                if mine and (token.last_used_at is None or token.last_used_at < at):
                    t.player_tokens[key] = replace(row, token=replace(token, last_used_at=at))

        self._uow.at_once(edit)

    def require(self, token_sha256: str) -> None:
        def holds(t: Tables) -> bool:
            token = _live_token(t, token_sha256)
            _not_suspended(t, token)
            return token is not None

        self._uow.require(holds)


def _not_suspended(t: Tables, token: PlayerToken | None) -> None:
    player = t.players.get(token.player_id) if token else None
    if player is not None and player.suspended_at is not None:
        raise PlayerSuspendedError()
