"""The webhooks' outbox: what a command tells the endpoints of its game's players (the
events of service/application/webhooks/events.py, and those its transaction told),
fanned out in the command's own statement for the worker's dispatcher to deliver."""

from __future__ import annotations

from service.application.ports import UnitOfWork
from service.application.webhooks.events import events_of
from service.application.write.projectors import Change, Known


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    """Each webhook event of the change, to the endpoints of the players who hold its
    seats (with this transaction's joins), not of those who left them to a bot."""
    told = [*events_of(change.game_id, change.before, change.after, change.rows), *known.told]
    if told:
        bots = change.after.state.bots
        left = [seat for seat, bot in enumerate(bots) if bot is not None]
        uow.webhooks.fan_out(change.game_id, told, known.bound, known.now, left)
