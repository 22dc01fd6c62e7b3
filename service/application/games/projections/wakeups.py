"""The game's wakeup: when the worker next acts on it (a bot's move, a turn clock's
deadline: service/application/games/turnclocks.py)."""

from __future__ import annotations

from service.application.games import turnclocks
from service.application.ports import UnitOfWork
from service.application.write.projectors import Change, Known


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    """The wakeup, when the command moved it (or the worker's claim did: ``rewake``)."""
    wake = turnclocks.wake_at(change.after)
    if wake != turnclocks.wake_at(change.before) or known.rewake:
        uow.wakeups.set(change.game_id, wake, change.after.version)
