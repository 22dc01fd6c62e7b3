"""Quick play's request and its seek."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.application.seeks.ports import SeekStatus
from service.rules import Scoring, Variant
from service.web.fields import JsonBoolean, JsonInteger, JsonNumber, _enum, always_present
from service.web.games.schemas import ClockSchema
from service.web.games.view_schemas import ClockViewSchema

BOTS_AFTER = (5, 600)
RATING_LIMIT = 1_000_000.0
"""The largest ordinal a rating range may name (either way): ordinals are small numbers."""


class SeekCreateSchema(ma.Schema):
    players = JsonInteger(required=True, validate=validate.OneOf([3, 4]))
    scoring = _enum(Scoring, load_default=Scoring.BASIC)
    variant = _enum(
        Variant,
        load_default=Variant.STANDARD,
        metadata={"description": "the Seven Followers variants are for four players"},
    )
    rated = JsonBoolean(load_default=False)
    clock = fields.Nested(ClockSchema, metadata={"description": "a turn clock (default: none)"})
    rating_range = fields.List(
        JsonNumber(validate=validate.Range(min=-RATING_LIMIT, max=RATING_LIMIT)),
        validate=validate.Length(equal=2),
        metadata={
            "description": "rated seeks: `[low, high]` (low ≤ high, else 422 "
            "`invalid_rating_range`), the ordinals of the players it takes, widened by 1.0 "
            "on each side for every 10 s it waits (no range: any); unrated seeks take "
            "anyone"
        },
    )
    bots_after_seconds = JsonInteger(
        validate=validate.Range(min=BOTS_AFTER[0], max=BOTS_AFTER[1]),
        metadata={
            "description": "still open after this long, the seek is matched into an "
            "unrated game with basic bots in the seats nobody took"
        },
    )
    min_reputation = JsonInteger(
        validate=validate.Range(min=0, max=100),
        metadata={
            "description": "every person seated with this seek has at least this "
            "reputation (the profile's `reputation.score`; none: anyone)"
        },
    )


@always_present
class SeekSchema(ma.Schema):
    id = fields.UUID()
    status = fields.String(metadata={"enum": [s.value for s in SeekStatus]})
    players = fields.Integer()
    scoring = fields.String(metadata={"enum": [s.value for s in Scoring]})
    variant = fields.String(metadata={"enum": [v.value for v in Variant]})
    rated = fields.Boolean()
    clock = fields.Nested(ClockViewSchema, allow_none=True)
    rating_range = fields.List(fields.Float(), allow_none=True)
    bots_after_seconds = fields.Integer(allow_none=True)
    min_reputation = fields.Integer(allow_none=True)
    created_at = fields.DateTime()
    expires_at = fields.DateTime(
        metadata={"description": "an open seek expires then (YOKAI_SEEK_HOURS after it was made)"}
    )
    ended_at = fields.DateTime(
        allow_none=True,
        metadata={"description": "when it was matched, cancelled or expired (null while open)"},
    )
    game_id = fields.UUID(allow_none=True, metadata={"description": "once matched: the game"})
    seat = fields.Integer(allow_none=True, metadata={"description": "once matched: its seat"})
