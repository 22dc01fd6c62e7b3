"""Who plays a seat: an operator seats a bot, a player leaves (a bot takes over) or
resigns (the game ends, the seat's side losing)."""

from __future__ import annotations

from service import rules
from service.application.commands import Leave, Resign, SeatBot
from service.application.errors import SeatNotFoundError
from service.application.games.seating import held_seat
from service.application.identity.principals import Principal, actor_of, require_operator, seat_of
from service.application.ports import Actor
from service.application.results import Acted
from service.application.write.transaction import Transaction

BOT_NAMES = {
    rules.BotLevel.RANDOM: "Random bot",
    rules.BotLevel.BASIC: "Basic bot",
    rules.BotLevel.STRONG: "Strong bot",
    rules.BotLevel.EXPERT: "Expert bot",
}


def bot_name(level: rules.BotLevel, seat: int) -> str:
    """A bot's name, numbered as people number seats (from 1: the bot of seat 0 is "Basic
    bot 1"), so the table, the hand record and the API say the same. Games made before
    this numbered them from 0; their events keep the names they had."""
    return f"{BOT_NAMES[level]} {seat + 1}"


def authorize_seat_bot(cmd: SeatBot, principal: Principal) -> Actor:
    require_operator(principal)
    return actor_of(principal)


def seat_bot(cmd: SeatBot, actor: Actor, tx: Transaction) -> Acted:
    """A bot takes a free seat (409 ``seat_taken`` if it is not free)."""
    game = tx.load(cmd.game_id)
    cfg = game.state.config
    assert cfg is not None
    if not 0 <= cmd.seat < cfg.players:
        raise SeatNotFoundError(f"this game has seats 0 to {cfg.players - 1}")
    seed = tx.dealer.client_seed() if game.state.fairness is not None else None
    joined = rules.JoinSeat(cmd.seat, bot_name(cmd.level, cmd.seat), cmd.level, seed)
    after = tx.apply(cmd.game_id, game, joined, actor)
    return Acted(cmd.game_id, after.version, cmd.seat)


def authorize_seat_command(cmd: Leave | Resign, principal: Principal) -> Actor:
    """Only a seat of this game leaves or resigns it, for itself."""
    return actor_of(principal, seat_of(cmd.game_id, principal), cmd.game_id)


def leave(cmd: Leave, actor: Actor, tx: Transaction) -> Acted:
    assert actor.seat is not None
    game = tx.load(cmd.game_id)
    held_seat(game.state, actor.seat)
    after = tx.apply(cmd.game_id, game, rules.Leave(actor.seat, tx.takeover), actor)
    return Acted(cmd.game_id, after.version, actor.seat)


def resign(cmd: Resign, actor: Actor, tx: Transaction) -> Acted:
    assert actor.seat is not None
    game = tx.load(cmd.game_id)
    held_seat(game.state, actor.seat)
    after = tx.apply(cmd.game_id, game, rules.Resign(actor.seat), actor)
    return Acted(cmd.game_id, after.version, actor.seat)
