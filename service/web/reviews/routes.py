"""Hand reviews (docs/api.md "Hand review"): asked for, and read once the worker made
them."""

from __future__ import annotations

from typing import Any

from flask import Response

from service.application.commands import RequestReview
from service.application.review import queries
from service.application.write.registry import execute
from service.web.api import BEARER, Blueprint
from service.web.fields import IDEMPOTENCY_KEY
from service.web.render import json_response
from service.web.request import command_context, deps, game_uuid
from service.web.reviews.schemas import ReviewQueuedSchema, ReviewSchema

blp = Blueprint(
    "reviews",
    __name__,
    url_prefix="/v1",
    description="Hand reviews: what the expert would have played",
)

REVIEW = ReviewSchema()
QUEUED = ReviewQueuedSchema()


@blp.route("/games/<id:game_id>/review", methods=["POST"])
@blp.doc(security=[{}, *BEARER], parameters=[IDEMPOTENCY_KEY])
@blp.response(200, ReviewSchema, description="The review, done")
@blp.alt_response(202, schema=ReviewQueuedSchema, description="Queued, or being computed")
@blp.problems(400, 401, 404, 409, 422, 429)
def request_review(game_id: str, **_: Any) -> Response:
    """Ask for a finished game's hand review (anyone who may read the game): the worker
    computes it in the background (202), or it is done (200, the review). A game still
    played: 409 `game_not_finished`."""
    game = game_uuid(game_id)
    done = execute(deps(), RequestReview(game), command_context()).result
    if done.status == "done":
        return json_response(REVIEW, queries.review(deps(), game))
    return json_response(QUEUED, {"status": done.status}, status=202)


@blp.route("/games/<id:game_id>/review", methods=["GET"])
@blp.doc(security=[{}, *BEARER])
@blp.response(200, ReviewSchema)
@blp.problems(401, 404, 429)
def game_review(game_id: str) -> Response:
    """A game's hand review: each pass and play of every seat, the value of each option
    from that seat's view as the expert's search estimates it, the best and the loss;
    each seat's mistakes, blunders and accuracy. 404 `no_review` before any request."""
    return json_response(REVIEW, queries.review(deps(), game_uuid(game_id)))
