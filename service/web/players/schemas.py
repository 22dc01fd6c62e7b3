"""Players and their inbox."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.application.identity.names import NAME_MAX, NAME_PATTERN
from service.web.fields import (
    CURSOR_PATTERN,
    STATUSES,
    _nullable_enum,
    _printable,
    always_present,
)


class PlayerCreateSchema(ma.Schema):
    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=NAME_MAX), _printable],
        metadata={"pattern": NAME_PATTERN, "description": "printable, not only spaces"},
    )


class RenameSchema(PlayerCreateSchema):
    """The player's new name (games keep the names their seats were joined under)."""


class TokensQuerySchema(ma.Schema):
    cursor = fields.String(
        validate=validate.Length(min=1, max=400),
        metadata={"pattern": CURSOR_PATTERN, "description": "`next_cursor` of the page before"},
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class InboxQuerySchema(ma.Schema):
    status = fields.String(
        load_default="active", validate=validate.OneOf(["active", "finished", "all"])
    )
    cursor = fields.String(
        validate=validate.Length(min=1, max=400),
        metadata={"pattern": CURSOR_PATTERN, "description": "`next_cursor` of the page before"},
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    # A string of a UUID's length (the route reads it as a game id: web/request.py
    # game_uuid), not a UUID field: the inbox's query stays one that web/loading.py
    # checks without webargs (a UUID field, absent, cost every read some 90 calls).
    game = fields.String(
        validate=validate.Length(equal=36),
        metadata={
            "format": "uuid",
            "description": "that game's entry alone (none: the player holds no seat of it "
            "and none is kept for them; `status` still applies, `cursor` does not)",
        },
    )
    wait = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=60),
        metadata={
            "description": "with If-None-Match naming the current ETag: hold the request "
            "until the inbox changes (200) or this many seconds pass (304)"
        },
    )


@always_present
class PlayerSchema(ma.Schema):
    id = fields.UUID()
    name = fields.String()


@always_present
class PlayerCreatedSchema(PlayerSchema):
    token = fields.String(metadata={"description": "the player's secret; shown only here"})


@always_present
class InboxEntrySchema(ma.Schema):
    game_id = fields.UUID()
    seat = fields.Integer()
    status = fields.String(metadata={"enum": STATUSES})
    version = fields.Integer()
    players = fields.Integer()
    scoring = fields.String()
    variant = fields.String()
    scores = fields.List(fields.Integer())
    winner = fields.List(fields.Integer(), allow_none=True)
    my_turn = fields.Boolean()
    action = _nullable_enum("Action")
    invited = fields.Function(
        lambda entry: entry.action == "join",
        metadata={"description": "a seat of the game is reserved for this player: join it"},
    )
    due_since = fields.DateTime(
        allow_none=True, metadata={"description": "since when the seat must act"}
    )
    deadline = fields.DateTime(
        allow_none=True, metadata={"description": "by when the seat must act (turn clocks)"}
    )
    updated_at = fields.DateTime()
    invited_by = fields.Function(
        lambda entry: (
            None
            if entry.invited_by is None
            else {"player_id": str(entry.invited_by), "name": entry.invited_by_name}
        ),
        metadata={
            "type": ["object", "null"],
            "properties": {
                "player_id": {"type": "string", "format": "uuid"},
                "name": {"type": "string"},
            },
            "required": ["player_id", "name"],
            "description": "the player who invited this one (their name as it reads now), "
            "kept once they have joined; null when no player invited them (an operator's "
            "game, a rematch asked by a seat no player holds) or they were not invited",
        },
    )
    rematch_of = fields.UUID(
        allow_none=True,
        metadata={"description": "an invitation to a rematch: the finished game it plays again"},
    )


@always_present
class InboxSchema(ma.Schema):
    games = fields.List(fields.Nested(InboxEntrySchema))
    next_cursor = fields.String(allow_none=True)


@always_present
class TokenSchema(ma.Schema):
    id = fields.UUID()
    created_at = fields.DateTime()
    last_used_at = fields.DateTime(
        allow_none=True, metadata={"description": "when it was last used, to the minute"}
    )
    via = fields.String(
        metadata={
            "enum": ["created", "oidc", "link"],
            "description": "made with the player, by a sign-in, or by a link code",
        }
    )
    current = fields.Boolean(metadata={"description": "the token this request was sent with"})


@always_present
class TokenListSchema(ma.Schema):
    tokens = fields.List(fields.Nested(TokenSchema))
    next_cursor = fields.String(allow_none=True)


@always_present
class LinkCodeSchema(ma.Schema):
    code = fields.String(
        metadata={"description": "10 characters of Crockford's base32 (50 bits), as XXXXX-XXXXX"}
    )
    expires_at = fields.DateTime()


class SuspendSchema(ma.Schema):
    reason = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=500), _printable],
        metadata={"pattern": NAME_PATTERN, "description": "why: kept in the player's audit"},
    )


@always_present
class SuspensionSchema(PlayerSchema):
    suspended = fields.Boolean()


class PlayerAuditQuerySchema(TokensQuerySchema):
    pass


@always_present
class PlayerAuditActorSchema(ma.Schema):
    kind = fields.String(metadata={"description": "operator or player"})
    id = fields.String(
        allow_none=True, metadata={"description": "the operator token's name, the player's id"}
    )


@always_present
class PlayerAuditEntrySchema(ma.Schema):
    at = fields.DateTime()
    action = fields.String(
        metadata={
            "enum": [
                "suspended",
                "unsuspended",
                "renamed",
                "token_revoked",
                "report_dismissed",
                "warned",
                "muted",
            ]
        }
    )
    actor = fields.Nested(PlayerAuditActorSchema)
    reason = fields.String(allow_none=True)
    request_id = fields.String(allow_none=True)


@always_present
class PlayerAuditSchema(ma.Schema):
    player_id = fields.UUID()
    entries = fields.List(fields.Nested(PlayerAuditEntrySchema))
    next_cursor = fields.String(allow_none=True)


@always_present
class UnbanSchema(PlayerSchema):
    lifted = fields.Boolean(metadata={"description": "a ban was running, and is lifted"})
    banned_until = fields.DateTime(allow_none=True, metadata={"description": "null: not banned"})
