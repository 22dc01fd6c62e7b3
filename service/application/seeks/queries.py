"""A seek as its player reads it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from uuid import UUID

from service.application.deps import Deps
from service.application.identity.principals import Principal, guard, require_player
from service.application.seeks.handlers import SeekNotFoundError
from service.application.seeks.ports import Seek, SeekStatus


def presented(seek: Seek, now: datetime) -> Seek:
    """The seek as it stands at ``now``: one past its time has expired then, whether or
    not the worker has marked it yet."""
    if seek.status_at(now) is SeekStatus.EXPIRED and seek.status is SeekStatus.OPEN:
        return replace(seek, status=SeekStatus.EXPIRED, ended_at=seek.expires_at)
    return seek


def seek(deps: Deps, principal: Principal, seek_id: UUID) -> Seek:
    """The player's seek (404 ``seek_not_found`` for anyone else's, as for none)."""
    player = require_player(principal)
    with deps.uow() as uow:
        guard(uow, principal)
        found = uow.seeks.get(seek_id)
    if found is None or found.player_id != player.player_id:
        raise SeekNotFoundError("no such seek of this player")
    return presented(found, deps.clock.now())
