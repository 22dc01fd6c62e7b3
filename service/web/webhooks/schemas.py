"""Webhook endpoints and their deliveries' log."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.application.webhooks.events import EVENT_TYPES
from service.web.fields import always_present

WEBHOOK_EVENTS = list(EVENT_TYPES)


class WebhookCreateSchema(ma.Schema):
    url = fields.String(
        required=True,
        validate=validate.Length(min=8, max=2000),
        metadata={"description": "http or https; not a private, loopback or link-local host"},
    )
    events = fields.List(
        # Checked by the application, so an unknown type is refused with its own code
        # (422 ``unknown_event``); the spec lists the types.
        fields.String(validate=validate.Length(max=64), metadata={"enum": WEBHOOK_EVENTS}),
        required=True,
        validate=validate.Length(min=1, max=len(WEBHOOK_EVENTS)),
    )


@always_present
class WebhookSchema(ma.Schema):
    id = fields.UUID()
    url = fields.String()
    events = fields.List(fields.String(metadata={"enum": WEBHOOK_EVENTS}))
    created_at = fields.DateTime()
    enabled = fields.Boolean()
    failing_since = fields.DateTime(
        allow_none=True, metadata={"description": "every attempt has failed since then"}
    )
    disabled_at = fields.DateTime(allow_none=True)
    disabled_reason = fields.String(allow_none=True)


@always_present
class WebhookCreatedSchema(WebhookSchema):
    secret = fields.String(
        metadata={"description": "`whsec_` + base64: the signing secret, shown only here"}
    )


@always_present
class WebhookListSchema(ma.Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema))


@always_present
class WebhookAttemptSchema(ma.Schema):
    message_id = fields.String(metadata={"description": "the `webhook-id` header"})
    event_type = fields.String()
    attempted_at = fields.DateTime()
    status = fields.Integer(allow_none=True, metadata={"description": "the receiver's answer"})
    error = fields.String(allow_none=True)
    next_attempt_at = fields.DateTime(
        allow_none=True, metadata={"description": "null: delivered, or given up"}
    )


@always_present
class WebhookAttemptsSchema(ma.Schema):
    deliveries = fields.List(fields.Nested(WebhookAttemptSchema))


class WebhookAttemptsQuerySchema(ma.Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))
