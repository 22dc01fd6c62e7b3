"""Every effect of a command, one line each: the projectors the write path runs on each
game a command changed (``seating``: only on a new game, or seats players take), in
this order, in the command's own transaction (their writes go
with the events as its one statement). Bootstrap hands this list to the application
(``Deps.projections``), and so do the tests' fakes; the write path imports none of them
(pyproject.toml's import contracts). An effect to add: a module in its capability's
``projections`` and a line here (service/application/write/projectors.py says what a
projector is given)."""

from __future__ import annotations

from service.application.games.projections import inbox, snapshots, summary, wakeups
from service.application.lobby import projections as lobby
from service.application.notify import projections as notify
from service.application.ratings import projections as ratings
from service.application.reputation import projections as reputation
from service.application.social import projections as social
from service.application.webhooks import projections as webhooks
from service.application.write.projectors import Projections

PROJECTIONS = Projections(
    referenced=(summary.insert,),
    following=(
        summary.update,
        inbox.project,
        lobby.project,
        ratings.project,
        reputation.project,
        snapshots.project,
        webhooks.project,
        notify.project,
        wakeups.project,
    ),
    seating=(social.project,),
)
