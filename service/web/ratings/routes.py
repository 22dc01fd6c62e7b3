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
from service.web.fields import IF_NONE_MATCH_TAG
from service.web.ratings.schemas import (
    BotsSchema,
    FinishedGamesSchema,
    HistorySchema,
    LeaderboardQuerySchema,
    LeaderboardSchema,
    PageQuerySchema,
    ProfileSchema,
)
from service.web.render import json_response, tagged_response
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
_ETAG = {"ETag": {"schema": {"type": "string"}}}
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


@blp.route(
    "/players/<id:player_id>/ratings/<ladder>",
    methods=["GET"],
    parameters=[_LADDER, IF_NONE_MATCH_TAG],
)
@blp.response(200, HistorySchema, headers=_ETAG)
@blp.doc(operationId="rating_history")
@blp.problems(304, 404, 429)
def rating_history(player_id: str, ladder: str) -> Response:
    """A player's rating updates in a ladder, oldest first (empty: not played yet; 404
    `ladder_not_found` for a ladder there is not). Its ETag changes with the history:
    304 while `If-None-Match` names it."""
    found = queries.history(deps(), UUID(player_id), ladder)
    return tagged_response(
        HISTORY,
        found.etag,
        lambda: {
            "history": [
                {
                    "game_id": c.game_id,
                    "at": c.at,
                    "before": {"mu": c.before.mu, "sigma": c.before.sigma},
                    "after": {"mu": c.after.mu, "sigma": c.after.sigma},
                }
                for c in found.changes
            ]
        },
    )


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


# The ladder and If-None-Match are the route's parameters: an operation's own `doc`
# parameters would replace the query's, which `arguments` documents.
@blp.route("/leaderboards/<ladder>", methods=["GET"], parameters=[_LADDER, IF_NONE_MATCH_TAG])
@blp.arguments(LeaderboardQuerySchema(), location="query")
@blp.response(200, LeaderboardSchema, headers=_ETAG)
@blp.doc(operationId="leaderboard")
@blp.problems(304, 404, 422, 429)
def leaderboard(query: dict[str, Any], ladder: str) -> Response:
    """A ladder's people with 10 rated games or more, by ordinal (mu - 3 sigma), highest
    first; ties: more games first, then the player id. With `bots=true`, every bot level
    rated in the ladder too (`bot`: its level). The page's ETag changes with what it
    shows: 304 while `If-None-Match` names it."""
    board = queries.leaderboard(deps(), ladder, query.get("cursor"), query["limit"], query["bots"])
    return tagged_response(
        BOARD,
        board.etag,
        lambda: {
            "players": [
                {
                    "rank": rank,
                    "player_id": row.player_id,
                    "name": row.name,
                    "bot": row.bot,
                    "mu": row.rating.mu,
                    "sigma": row.rating.sigma,
                    "ordinal": row.rating.ordinal,
                    "games": row.rating.games,
                }
                for rank, row in board.rows
            ],
            "next_cursor": board.next_cursor,
        },
    )
