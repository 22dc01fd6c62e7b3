"""Ratings, profiles and leaderboards as the API shows them."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.application.ratings.model import LADDERS
from service.rules import BotLevel, Scoring, Variant
from service.web.fields import CURSOR_PATTERN, BanSchema, always_present


class PageQuerySchema(ma.Schema):
    cursor = fields.String(
        validate=validate.Length(min=1, max=400),
        metadata={"pattern": CURSOR_PATTERN, "description": "`next_cursor` of the page before"},
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class LeaderboardQuerySchema(PageQuerySchema):
    bots = fields.Boolean(
        load_default=False,
        metadata={"description": "true: every bot level rated in the ladder too"},
    )


@always_present
class MuSigmaSchema(ma.Schema):
    mu = fields.Float()
    sigma = fields.Float()


@always_present
class LadderRatingSchema(MuSigmaSchema):
    ordinal = fields.Float(metadata={"description": "mu - 3 sigma: what ranks players"})
    games = fields.Integer(metadata={"description": "rated games played in the ladder"})
    provisional = fields.Boolean(metadata={"description": "fewer than 10 rated games"})


@always_present
class StatsSchema(ma.Schema):
    games = fields.Integer(metadata={"description": "finished games played"})
    wins = fields.Integer()
    rated_games = fields.Integer()
    abandoned = fields.Integer(
        metadata={"description": "games the player left, resigned or lost by a clock forfeit"}
    )


@always_present
class ProfileSchema(ma.Schema):
    id = fields.UUID()
    name = fields.String()
    created_at = fields.DateTime(allow_none=True, metadata={"description": "null for a bot"})
    bot = fields.String(
        allow_none=True,
        metadata={
            "enum": [b.value for b in BotLevel],
            "description": "a bot level's own player: its level (null for people)",
        },
    )
    ratings = fields.Dict(
        keys=fields.String(metadata={"enum": list(LADDERS)}),
        values=fields.Nested(LadderRatingSchema),
        metadata={"description": "by ladder: only those the player has played"},
    )
    stats = fields.Nested(StatsSchema)
    reputation = fields.Nested(
        "ReputationSchema", allow_none=True, metadata={"description": "people's (null for a bot)"}
    )
    banned_until = fields.DateTime(
        allow_none=True,
        metadata={"description": "banned from seeks and rated joins until then (null: not)"},
    )
    ban = fields.Nested(BanSchema, allow_none=True, metadata={"description": "the running ban"})


@always_present
class ReputationSchema(ma.Schema):
    score = fields.Integer(
        metadata={
            "description": "starts at 75; +1 per game finished holding the seat (at most "
            "100), -10 per game abandoned, -1 per turn a clock played; never below 0"
        }
    )
    finished = fields.Integer(metadata={"description": "games ended holding the seat"})
    abandoned = fields.Integer(
        metadata={"description": "games left while running, resigned, or forfeited by a clock"}
    )
    timeouts = fields.Integer(metadata={"description": "turns a clock played"})


@always_present
class HistoryEntrySchema(ma.Schema):
    game_id = fields.UUID()
    at = fields.DateTime(metadata={"description": "when the update was made"})
    before = fields.Nested(MuSigmaSchema)
    after = fields.Nested(MuSigmaSchema)


@always_present
class HistorySchema(ma.Schema):
    history = fields.List(
        fields.Nested(HistoryEntrySchema),
        metadata={"description": "oldest first; each entry's before is the last one's after"},
    )


@always_present
class FinishedGameSchema(ma.Schema):
    game_id = fields.UUID()
    seat = fields.Integer()
    players = fields.Integer()
    scoring = fields.String(metadata={"enum": [s.value for s in Scoring]})
    variant = fields.String(metadata={"enum": [v.value for v in Variant]})
    rated = fields.Boolean()
    won = fields.Boolean(metadata={"description": "the player's side won"})
    abandoned = fields.Boolean(metadata={"description": "left, resigned or forfeited"})
    finished_at = fields.DateTime()


@always_present
class FinishedGamesSchema(ma.Schema):
    games = fields.List(fields.Nested(FinishedGameSchema))
    next_cursor = fields.String(allow_none=True)


@always_present
class RankedSchema(ma.Schema):
    rank = fields.Integer(metadata={"description": "1 the highest"})
    player_id = fields.UUID()
    name = fields.String()
    bot = fields.String(
        allow_none=True,
        metadata={
            "enum": [b.value for b in BotLevel],
            "description": "a bot level's row (`bots=true`): its level (null for people)",
        },
    )
    mu = fields.Float()
    sigma = fields.Float()
    ordinal = fields.Float()
    games = fields.Integer()


@always_present
class LeaderboardSchema(ma.Schema):
    players = fields.List(fields.Nested(RankedSchema))
    next_cursor = fields.String(allow_none=True)


@always_present
class BotOfferSchema(ma.Schema):
    level = fields.String(metadata={"enum": [b.value for b in BotLevel]})
    player_id = fields.UUID(metadata={"description": "the player the level plays as"})
    description = fields.String()


@always_present
class BotsSchema(ma.Schema):
    bots = fields.List(fields.Nested(BotOfferSchema), metadata={"description": "weakest first"})
