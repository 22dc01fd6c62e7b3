"""Players: one identity across games, with tokens they can list and revoke."""

from __future__ import annotations

from uuid import UUID, uuid4

from service.application.commands import CreatePlayer, RenamePlayer, RevokeToken, SuspendPlayer
from service.application.errors import NotFoundError
from service.application.identity.bearer import new_token, token_digest
from service.application.identity.ports import PlayerAuditEntry, PlayerRecord, PlayerToken
from service.application.identity.principals import (
    Principal,
    actor_of,
    require_operator,
    require_player,
)
from service.application.ports import Actor
from service.application.results import (
    PlayerCreated,
    PlayerRenamed,
    PlayerSuspended,
    TokenRevoked,
)
from service.application.write.transaction import Transaction


class TokenNotFoundError(NotFoundError):
    code = "token_not_found"


def authorize_create_player(cmd: CreatePlayer, principal: Principal) -> Actor:
    """Anyone may become a player."""
    return actor_of(principal)


def create_player(cmd: CreatePlayer, actor: Actor, tx: Transaction) -> PlayerCreated:
    """A new player and their secret token (made here; only its digest is stored)."""
    token = new_token()
    player_id = uuid4()
    player = PlayerRecord(player_id, tx.seal_name(player_id, cmd.name), tx.now)
    tx.uow.players.add(
        player, PlayerToken(uuid4(), player.id, "created", tx.now, token_digest(token))
    )
    return PlayerCreated(player.id, cmd.name, token)


def authorize_own(cmd: RenamePlayer | RevokeToken, principal: Principal) -> Actor:
    """A player, with one of their tokens."""
    require_player(principal)
    return actor_of(principal)


def rename(cmd: RenamePlayer, actor: Actor, tx: Transaction) -> PlayerRenamed:
    player = require_player(tx.principal)
    tx.uow.players.rename(player.player_id, tx.seal_name(player.player_id, cmd.name))
    audit(tx, player.player_id, "renamed", actor)
    return PlayerRenamed(player.player_id, cmd.name)


def revoke_token(cmd: RevokeToken, actor: Actor, tx: Transaction) -> TokenRevoked:
    """Any of the player's tokens, the one in use too; another's is as unknown as a
    token that never was."""
    player = require_player(tx.principal)
    token = tx.uow.player_tokens.get(cmd.token_id)
    if token is None or token.player_id != player.player_id:
        raise TokenNotFoundError("no such token")
    tx.uow.player_tokens.revoke(token, tx.now)
    audit(tx, player.player_id, "token_revoked", actor, reason=f"token {token.id} ({token.via})")
    return TokenRevoked(cmd.token_id)


class PlayerNotFoundError(NotFoundError):
    code = "player_not_found"


def authorize_suspension(cmd: SuspendPlayer, principal: Principal) -> Actor:
    """Operators only."""
    require_operator(principal)
    return actor_of(principal)


def suspend(cmd: SuspendPlayer, actor: Actor, tx: Transaction) -> PlayerSuspended:
    """Suspend a player or lift it: every token of theirs gets 403 player_suspended from
    the next request on (their open streams end); their seats are as a player's who does
    not act (turn clocks run, the game goes on). Done twice, it changes nothing more."""
    player = tx.uow.players.get(cmd.player_id)
    if player is None:
        raise PlayerNotFoundError("no such player")
    if (player.suspended_at is not None) != cmd.suspend:
        at = tx.now if cmd.suspend else None
        tx.uow.players.suspend(cmd.player_id, at, cmd.reason if cmd.suspend else None)
        action = "suspended" if cmd.suspend else "unsuspended"
        audit(tx, cmd.player_id, action, actor, reason=cmd.reason)
    return PlayerSuspended(player.id, player.name, cmd.suspend)


def audit(
    tx: Transaction, player_id: UUID, action: str, actor: Actor, reason: str | None = None
) -> None:
    """An entry of the player's audit, by ``actor`` in this command."""
    entry = PlayerAuditEntry(
        player_id, tx.now, action, actor.kind.value, actor.id, reason, tx.request_id
    )
    tx.uow.player_audit.add(entry)
