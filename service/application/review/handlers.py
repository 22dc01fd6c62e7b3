"""Asking for a game's hand review (POST /v1/games/{id}/review): queued once per game,
for the worker (service/application/review/jobs.py) to compute in the background."""

from __future__ import annotations

from service import rules
from service.application.commands import RequestReview
from service.application.errors import ConflictError
from service.application.identity.principals import Principal, actor_of
from service.application.ports import Actor
from service.application.results import ReviewRequested
from service.application.review.ports import Status
from service.application.write.transaction import Transaction

LEVEL = "expert"
"""Whose eye the review is: the search of the ``expert`` level (its worlds per play)."""


class GameNotFinishedError(ConflictError):
    code = "game_not_finished"


def authorize(cmd: RequestReview, principal: Principal) -> Actor:
    """Anyone who may read the game (its id is its link): no token needed."""
    return actor_of(principal, game_id=cmd.game_id)


def request(cmd: RequestReview, actor: Actor, tx: Transaction) -> ReviewRequested:
    """Queue the review of a finished game; a review already asked for is left as it is
    (a failed one is queued again)."""
    game = tx.load(cmd.game_id)
    state = game.state
    if state.phase is not rules.Phase.FINISHED or state.config is None:
        raise GameNotFinishedError("a game is reviewed once it is over")
    found = tx.uow.reviews.get(cmd.game_id)
    if found is not None and found.status is not Status.FAILED:
        return ReviewRequested(cmd.game_id, found.status.value)
    players = state.config.players
    tx.uow.reviews.request(cmd.game_id, LEVEL, tx.review_seed, players, tx.now)
    return ReviewRequested(cmd.game_id, Status.QUEUED.value)
