"""The games row: a game's settings, status and version, for listings and cheap version
checks; the row its events refer to."""

from __future__ import annotations

from service.application.games.ports import GameSummary
from service.application.ports import UnitOfWork
from service.application.write.projectors import Change, Known
from service.rules import public_status


def insert(uow: UnitOfWork, change: Change, known: Known) -> None:
    """A new game's row (referenced: its first events refer to it)."""
    if not change.first:
        return
    after = change.after
    cfg = after.state.config
    assert cfg is not None
    uow.games.add(
        GameSummary(
            change.game_id,
            known.now,
            known.now,
            cfg.players,
            cfg.scoring.value,
            cfg.variant.value,
            public_status(after.state),
            after.version,
        )
    )


def update(uow: UnitOfWork, change: Change, known: Known) -> None:
    """The row of a game that had one, at its new status and version."""
    if change.first:
        return  # inserted as it now stands
    after = change.after
    uow.games.update(
        change.game_id,
        status=public_status(after.state),
        version=after.version,
        updated_at=known.now,
    )
