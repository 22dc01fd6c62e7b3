"""Table talk's shapes (docs/api.md "Table talk")."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.application.chat.ports import CHANNELS
from service.application.chat.texts import LONGEST
from service.web.fields import always_present


class ChatPostSchema(ma.Schema):
    """A text or a preset's id: exactly one."""

    text = fields.String(
        metadata={
            "description": f"1-{LONGEST} characters once trimmed, NFC, no control characters"
            " (else 422 `invalid_text`)"
        },
    )
    preset = fields.String(
        metadata={"description": "a preset's id: GET /v1/chat/presets (else 422 `unknown_preset`)"}
    )


class ChatQuerySchema(ma.Schema):
    after = fields.Integer(
        validate=validate.Range(min=0),
        metadata={"description": "a message id: the messages after it (`next_after`)"},
    )
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


@always_present
class ChatAuthorSchema(ma.Schema):
    seat = fields.Integer(allow_none=True, metadata={"description": "null on spectators"})
    name = fields.String(metadata={"description": '"erased player" once the author is erased'})
    player_id = fields.UUID(allow_none=True, metadata={"description": "null: a seat's token"})


@always_present
class ChatMessageSchema(ma.Schema):
    id = fields.Integer()
    at = fields.DateTime()
    channel = fields.String(validate=validate.OneOf(CHANNELS))
    from_ = fields.Nested(ChatAuthorSchema, data_key="from", attribute="from")
    text = fields.String(
        allow_none=True, metadata={"description": '"[erased]" once its author is erased'}
    )
    preset = fields.String(allow_none=True)


@always_present
class ChatPageSchema(ma.Schema):
    messages = fields.List(fields.Nested(ChatMessageSchema))
    next_after = fields.Integer(
        allow_none=True,
        metadata={"description": "the last message's id (kept for polling; null: none yet)"},
    )


@always_present
class PresetTextSchema(ma.Schema):
    en = fields.String()
    fr = fields.String()
    de = fields.String()
    zh = fields.String()


@always_present
class PresetSchema(ma.Schema):
    id = fields.String()
    text = fields.Nested(PresetTextSchema)


@always_present
class PresetListSchema(ma.Schema):
    presets = fields.List(fields.Nested(PresetSchema))
