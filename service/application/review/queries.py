"""A game's hand review as the API gives it (GET /v1/games/{id}/review, `yokai review`)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import NotFoundError
from service.application.review.model import from_json, summary, summary_json


class NoReviewError(NotFoundError):
    code = "no_review"


def review(deps: Deps, game_id: UUID) -> dict[str, Any]:
    """``{"status", "level", "decisions", "summary"}``: the decisions reviewed so far
    (all of them once done) and the seats' summary of them."""
    with deps.uow(snapshot=True) as uow:
        found = uow.reviews.get(game_id)
    if found is None:
        raise NoReviewError(f"no review of game {game_id} was asked for")
    decisions = [from_json(d) for d in found.decisions]
    return {
        "status": found.status.value,
        "level": found.level,
        "decisions": found.decisions,
        "summary": [summary_json(s) for s in summary(found.players, decisions)],
    }
