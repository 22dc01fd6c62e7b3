"""Reports: a player's report, and operators' list and resolution of them."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.application.moderation.ports import ACTIONS
from service.application.moderation.reports import MAX_MUTE_MINUTES, MAX_TEXT
from service.web.fields import CURSOR_PATTERN, JsonInteger, always_present

_MESSAGE_ID = {"description": "a chat message's id (`GET /v1/games/{id}/chat`)"}


class ReportCreateSchema(ma.Schema):
    player_id = fields.UUID(required=True, metadata={"description": "the player reported"})
    game_id = fields.UUID(load_default=None, allow_none=True)
    message_id = JsonInteger(
        load_default=None, allow_none=True, validate=validate.Range(min=1), metadata=_MESSAGE_ID
    )
    reason = fields.String(
        required=True,
        validate=validate.Length(min=1, max=MAX_TEXT),
        metadata={"description": "what happened, in the reporter's words"},
    )


class ResolveSchema(ma.Schema):
    action = fields.String(required=True, validate=validate.OneOf(ACTIONS))
    minutes = JsonInteger(
        load_default=None,
        allow_none=True,
        metadata={"description": f"a mute's length, 1 to {MAX_MUTE_MINUTES}; only for a mute"},
    )
    note = fields.String(
        required=True,
        validate=validate.Length(min=1, max=MAX_TEXT),
        metadata={"description": "why, for the operators (and the player's audit)"},
    )


class ReportsQuerySchema(ma.Schema):
    status = fields.String(load_default="open", validate=validate.OneOf(["open", "closed"]))
    cursor = fields.String(
        validate=validate.Length(min=1, max=400),
        metadata={"pattern": CURSOR_PATTERN, "description": "`next_cursor` of the page before"},
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


@always_present
class ReportSchema(ma.Schema):
    """A report as its reporter sees it."""

    id = fields.UUID()
    player_id = fields.UUID()
    game_id = fields.UUID(allow_none=True)
    message_id = fields.Integer(allow_none=True)
    reason = fields.String()
    status = fields.String(metadata={"enum": ["open", "closed"]})
    created_at = fields.DateTime()


@always_present
class ReportedPlayerSchema(ma.Schema):
    id = fields.UUID()
    name = fields.String()
    erased = fields.Boolean()


@always_present
class ContextMessageSchema(ma.Schema):
    id = fields.Integer()
    channel = fields.String(metadata={"enum": ["table", "spectators"]})
    seat = fields.Integer(allow_none=True)
    player_id = fields.UUID(allow_none=True)
    name = fields.String()
    text = fields.String(allow_none=True, metadata={"description": "null for a preset"})
    preset = fields.String(allow_none=True)
    at = fields.DateTime()
    reported = fields.Boolean(metadata={"description": "the message the report names"})


@always_present
class ResolutionSchema(ma.Schema):
    action = fields.String(metadata={"enum": list(ACTIONS)})
    minutes = fields.Integer(allow_none=True)
    until = fields.DateTime(allow_none=True, metadata={"description": "a mute's end"})
    note = fields.String(allow_none=True)
    at = fields.DateTime()
    by = fields.String(allow_none=True, metadata={"description": "the operator token's name"})


@always_present
class OperatorReportSchema(ma.Schema):
    """A report as operators see it."""

    id = fields.UUID()
    status = fields.String(metadata={"enum": ["open", "closed"]})
    created_at = fields.DateTime()
    player = fields.Nested(ReportedPlayerSchema)
    reporter = fields.Nested(ReportedPlayerSchema)
    game_id = fields.UUID(allow_none=True)
    message_id = fields.Integer(allow_none=True)
    reason = fields.String(
        allow_none=True, metadata={"description": "null once the reporter is erased"}
    )
    context = fields.List(
        fields.Nested(ContextMessageSchema),
        metadata={
            "description": "the reported message with up to 3 messages before and after it "
            "in its game and channel, oldest first; empty when no message is named"
        },
    )
    resolution = fields.Nested(ResolutionSchema, allow_none=True)


@always_present
class ReportListSchema(ma.Schema):
    reports = fields.List(fields.Nested(OperatorReportSchema))
    next_cursor = fields.String(allow_none=True)
