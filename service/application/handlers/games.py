"""Creating games and joining seats."""

from __future__ import annotations

from uuid import uuid4

from service import rules
from service.application.commands import CreateGame, DealInput, JoinSeat
from service.application.errors import ForbiddenError, InvalidInputError, SeatNotFoundError
from service.application.identity import Operator, Principal, new_token, token_digest
from service.application.ports import SYSTEM, Actor, ActorKind
from service.application.results import Created, Joined
from service.application.transaction import Transaction


def authorize_create(cmd: CreateGame, principal: Principal) -> Actor:
    """Anyone may create a game; only operators may fix its shuffles or deals."""
    if isinstance(principal, Operator):
        return Actor(ActorKind.OPERATOR)
    if cmd.seed is not None or cmd.deals is not None:
        raise ForbiddenError("only operators may give seed or deals")
    return SYSTEM


def create_game(cmd: CreateGame, actor: Actor, tx: Transaction) -> Created:
    deals = None if cmd.deals is None else tuple(_preset(d) for d in cmd.deals)
    created = rules.CreateGame(cmd.players, cmd.scoring, cmd.variant, cmd.seed, deals)
    game_id = uuid4()
    after = tx.apply(game_id, tx.new_game(), created, actor)
    return Created(game_id, after.version)


def authorize_join(cmd: JoinSeat, principal: Principal) -> Actor:
    """Anyone may take a free seat."""
    return Actor(ActorKind.SEAT, cmd.seat)


def join_seat(cmd: JoinSeat, actor: Actor, tx: Transaction) -> Joined:
    """Take a free seat; its secret token is made here and only its digest is stored."""
    game = tx.load(cmd.game_id)
    cfg = game.state.config
    assert cfg is not None
    if not 0 <= cmd.seat < cfg.players:
        raise SeatNotFoundError(f"this game has seats 0 to {cfg.players - 1}")
    after = tx.apply(cmd.game_id, game, rules.JoinSeat(cmd.seat, cmd.name), actor)
    token = new_token()
    # A racing join of the same seat fails here or on the events' key: decided again.
    tx.uow.credentials.add(cmd.game_id, cmd.seat, token_digest(token), tx.now)
    return Joined(cmd.game_id, after.version, cmd.seat, token)


def _preset(deal: DealInput) -> rules.PresetDeal:
    try:
        hands = tuple(tuple(rules.card(i) for i in h) for h in deal.hands)
        trump = rules.card(deal.trump) if deal.trump is not None else None
    except rules.UnknownCardError as exc:
        raise InvalidInputError(f"deals: {exc}", code="unknown_card") from None
    return rules.PresetDeal(hands, trump)
