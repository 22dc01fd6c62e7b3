"""A seat's moves: passing cards and playing one."""

from __future__ import annotations

from service import rules
from service.application.commands import PassCards, PlayCard
from service.application.errors import InvalidInputError
from service.application.games.seating import held_seat
from service.application.identity.principals import Principal, actor_of, seat_of
from service.application.ports import Actor
from service.application.results import Acted
from service.application.write.transaction import Transaction


def authorize_move(cmd: PassCards | PlayCard, principal: Principal) -> Actor:
    """Only a seat of this game moves (with its token, or its player's), for itself."""
    return actor_of(principal, seat_of(cmd.game_id, principal), cmd.game_id)


def pass_cards(cmd: PassCards, actor: Actor, tx: Transaction) -> Acted:
    assert actor.seat is not None
    game = tx.load(cmd.game_id)
    held_seat(game.state, actor.seat)
    chosen = tuple(_card(game.state, c) for c in cmd.cards)
    after = tx.apply(cmd.game_id, game, rules.PassCards(actor.seat, chosen), actor)
    return Acted(cmd.game_id, after.version, actor.seat)


def play_card(cmd: PlayCard, actor: Actor, tx: Transaction) -> Acted:
    assert actor.seat is not None
    game = tx.load(cmd.game_id)
    held_seat(game.state, actor.seat)
    chosen = _card(game.state, cmd.card)
    after = tx.apply(cmd.game_id, game, rules.PlayCard(actor.seat, chosen), actor)
    return Acted(cmd.game_id, after.version, actor.seat)


def _card(state: rules.GameState, card_id: str) -> rules.Card:
    """A card of this game's deck, named by its id."""
    assert state.config is not None
    try:
        c = rules.card(card_id)
    except rules.UnknownCardError:
        c = None
    if c is None or c not in state.config.deck:
        raise InvalidInputError(f"{card_id!r} is not a card of this game", code="unknown_card")
    return c
