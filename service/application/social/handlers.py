"""Blocks and follows, the commands (run by the write path like every command:
write/registry.py): a player blocks or follows another, or undoes it. Each is a row of
the player's own (docs/api.md "Blocks and follows"); doing it twice changes nothing.

Refused: another player who does not exist or was erased (404 ``player_not_found``),
the player themself (422 ``cannot_block_self``, ``cannot_follow_self``), and past
``MOST`` of either (422 ``too_many_blocks``, ``too_many_follows``)."""

from __future__ import annotations

from uuid import UUID

from service.application.commands import SetBlock, SetFollow
from service.application.errors import InvalidInputError
from service.application.identity.players import PlayerNotFoundError
from service.application.identity.principals import (
    Principal,
    actor_of,
    require_player,
    require_valid,
)
from service.application.ports import Actor
from service.application.results import Related
from service.application.write.transaction import Transaction

MOST = 1000
"""The most players one player blocks, and the most they follow."""


def authorize(cmd: SetBlock | SetFollow, principal: Principal) -> Actor:
    """A player, for themselves."""
    require_valid(principal)
    return actor_of(require_player(principal))


def block(cmd: SetBlock, actor: Actor, tx: Transaction) -> Related:
    me = _other(tx, cmd.player_id, "block")
    blocks = tx.uow.blocks
    if not cmd.on:
        blocks.remove(me, cmd.player_id)
    elif cmd.player_id not in (mine := blocks.blocked_by(me)):
        _room(len(mine), "blocks")
        blocks.add(me, cmd.player_id, tx.now)
    return Related(cmd.player_id, cmd.on)


def follow(cmd: SetFollow, actor: Actor, tx: Transaction) -> Related:
    me = _other(tx, cmd.player_id, "follow")
    follows = tx.uow.follows
    if not cmd.on:
        follows.remove(me, cmd.player_id)
    elif cmd.player_id not in (mine := follows.followed(me)):
        _room(len(mine), "follows")
        follows.add(me, cmd.player_id, tx.now)
    return Related(cmd.player_id, cmd.on)


def _other(tx: Transaction, other: UUID, verb: str) -> UUID:
    """The player choosing, once ``other`` is known to be another player."""
    me = require_player(tx.principal).player_id
    if other == me:
        raise InvalidInputError(f"a player cannot {verb} themself", f"cannot_{verb}_self")
    record = tx.uow.players.get(other)
    if record is None or record.erased_at is not None:
        raise PlayerNotFoundError("no such player")
    return me


def _room(held: int, what: str) -> None:
    if held >= MOST:
        raise InvalidInputError(f"at most {MOST} {what} each: remove one first", f"too_many_{what}")
