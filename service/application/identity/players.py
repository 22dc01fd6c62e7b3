"""Players: one identity across games, with tokens they can list and revoke."""

from __future__ import annotations

from uuid import uuid4

from service.application.commands import CreatePlayer, RenamePlayer, RevokeToken
from service.application.errors import NotFoundError
from service.application.identity.ports import PlayerRecord, PlayerToken
from service.application.identity.principals import (
    Principal,
    actor_of,
    new_token,
    require_player,
    token_digest,
)
from service.application.ports import Actor
from service.application.results import PlayerCreated, PlayerRenamed, TokenRevoked
from service.application.write.transaction import Transaction


class TokenNotFoundError(NotFoundError):
    code = "token_not_found"


def authorize_create_player(cmd: CreatePlayer, principal: Principal) -> Actor:
    """Anyone may become a player."""
    return actor_of(principal)


def create_player(cmd: CreatePlayer, actor: Actor, tx: Transaction) -> PlayerCreated:
    """A new player and their secret token (made here; only its digest is stored)."""
    token = new_token()
    player = PlayerRecord(uuid4(), cmd.name, tx.now)
    tx.uow.players.add(
        player, PlayerToken(uuid4(), player.id, "created", tx.now, token_digest(token))
    )
    return PlayerCreated(player.id, player.name, token)


def authorize_own(cmd: RenamePlayer | RevokeToken, principal: Principal) -> Actor:
    """A player, with one of their tokens."""
    require_player(principal)
    return actor_of(principal)


def rename(cmd: RenamePlayer, actor: Actor, tx: Transaction) -> PlayerRenamed:
    player = require_player(tx.principal)
    tx.uow.players.rename(player.player_id, cmd.name)
    return PlayerRenamed(player.player_id, cmd.name)


def revoke_token(cmd: RevokeToken, actor: Actor, tx: Transaction) -> TokenRevoked:
    """Any of the player's tokens, the one in use too; another's is as unknown as a
    token that never was."""
    player = require_player(tx.principal)
    token = tx.uow.player_tokens.get(cmd.token_id)
    if token is None or token.player_id != player.player_id:
        raise TokenNotFoundError("no such token")
    tx.uow.player_tokens.revoke(token, tx.now)
    return TokenRevoked(cmd.token_id)
