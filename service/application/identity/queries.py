"""A player's own things: who they are, and their inbox ("my games, my turn")."""

from __future__ import annotations

from service.application.deps import Deps
from service.application.errors import UnauthenticatedError
from service.application.identity.ports import PlayerRecord
from service.application.identity.principals import Principal, require_player


def me(deps: Deps, principal: Principal) -> PlayerRecord:
    player = require_player(principal)
    with deps.uow() as uow:
        found = uow.players.get(player.player_id)
    if found is None:  # pragma: no cover - identified by it a moment ago
        raise UnauthenticatedError("the bearer token is not valid")
    return found
