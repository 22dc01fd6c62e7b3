"""Erasing a player (docs/privacy.md, docs/api.md "Privacy").

In one transaction: the player's key is destroyed first (everything sealed under it,
their names and the client addresses of their requests, is unreadable from this
moment, in every event and projection, without a byte of history rewritten); their
tokens stop, their linked identities and link codes go, their open seeks end, their
blocks and follows (and others' of them) go; and each game of theirs records the
erasure (SeatErased: a new version, so every cached view is stale), after a bot takes
over a seat they still played (as on leave), while a seat of a game still waiting, or
one they were invited to, is freed. The reports about them go (``Erasures.erase``:
nothing is left to moderate, and the operators' notes are about them); the reports they
made stay, their reasons sealed under the destroyed key; their chat messages stay in
place, their texts and names sealed under it ("[erased]", "erased player"). The
player's audit keeps who erased them and when, not what.

The key is destroyed before the transaction commits, and the erasure list outside the
database (service/adapters/privacy/erasure_list.py) has it before that: a crash in
between leaves an erasure that :func:`reapply` finishes when the service starts again,
as it does after a backup from before the erasure is restored.
"""

from __future__ import annotations

from uuid import UUID

from service.application.commands import Context, ErasePlayer
from service.application.deps import Deps
from service.application.errors import ForbiddenError, UnauthenticatedError
from service.application.identity.players import PlayerNotFoundError
from service.application.identity.ports import PlayerAuditEntry
from service.application.identity.principals import (
    Anonymous,
    BadToken,
    Operator,
    PlayerHolder,
    Principal,
    actor_of,
    require_player,
)
from service.application.ports import Actor
from service.application.privacy import sealing
from service.application.results import PlayerErased
from service.application.write import idempotency
from service.application.write.transaction import Transaction
from service.rules import ERASED_NAME, DeclineSeat, EraseSeat, Leave, Phase

_UNDER_WAY = frozenset({Phase.DEALING, Phase.PASSING, Phase.PLAYING})


def authorize(cmd: ErasePlayer, principal: Principal) -> Actor:
    """The player themself, or an operator."""
    if cmd.player_id is None:  # DELETE /v1/me
        require_player(principal)
        return actor_of(principal)
    match principal:
        case Operator():
            return actor_of(principal)
        case PlayerHolder(player_id=player_id) if player_id == cmd.player_id:
            return actor_of(principal)
        case Anonymous():
            raise UnauthenticatedError("a player or operator token is required", "missing_token")
        case BadToken():
            raise UnauthenticatedError("the bearer token is not valid")
    raise ForbiddenError("only the player themself or an operator erases a player")


def erase(cmd: ErasePlayer, actor: Actor, tx: Transaction) -> PlayerErased:
    player_id = cmd.player_id or require_player(tx.principal).player_id
    record = tx.uow.players.get(player_id)
    if record is None:
        raise PlayerNotFoundError("no such player")
    tx.destroy_keys([sealing.player_subject(player_id)])
    if record.erased_at is not None:  # erased already: nothing more to do
        return PlayerErased(player_id, 0)
    games = 0
    for game_id, seat in tx.uow.erasures.games_of(player_id):
        games += _erase_seat(tx, game_id, seat, player_id, actor)
    tx.uow.blocks.forget(player_id)  # theirs and of them: nobody lists an erased player
    tx.uow.follows.forget(player_id)
    tx.uow.erasures.erase(player_id, tx.now)  # last: it revokes the token it may be sent with
    tx.uow.player_audit.add(
        PlayerAuditEntry(player_id, tx.now, "erased", actor.kind.value, actor.id, None, None)
    )
    return PlayerErased(player_id, games)


def _erase_seat(tx: Transaction, game_id: UUID, seat: int, player_id: UUID, actor: Actor) -> int:
    game = tx.load(game_id, fresh=True)
    state = game.state
    name = state.names[seat] if seat < len(state.names) else None
    if name is None:  # invited, not joined: the invitation is declined, the seat freed
        if (
            state.phase is Phase.WAITING
            and state.reserved
            and state.reserved[seat] == str(player_id)
        ):
            tx.apply(game_id, game, DeclineSeat(seat, str(player_id)), actor)
            tx.uow.erasures.close_seat(game_id, seat, free=True)
            return 1
        return 0
    if name == ERASED_NAME:
        return 0
    waiting = state.phase is Phase.WAITING
    if state.phase in _UNDER_WAY and state.bots[seat] is None:
        game = tx.decide(game_id, game, Leave(seat, tx.takeover), actor)
    tx.apply(game_id, game, EraseSeat(seat), actor)
    tx.uow.erasures.close_seat(game_id, seat, free=waiting)
    return 1


HANDLER = idempotency.Registered(authorize, erase)


def reapply(deps: Deps, erased: list[UUID]) -> int:
    """Finish the erasures the list outside the database names: destroy their keys
    again (a backup restored from before an erasure brings them back) and erase the
    players the database does not show erased (a crash mid-way, the same backup); how
    many players were erased again."""
    if deps.vault is not None and erased:
        deps.vault.destroy([sealing.player_subject(p) for p in erased])
    done = 0
    for player_id in erased:
        with deps.uow() as uow:
            record = uow.players.get(player_id)
        if record is not None and record.erased_at is None:
            idempotency.run(deps, HANDLER, ErasePlayer(player_id), Context(Operator("erasure")))
            done += 1
    return done
