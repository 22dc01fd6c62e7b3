"""What a finished game leaves for ratings, in the command that finishes it: how it went
for each of its players (profiles), and, rated, its update queued (the worker's to make,
never the request's: service/application/jobs/rating.py)."""

from __future__ import annotations

from service.application.games import codec
from service.application.games.cache import Loaded
from service.application.ports import UnitOfWork
from service.application.ratings import model
from service.application.ratings.ports import PlayerResult
from service.application.write.projectors import Change, Known
from service.rules import Phase


def finished(before: Loaded, after: Loaded) -> bool:
    """Whether the command finished the game (all rounds played, a resign or a clock
    forfeit; not a game that expired waiting for players)."""
    return after.state.phase is Phase.FINISHED and before.state.phase is not Phase.FINISHED


def project(uow: UnitOfWork, change: Change, known: Known) -> None:
    """The players' results and the rated game's place in the queue, once it finished
    (reading who held its seats: a round trip only for the command that finishes it)."""
    if not finished(change.before, change.after):
        return
    game_id, state = change.game_id, change.after.state
    cfg = state.config
    assert cfg is not None and state.winners is not None
    held = {**uow.players.of_game(game_id), **dict(known.bound)}
    # A player's seat that a bot plays: the player left. A resign or a forfeit ends
    # the game, so it is among this command's events.
    quitters = model.culprits([codec.decode(row) for row in change.rows])
    quitters |= {seat for seat in held if state.bots[seat] is not None}
    uow.ratings.results(
        [
            PlayerResult(
                player_id,
                game_id,
                seat,
                known.now,
                cfg.rated,
                cfg.side_of(seat) in state.winners,
                seat in quitters,
            )
            for seat, player_id in sorted(held.items())
        ]
    )
    if cfg.rated:
        uow.ratings.finished(game_id, known.now)
