"""Hand records: a game's record as JSON, the import and the export's query."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.rules import (
    RoundEndReason,
)
from service.web.fields import STATUSES, _values, always_present
from service.web.games.view_schemas import ClockViewSchema


class ExportQuerySchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={"enum": STATUSES})
    since = fields.AwareDateTime(
        format="iso",
        metadata={
            "description": "games that changed at or after this instant (RFC 3339, at any "
            "offset it allows: up to 23:59 either side of UTC)"
        },
    )


class ImportSchema(ma.Schema):
    record = fields.String(required=True, metadata={"description": "the record's text"})


@always_present
class RecordSeatSchema(ma.Schema):
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    client_seed = fields.String(allow_none=True)


@always_present
class RecordFairnessSchema(ma.Schema):
    algorithm = fields.String()
    commitment = fields.String(allow_none=True)
    server_seed = fields.String(allow_none=True)


class RecordMoveSchema(ma.Schema):
    type = fields.String(metadata={"enum": ["pass", "play", "leave", "resign", "timeout"]})
    seat = fields.Integer(metadata={"description": "pass, play, leave, resign"})
    seats = fields.List(fields.Integer(), metadata={"description": "timeout"})
    cards = fields.List(fields.String(allow_none=True), metadata={"description": "pass"})
    card = fields.String(metadata={"description": "play"})
    bot = fields.String(metadata={"description": "leave"})
    outcome = fields.String(metadata={"description": "timeout"})


@always_present
class RecordResultSchema(ma.Schema):
    reason = fields.String(metadata=_values(RoundEndReason))
    winners = fields.List(fields.Integer())
    points = fields.List(fields.Integer())
    bosses = fields.List(fields.String())


@always_present
class RecordRoundSchema(ma.Schema):
    number = fields.Integer()
    hands = fields.List(
        fields.List(fields.String()), metadata={"description": "by seat; null: hidden"}
    )
    trump = fields.String(allow_none=True)
    moves = fields.List(fields.Nested(RecordMoveSchema))
    tricks = fields.List(fields.Integer(), metadata={"description": "each trick's winner"})
    result = fields.Nested(RecordResultSchema, allow_none=True)


@always_present
class HandRecordSchema(ma.Schema):
    format = fields.String(metadata={"enum": ["yokai-record-1"]})
    players = fields.Integer()
    scoring = fields.String()
    variant = fields.String()
    clock = fields.Nested(ClockViewSchema, allow_none=True)
    seats = fields.List(fields.Nested(RecordSeatSchema))
    fairness = fields.Nested(RecordFairnessSchema)
    status = fields.String(metadata={"enum": STATUSES})
    winners = fields.List(fields.Integer(), allow_none=True)
    scores = fields.List(fields.Integer())
    rounds = fields.List(fields.Nested(RecordRoundSchema))


RecordMoveSchema._declared_fields["type"].required = True
