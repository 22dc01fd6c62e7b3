"""A hand review's shape (docs/api.md "Hand review")."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.web.fields import always_present

_CARDS = {
    "oneOf": [
        {"type": "string", "description": "a card id (a play)"},
        {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 3,
            "maxItems": 3,
            "description": "three card ids, sorted (a pass)",
        },
    ]
}
_VALUE = "the seat's side's expected share of the round's outcome, in [0, 1]"


@always_present
class OptionSchema(ma.Schema):
    cards = fields.Raw(metadata=_CARDS)
    value = fields.Float(validate=validate.Range(0, 1), metadata={"description": _VALUE})


@always_present
class DecisionSchema(ma.Schema):
    seq = fields.Integer(metadata={"description": "the CardsPassed or CardPlayed event's"})
    round = fields.Integer()
    trick = fields.Integer(
        allow_none=True, metadata={"description": "from 1 within the round; null for a pass"}
    )
    seat = fields.Integer()
    kind = fields.String(validate=validate.OneOf(["pass", "play"]))
    chosen = fields.Raw(metadata=_CARDS)
    best = fields.Raw(metadata=_CARDS)
    options = fields.List(
        fields.Nested(OptionSchema),
        metadata={"description": "every legal play; for a pass, the candidates evaluated"},
    )
    loss = fields.Float(
        validate=validate.Range(min=0), metadata={"description": "value(best) - value(chosen)"}
    )


@always_present
class SeatReviewSchema(ma.Schema):
    seat = fields.Integer()
    decisions = fields.Integer()
    mistakes = fields.Integer(metadata={"description": "decisions losing >= 0.10"})
    blunders = fields.Integer(metadata={"description": "decisions losing >= 0.25"})
    accuracy = fields.Float(
        validate=validate.Range(0, 100), metadata={"description": "100 with no loss"}
    )


@always_present
class ReviewSchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(["queued", "running", "done", "failed"]))
    level = fields.String(metadata={"description": "whose search values the options"})
    decisions = fields.List(
        fields.Nested(DecisionSchema),
        metadata={"description": "in game order; those reviewed so far until done"},
    )
    summary = fields.List(fields.Nested(SeatReviewSchema), metadata={"description": "by seat"})


class ReviewQueuedSchema(ma.Schema):
    status = fields.String(required=True, validate=validate.OneOf(["queued", "running"]))
