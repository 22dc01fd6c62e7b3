"""Players: one identity across games."""

from __future__ import annotations

from uuid import uuid4

from service.application.commands import CreatePlayer
from service.application.identity.ports import PlayerRecord
from service.application.identity.principals import Principal, actor_of, new_token, token_digest
from service.application.ports import Actor
from service.application.results import PlayerCreated
from service.application.write.transaction import Transaction


def authorize_create_player(cmd: CreatePlayer, principal: Principal) -> Actor:
    """Anyone may become a player."""
    return actor_of(principal)


def create_player(cmd: CreatePlayer, actor: Actor, tx: Transaction) -> PlayerCreated:
    """A new player and their secret token (made here; only its digest is stored)."""
    token = new_token()
    player = PlayerRecord(uuid4(), cmd.name, tx.now)
    tx.uow.players.add(player, token_digest(token))
    return PlayerCreated(player.id, player.name, token)
