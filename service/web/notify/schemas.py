"""Turn notifications: the server's push key, push subscriptions, a player's choices."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.application.notify.ports import DIGESTS
from service.web.fields import JsonBoolean, JsonInteger, always_present


@always_present
class PushKeySchema(ma.Schema):
    public_key = fields.String(
        metadata={
            "description": "The server's VAPID key (RFC 8292): a P-256 point, uncompressed, "
            "in base64url, as PushManager.subscribe's applicationServerKey takes it"
        }
    )


class SubscriptionKeysSchema(ma.Schema):
    p256dh = fields.String(required=True, validate=validate.Length(min=1, max=200))
    auth = fields.String(required=True, validate=validate.Length(min=1, max=100))


class SubscribeSchema(ma.Schema):
    """A browser's PushSubscription as `JSON.stringify` gives it."""

    endpoint = fields.String(
        required=True,
        validate=validate.Length(min=1, max=2048),
        metadata={"description": "https; http on loopback when YOKAI_PUSH_ALLOW_HTTP=1"},
    )
    keys = fields.Nested(SubscriptionKeysSchema, required=True)
    expirationTime = JsonInteger(
        allow_none=True,
        load_default=None,
        validate=validate.Range(min=0, max=253402300799999),  # up to the year 9999
        metadata={"description": "milliseconds since the epoch, or null"},
    )


@always_present
class SubscriptionSchema(ma.Schema):
    id = fields.UUID()
    endpoint = fields.String()
    created_at = fields.DateTime()


@always_present
class SubscriptionListSchema(ma.Schema):
    subscriptions = fields.List(fields.Nested(SubscriptionSchema))
    next_cursor = fields.String(
        allow_none=True,
        metadata={"description": "always null: a player's subscriptions fit one page"},
    )


@always_present
class EmailStateSchema(ma.Schema):
    address = fields.String()
    verified = fields.Boolean()


@always_present
class NotificationsSchema(ma.Schema):
    push = fields.Boolean(metadata={"description": "false: no push at all"})
    mail = fields.Boolean(metadata={"description": "false: no mail at all"})
    email = fields.Nested(EmailStateSchema, allow_none=True)
    digest = fields.String(metadata={"enum": list(DIGESTS)})
    reminder_minutes = fields.Integer(
        allow_none=True,
        metadata={"description": "remind when a turn clock has this many minutes left"},
    )


class NotificationsPatchSchema(ma.Schema):
    push = JsonBoolean()
    mail = JsonBoolean()
    digest = fields.String(validate=validate.OneOf(DIGESTS))
    reminder_minutes = JsonInteger(allow_none=True, validate=validate.Range(min=1, max=1440))


class EmailSchema(ma.Schema):
    address = fields.String(required=True, validate=validate.Length(min=3, max=254))


class EmailCodeSchema(ma.Schema):
    code = fields.String(required=True, validate=validate.Length(min=1, max=16))


class UnsubscribeQuerySchema(ma.Schema):
    token = fields.String(required=True, validate=validate.Length(min=1, max=200))


@always_present
class UnsubscribedSchema(ma.Schema):
    mail = fields.Boolean(metadata={"description": "false: no more mail to this player"})
