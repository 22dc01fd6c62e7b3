"""The inbox entries of a game's players, kept up to date after each command (what an
entry says of the game: service/application/games/inbox.py)."""

from __future__ import annotations

from service.application.games import inbox
from service.application.ports import UnitOfWork
from service.application.write.projectors import Change, Known
from service.rules import public_status


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    """Every entry of the game at its new status, scores and turns; the entries of the
    players who let their seat go (``known.dropped``) go. A new game has none yet: the
    handler that seats a player adds theirs."""
    if change.first:
        return
    after = change.after
    state = after.state
    uow.inbox.update_game(
        change.game_id,
        status=public_status(state),
        version=after.version,
        scores=state.scores,
        winner=state.winners,
        turns=inbox.turns(after),
        updated_at=known.now,
        gone=known.dropped,
    )
