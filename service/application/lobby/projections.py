"""A game's row of the lobby, as its state gives it: public, waiting, with its seats (a
name and a bot at most: the lobby shows no card); kept by the write path in the
command's own statement (its projector: :func:`project`)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from service.application.games.cache import Loaded
from service.application.lobby.ports import LobbyEntry, LobbySeat
from service.application.ports import UnitOfWork
from service.application.write.projectors import Change, Known
from service.rules import Phase, Visibility, public_status


def listed(game: Loaded) -> bool:
    """Whether the game is one the lobby shows: public, still waiting for players."""
    cfg = game.state.config
    return (
        cfg is not None
        and cfg.visibility is Visibility.PUBLIC
        and public_status(game.state) == Phase.WAITING
    )


def entry(game_id: UUID, before: Loaded, after: Loaded, now: datetime) -> LobbyEntry | None:
    """The row to write after a command: the game as it now stands if the lobby shows
    it, or with no open seat if it just left; None when the lobby never had it."""
    if not (listed(before) or listed(after)):
        return None
    state = after.state
    cfg = state.config
    assert cfg is not None
    reserved = state.reserved or (None,) * cfg.players
    seats = tuple(
        LobbySeat(
            seat,
            state.names[seat],
            bot.value if (bot := state.bots[seat]) else None,
            reserved_for=UUID(held) if (held := reserved[seat]) else None,
        )
        for seat in range(cfg.players)
    )
    # Open: free and reserved for nobody (a reserved seat waits for its player).
    free = sum(s.name is None and s.reserved_for is None for s in seats) if listed(after) else 0
    return LobbyEntry(
        game_id,
        cfg.players,
        cfg.scoring.value,
        cfg.variant.value,
        cfg.rated,
        cfg.clock,
        seats,
        free,
        now,
        now,
    )


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    """The game's row, when the lobby shows it or just stopped showing it."""
    row = entry(change.game_id, change.before, change.after, known.now)
    if row is not None:
        uow.lobby.put(row)
