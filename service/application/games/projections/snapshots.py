"""Snapshots: a game's state every SNAPSHOT_EVERY events, so that a process without it
folds from there (a cache: service/application/games/loading.py reads them)."""

from __future__ import annotations

from service.application.games.loading import SNAPSHOT_EVERY, snapshot
from service.application.ports import UnitOfWork
from service.application.write.projectors import Change, Known


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    """The game's state after a command that crossed a multiple of SNAPSHOT_EVERY."""
    after = change.after
    if after.version // SNAPSHOT_EVERY > change.before.version // SNAPSHOT_EVERY:
        uow.snapshots.put(snapshot(change.game_id, after))
