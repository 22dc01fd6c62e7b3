"""Invitations: seats of a new game reserved for players, each joined only by its player
until they join or decline it (the rules keep the reservation; docs/api.md
"Invitations"). The invited player has the game in their inbox (their action: join)
and hears of it by their stream and their webhooks (``invited``)."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from service import rules
from service.application.commands import DeclineSeat, Invitation
from service.application.errors import InvalidInputError
from service.application.games import inbox
from service.application.games.cache import Loaded
from service.application.identity.principals import (
    PlayerHolder,
    Principal,
    SeatHolder,
    actor_of,
    require_player,
)
from service.application.ports import Actor
from service.application.results import Acted
from service.application.social import blocking
from service.application.write.transaction import Transaction


def reserved_seats(
    tx: Transaction, players: int, invite: Sequence[Invitation], taken: Sequence[int]
) -> tuple[str | None, ...] | None:
    """The player each seat is reserved for (None: no invitation): the seats asked for,
        then the next free ones from seat 1 up (seat 0 is the creator's, usually); 422 for a
        player who does not exist, a seat out of the game or asked for twice; 403 ``blocked``
    when the player inviting and one invited blocked the other."""
    if not invite:
        return None
    reserved: list[str | None] = [None] * players
    for wanted in (i for i in invite if i.seat is not None):
        assert wanted.seat is not None
        if not 0 <= wanted.seat < players:
            raise InvalidInputError(
                f"invite: this game has seats 0 to {players - 1}", "unknown_seat"
            )
        if reserved[wanted.seat] is not None or wanted.seat in taken:
            raise InvalidInputError(f"invite: seat {wanted.seat} is given twice", "seat_taken")
        reserved[wanted.seat] = str(wanted.player_id)
    order = [*range(1, players), 0]
    for wanted in (i for i in invite if i.seat is None):
        free = next((s for s in order if reserved[s] is None and s not in taken), None)
        if free is None:
            raise InvalidInputError("invite: more players than free seats", "seat_taken")
        reserved[free] = str(wanted.player_id)
    held = [p for p in reserved if p is not None]
    if len(set(held)) != len(held):
        raise InvalidInputError("invite: a player is invited twice", "invited_twice")
    for player in set(held):
        if tx.uow.players.get(UUID(player)) is None:
            raise InvalidInputError(f"invite: no player {player}", "unknown_player")
    by = inviter(tx.principal)
    if by is not None:
        blocking.refuse_if_apart(tx.uow, by, {UUID(p) for p in held})
    return tuple(reserved)


def invited(
    tx: Transaction, game_id: UUID, game: Loaded, rematch_of: UUID | None = None
) -> list[tuple[int, UUID]]:
    """The invited players of a new game: their inbox entries (to join; who invites
    them, and the game it plays again for a rematch), and their seats as this commit's
    webhooks must know them (each hears ``invited``)."""
    pairs = [(seat, UUID(player)) for seat, player in enumerate(game.state.reserved) if player]
    by = inviter(tx.principal)
    for seat, player_id in pairs:
        tx.uow.inbox.add(
            inbox.entry(
                player_id, game_id, seat, game, tx.now, invited_by=by, rematch_of=rematch_of
            )
        )
    tx.bound.setdefault(game_id, []).extend(pairs)
    return pairs


def inviter(principal: Principal) -> UUID | None:
    """The player who invites: the token's player (a player's token, or a seat's token,
    the player's or the seat's own, of a seat a player holds: a rematch); None for an
    operator or a seat no player holds."""
    match principal:
        case PlayerHolder(player_id=player_id):
            return player_id
        case SeatHolder(player_id=player_id, seat_player=seat_player):
            return player_id or seat_player
    return None


def authorize_decline(cmd: DeclineSeat, principal: Principal) -> Actor:
    """The invited player (the rules check the seat is theirs)."""
    require_player(principal)
    return actor_of(principal, cmd.seat, cmd.game_id)


def decline(cmd: DeclineSeat, actor: Actor, tx: Transaction) -> Acted:
    player = require_player(tx.principal)
    game = tx.load(cmd.game_id)
    tx.dropped.setdefault(cmd.game_id, []).append(player.player_id)
    after = tx.apply(cmd.game_id, game, rules.DeclineSeat(cmd.seat, str(player.player_id)), actor)
    return Acted(cmd.game_id, after.version, cmd.seat)
