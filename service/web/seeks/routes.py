"""/v1/seeks: quick play. A player asks for a game of a kind; the worker pairs the seeks
that ask for the same into games (docs/api.md "Quick play")."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response

from service.application.commands import CancelSeek, CreateSeek
from service.application.seeks import queries
from service.application.seeks.handlers import SeekNotFoundError
from service.application.seeks.ports import Pool, Seek, SeekStatus
from service.application.write.registry import execute
from service.rules import TurnClock
from service.web.api import BEARER, Blueprint
from service.web.fields import IDEMPOTENCY_KEY
from service.web.render import json_response
from service.web.request import command_context, deps, principal
from service.web.seeks.schemas import SeekCreateSchema, SeekSchema

blp = Blueprint("seeks", __name__, url_prefix="/v1", description="Quick play: seeks")

SEEK = SeekSchema()
_TOKEN = "a player token"

# The seek is its player's: its calls go with the token that made it.
_SEEK_LINKS = {
    op: {
        "operationId": op,
        "parameters": {
            "path.seek_id": "$response.body#/id",
            "header.Authorization": "$request.header.Authorization",
        },
    }
    for op in ("get_seek", "cancel_seek")
}


def _id(seek_id: str) -> UUID:
    try:
        return UUID(seek_id)
    except ValueError:  # pragma: no cover - the route's converter takes only UUIDs
        raise SeekNotFoundError("no such seek") from None


def _asked(
    pool: Pool,
    rating_range: tuple[float, float] | None,
    bots_after: int | None,
    min_reputation: int | None,
) -> Any:
    """What a seek asks for, as its fields show it."""
    return {
        "players": pool.players,
        "scoring": pool.scoring.value,
        "variant": pool.variant.value,
        "rated": pool.rated,
        "clock": pool.clock,
        "rating_range": list(rating_range) if rating_range is not None else None,
        "bots_after_seconds": bots_after,
        "min_reputation": min_reputation,
    }


def _body(seek: Seek) -> dict[str, Any]:
    return {
        "id": seek.id,
        "status": seek.status.value,
        **_asked(seek.pool, seek.rating_range, seek.bots_after, seek.min_reputation),
        "created_at": seek.created_at,
        "expires_at": seek.expires_at,
        "ended_at": seek.ended_at,
        "game_id": seek.game_id,
        "seat": seek.seat,
    }


@blp.route("/seeks", methods=["POST"])
@blp.arguments(SeekCreateSchema())
@blp.response(201, SeekSchema, headers={"Location": {"schema": {"type": "string"}}})
@blp.doc(
    security=BEARER,
    operationId="create_seek",
    parameters=[IDEMPOTENCY_KEY],
    responses={201: {"links": _SEEK_LINKS}},
)
@blp.problems(400, 401, 403, 409, 413, 422, 429)
def create(body: dict[str, Any]) -> Response:
    """Quick play: ask for a game of this kind (a player's token; one open seek at a
    time, 409 `already_seeking`).

    The worker pairs seeks asking for the same players, scoring, variant, rated and clock
    into a game as soon as there are enough, seats drawn at random, every seat joined as
    its player and the game dealt; the seek is then `matched`, with its `game_id` and
    `seat` (the player's token acts for the seat). A rated seek takes only players whose
    rating lies in its `rating_range`, widened as it waits; with `bots_after_seconds`,
    basic bots fill the seats nobody took by then (an unrated game). With
    `min_reputation`, every person seated with the seek has at least that reputation.
    A banned player is refused (403 `player_banned`, with `banned_until`).
    """
    rated, clock = body["rated"], body.get("clock")
    pool = Pool(
        body["players"],
        body["scoring"],
        body["variant"],
        rated,
        None if clock is None else TurnClock(clock["turn_seconds"], clock["on_timeout"]),
    )
    span = body.get("rating_range")
    command = CreateSeek(
        pool,
        None if span is None else (float(span[0]), float(span[1])),
        body.get("bots_after_seconds"),
        body.get("min_reputation"),
    )
    made = execute(deps(), command, command_context(_TOKEN)).result
    created = {
        "id": made.seek_id,
        "status": SeekStatus.OPEN.value,
        **_asked(command.pool, command.rating_range, command.bots_after, command.min_reputation),
        "created_at": made.created_at,
        "expires_at": made.expires_at,
        "ended_at": None,
        "game_id": None,
        "seat": None,
    }
    response = json_response(SEEK, created, status=201)
    response.headers["Location"] = f"/v1/seeks/{made.seek_id}"
    return response


@blp.route("/seeks/<id:seek_id>", methods=["GET"])
@blp.response(200, SeekSchema)
@blp.doc(security=BEARER, operationId="get_seek")
@blp.problems(401, 403, 404, 429)
def get(seek_id: str) -> Response:
    """One of the caller's seeks: `open`, `matched` (with `game_id` and `seat`),
    `cancelled` or `expired`."""
    return json_response(SEEK, _body(queries.seek(deps(), principal(), _id(seek_id))))


@blp.route("/seeks/<id:seek_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="cancel_seek", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 409, 422, 429)
def cancel(seek_id: str) -> Response:
    """Cancel one of the caller's seeks while it is open (409 `seek_matched` once it is
    matched; a seek cancelled or expired already stays so: 204)."""
    execute(deps(), CancelSeek(_id(seek_id)), command_context(_TOKEN))
    return Response(status=204)
