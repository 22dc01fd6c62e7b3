"""Profiles, rating histories, finished games and leaderboards (docs/api.md "Ratings,
profiles and leaderboards"): anyone may read them; the worker keeps what they read."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response

from service.application.ratings import queries
from service.application.ratings.model import LADDERS, Rating, bot_player
from service.application.reputation import bans
from service.bots.levels import DESCRIPTIONS
from service.rules import BotLevel
from service.web.api import Blueprint
from service.web.ratings.schemas import (
    BotsSchema,
    FinishedGamesSchema,
    HistorySchema,
    LeaderboardSchema,
    PageQuerySchema,
    ProfileSchema,
)
from service.web.render import json_response
from service.web.request import deps

blp = Blueprint(
    "ratings", __name__, url_prefix="/v1", description="Ratings, profiles and leaderboards"
)

BOTS = BotsSchema()
PROFILE, HISTORY, GAMES, BOARD = (
    ProfileSchema(),
    HistorySchema(),
    FinishedGamesSchema(),
    LeaderboardSchema(),
)
_LADDER = {
    "in": "path",
    "name": "ladder",
    "required": True,
    "schema": {"type": "string", "enum": list(LADDERS)},
}


def _rating(r: Rating) -> dict[str, Any]:
    return {
        "mu": r.mu,
        "sigma": r.sigma,
        "ordinal": r.ordinal,
        "games": r.games,
        "provisional": r.provisional,
    }


@blp.route("/bots", methods=["GET"])
@blp.response(200, BotsSchema)
@blp.doc(operationId="list_bots")
@blp.problems(429)
def bots() -> Response:
    """The bot levels: each plays as a player of its own (its `player_id`: a profile and
    ratings like anyone's), from `random` to `expert`."""
    body = {
        "bots": [
            {
                "level": level.value,
                "player_id": bot_player(level),
                "description": DESCRIPTIONS[level.value],
            }
            for level in BotLevel
        ]
    }
    return json_response(BOTS, body)


@blp.route("/players/<id:player_id>", methods=["GET"])
@blp.response(200, ProfileSchema)
@blp.doc(operationId="player_profile")
@blp.problems(404, 429)
def player(player_id: str) -> Response:
    """A player's profile: ratings by ladder (those played), stats of their finished
    games, their reputation and running ban (docs/api.md "Playing fair"). Anyone may
    read it; a bot level's player too."""
    found = queries.profile(deps(), UUID(player_id))
    body = {
        "id": found.player_id,
        "name": found.name,
        "created_at": found.created_at,
        "bot": found.bot,
        "ratings": {ladder: _rating(r) for ladder, r in found.ratings.items()},
        "stats": found.stats,
        "reputation": found.reputation,
        "banned_until": found.ban.until if found.ban else None,
        "ban": bans.shown(found.ban),
    }
    return json_response(PROFILE, body)


@blp.route("/players/<id:player_id>/ratings/<ladder>", methods=["GET"])
@blp.response(200, HistorySchema)
@blp.doc(operationId="rating_history", parameters=[_LADDER])
@blp.problems(404, 429)
def rating_history(player_id: str, ladder: str) -> Response:
    """A player's rating updates in a ladder, oldest first (empty: not played yet; 404
    `ladder_not_found` for a ladder there is not)."""
    changes = queries.history(deps(), UUID(player_id), ladder)
    body = {
        "history": [
            {
                "game_id": c.game_id,
                "at": c.at,
                "before": {"mu": c.before.mu, "sigma": c.before.sigma},
                "after": {"mu": c.after.mu, "sigma": c.after.sigma},
            }
            for c in changes
        ]
    }
    return json_response(HISTORY, body)


@blp.route("/players/<id:player_id>/games", methods=["GET"])
@blp.arguments(PageQuerySchema(), location="query")
@blp.response(200, FinishedGamesSchema)
@blp.doc(operationId="player_games")
@blp.problems(404, 422, 429)
def player_games(query: dict[str, Any], player_id: str) -> Response:
    """A player's finished games, the most recently finished first."""
    page, cursor = queries.finished_games(
        deps(), UUID(player_id), query.get("cursor"), query["limit"]
    )
    body = {
        "games": [
            {
                "game_id": g.result.game_id,
                "seat": g.result.seat,
                "players": g.players,
                "scoring": g.scoring,
                "variant": g.variant,
                "rated": g.result.rated,
                "won": g.result.won,
                "abandoned": g.result.abandoned,
                "finished_at": g.result.finished_at,
            }
            for g in page
        ],
        "next_cursor": cursor,
    }
    return json_response(GAMES, body)


@blp.route("/leaderboards/<ladder>", methods=["GET"])
@blp.arguments(PageQuerySchema(), location="query")
@blp.response(200, LeaderboardSchema)
@blp.doc(operationId="leaderboard", parameters=[_LADDER])
@blp.problems(404, 422, 429)
def leaderboard(query: dict[str, Any], ladder: str) -> Response:
    """A ladder's players with 10 rated games or more, by ordinal (mu - 3 sigma), highest
    first; ties: more games first, then the player id."""
    page, cursor = queries.leaderboard(deps(), ladder, query.get("cursor"), query["limit"])
    body = {
        "players": [
            {
                "rank": rank,
                "player_id": row.player_id,
                "name": row.name,
                "mu": row.rating.mu,
                "sigma": row.rating.sigma,
                "ordinal": row.rating.ordinal,
                "games": row.rating.games,
            }
            for rank, row in page
        ],
        "next_cursor": cursor,
    }
    return json_response(BOARD, body)
