"""Blocks and follows, the commands (run by the write path like every command:
write/registry.py): a player blocks or follows another, or undoes it. Each is a row of
the player's own (docs/api.md "Blocks and follows"); doing it twice changes nothing.

Refused: another player who does not exist or was erased (404 ``player_not_found``),
the player themself (422 ``cannot_block_self``, ``cannot_follow_self``), and past
``MOST`` of either (422 ``too_many_blocks``, ``too_many_follows``)."""

from __future__ import annotations

from collections.abc import Collection
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
from service.application.social.ports import Blocks, Follows
from service.application.write.transaction import Transaction

MOST = 1000
"""The most players one player blocks, and the most they follow."""


def authorize(cmd: SetBlock | SetFollow, principal: Principal) -> Actor:
    """A player, for themselves."""
    require_valid(principal)
    return actor_of(require_player(principal))


def block(cmd: SetBlock, actor: Actor, tx: Transaction) -> Related:
    me = _other(tx, cmd.player_id, "block")
    held = tx.uow.blocks.blocked_by(me) if cmd.on else frozenset()
    return _set(tx, tx.uow.blocks, held, me, cmd, "blocks")


def follow(cmd: SetFollow, actor: Actor, tx: Transaction) -> Related:
    me = _other(tx, cmd.player_id, "follow")
    held = tx.uow.follows.followed(me) if cmd.on else []
    return _set(tx, tx.uow.follows, held, me, cmd, "follows")


def _set(
    tx: Transaction,
    store: Blocks | Follows,
    held: Collection[UUID],
    me: UUID,
    cmd: SetBlock | SetFollow,
    what: str,
) -> Related:
    """Add or remove the row; ``held``: the players ``me`` has such rows of (read only
    to add one, for the most a player has)."""
    if not cmd.on:
        store.remove(me, cmd.player_id)
    elif cmd.player_id not in held:
        if len(held) >= MOST:
            raise InvalidInputError(
                f"at most {MOST} {what} each: remove one first", f"too_many_{what}"
            )
        store.add(me, cmd.player_id, tx.now)
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
