"""Command handlers, one module per family of commands, and :func:`execute`, which runs
any command through the one idempotency and retry wrapper."""

from __future__ import annotations

from service.application import idempotency
from service.application.commands import Command, Context, CreateGame, JoinSeat, PassCards, PlayCard
from service.application.deps import Deps
from service.application.handlers import games, play
from service.application.results import Result

HANDLERS: dict[type[Command], idempotency.Handler] = {
    CreateGame: games.create_game,
    JoinSeat: games.join_seat,
    PassCards: play.pass_cards,
    PlayCard: play.play_card,
}


def execute(deps: Deps, command: Command, ctx: Context) -> Result:
    """Do ``command`` for ``ctx.principal``: its events and projections in one
    transaction, once per idempotency key. Raises the refusal (an ApplicationError or
    a rule violation) when the command is not done."""
    return idempotency.run(deps, HANDLERS[type(command)], command, ctx)
