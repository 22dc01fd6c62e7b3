"""What a command leaves on its players' reputations: the marks of its events (a seat
left, resigned, forfeited or played by a clock; the game ended), counted in its own
transaction. Nothing is read: the store finds each seat's player in the same statement,
and a command without such an event (a play) costs a look at its events' types."""

from __future__ import annotations

from service.application.games import codec
from service.application.ports import UnitOfWork
from service.application.reputation import model
from service.application.write.projectors import Change, Known


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    if not any(row.type in model.MARKING for row in change.rows):
        return
    state = change.before.state
    marks = model.marks(state, [(row.seq, codec.decode(row)) for row in change.rows])
    if not marks:
        return
    cfg = change.after.state.config
    assert cfg is not None
    uow.reputations.mark(change.game_id, cfg.rated, known.now, marks, dict(known.bound))
