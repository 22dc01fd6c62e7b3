"""The lobby's query and its tables."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.rules import Scoring, Variant
from service.web.fields import CURSOR_PATTERN, _enum, always_present
from service.web.games.view_schemas import ClockViewSchema


class LobbyFilterSchema(ma.Schema):
    players = fields.Integer(validate=validate.OneOf([3, 4]))
    variant = _enum(Variant)
    scoring = _enum(Scoring)
    rated = fields.Boolean()


class LobbyQuerySchema(LobbyFilterSchema):
    cursor = fields.String(
        validate=validate.Length(min=1, max=400),
        metadata={"pattern": CURSOR_PATTERN, "description": "`next_cursor` of the page before"},
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    wait = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=60),
        metadata={
            "description": "with If-None-Match naming the current ETag: hold the request "
            "until the lobby changes (200) or this many seconds pass (304)"
        },
    )


@always_present
class LobbySeatSchema(ma.Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    player_id = fields.UUID(allow_none=True)
    reserved_for = fields.UUID(allow_none=True, metadata={"description": "an invited player"})


@always_present
class LobbyGameSchema(ma.Schema):
    game_id = fields.UUID()
    players = fields.Integer()
    scoring = fields.String()
    variant = fields.String()
    rated = fields.Boolean()
    clock = fields.Nested(ClockViewSchema, allow_none=True)
    seats = fields.List(fields.Nested(LobbySeatSchema))
    open_seats = fields.Integer(
        metadata={"description": "free seats; 0 in a stream's `table`: it left the lobby"}
    )
    created_at = fields.DateTime()


@always_present
class LobbySchema(ma.Schema):
    games = fields.List(fields.Nested(LobbyGameSchema))
    next_cursor = fields.String(allow_none=True)
