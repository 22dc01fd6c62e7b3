"""Follows' effects of a command (its projector: :func:`project`): a new public game is
recorded as public (what a follower's list shows as ``playing``), and a player who takes
a seat of a public game is announced with the commit, for the streams of those who
follow them (``event: follow``: service/application/live/player_stream.py).

What it costs: nothing on a play or a view (a projector of ``seating``, which the write
path does not call when no seat is taken); a public game's creation adds one row to its
statement, and each player's join of one a notice sent with the commit, never a read."""

from __future__ import annotations

from service.application.ports import UnitOfWork
from service.application.write.projectors import Change, Known
from service.rules import Visibility


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    """(A projector of ``seating``: called for a new game, or seats players take.)"""
    cfg = change.after.state.config
    if cfg is None or cfg.visibility is not Visibility.PUBLIC:
        return
    if change.first:
        uow.follows.public(change.game_id)
    before, after = change.before.state.names, change.after.state.names
    for seat, player in known.bound:
        # Bound but not seated: invited (the invitation is theirs to join, not a seat).
        if after[seat] is not None and (seat >= len(before) or before[seat] is None):
            uow.follows.seated(player)
