"""A game's events: a seat's redacted feed, and the operators' audit."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from apispec import APISpec
from marshmallow import fields, validate

from service.application.ports import ActorKind
from service.web.fields import MAX_INT32, _enum, always_present
from service.web.games.event_schemas import DATA_SCHEMAS


class FeedQuerySchema(ma.Schema):
    after = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_INT32))
    limit = fields.Integer(load_default=100, validate=validate.Range(min=1, max=1000))


class EventsQuerySchema(FeedQuerySchema):
    wait = fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=60),
        metadata={
            "description": "long-poll: with no event after `after` yet, hold the request "
            "until one commits (answered at once) or this many seconds pass (no events)"
        },
    )


@always_present
class ActorSchema(ma.Schema):
    kind = _enum(ActorKind)
    seat = fields.Integer(allow_none=True)


@always_present
class FeedEventSchema(ma.Schema):
    seq = fields.Integer()
    type = fields.String()
    data = fields.Dict()
    recorded_at = fields.DateTime()
    actor = fields.Nested(ActorSchema)


def _typed(event_type: str, data: type[ma.Schema]) -> type[ma.Schema]:
    typed = {"type": fields.String(metadata={"enum": [event_type]}), "data": fields.Nested(data)}
    return always_present(FeedEventSchema.from_dict(typed, name=f"{event_type}FeedEventSchema"))


TYPED_FEED_EVENTS = {t: _typed(t, data) for t, data in DATA_SCHEMAS.items()}
"""An event of each type as a feed gives it (its ``type`` and the schema of its ``data``)."""


def document_event_types(spec: APISpec) -> None:
    """Make the contract's FeedEvent one schema per event type, chosen by ``type``
    (registered after the routes, which name FeedEvent; feeds send what they did)."""
    mapping = {}
    for event_type, schema in TYPED_FEED_EVENTS.items():
        name = f"{event_type}FeedEvent"
        spec.components.schema(name, schema=schema)
        mapping[event_type] = f"#/components/schemas/{name}"
    one_of: dict[str, Any] = {
        "oneOf": [{"$ref": ref} for ref in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    feed_event = spec.components.schemas["FeedEvent"]
    feed_event.clear()
    feed_event.update(one_of)


@always_present
class FeedSchema(ma.Schema):
    game_id = fields.UUID()
    version = fields.Integer()
    events = fields.List(fields.Nested(FeedEventSchema))
    next_after = fields.Integer(
        allow_none=True, metadata={"description": "`after` for the next page; null at the end"}
    )


@always_present
class AuditActorSchema(ActorSchema):
    id = fields.String(
        allow_none=True,
        metadata={
            "description": "who exactly: the operator token's name (`operator`), the "
            "player's id (`player`), for a seat token of another game `<game id>/<seat>`, "
            "`timeout` for what a turn clock did at its deadline (`system`: the timeout, "
            "the late seats' moves, a forfeit's end); null otherwise, and on events stored "
            "before the audit recorded it"
        },
    )


@always_present
class AuditEventSchema(FeedEventSchema):
    actor = fields.Nested(AuditActorSchema)
    schema_version = fields.Integer()
    request_id = fields.String(
        allow_none=True,
        metadata={
            "description": "the id the server gave the request (its `X-Request-Id`); on "
            "events stored before migration 0009, the client's `X-Request-ID` if it sent one"
        },
    )
    client_request_id = fields.String(
        allow_none=True,
        metadata={
            "description": "the `X-Request-ID` the client sent, if any; null once its player "
            "was erased or after YOKAI_AUDIT_ADDRESS_DAYS (docs/privacy.md)"
        },
    )
    client_address = fields.String(
        allow_none=True,
        metadata={
            "description": "the client's address (after YOKAI_TRUSTED_PROXIES); null once "
            "its player was erased or after YOKAI_AUDIT_ADDRESS_DAYS (docs/privacy.md)"
        },
    )
    idempotency_key = fields.String(
        allow_none=True, metadata={"description": "SHA-256 (hex) of the Idempotency-Key header"}
    )
    prev_hash = fields.String()
    hash = fields.String(
        metadata={
            "description": "HMAC-SHA256 (hex) under the chain key `chain_key` of the previous "
            "hash and the event; plain SHA-256 when `chain_key` is null (events stored "
            "before the chain was keyed)"
        }
    )
    chain_key = fields.String(
        allow_none=True,
        metadata={"description": "id of the chain key `hash` is an HMAC under (null: unkeyed)"},
    )


@always_present
class AuditSchema(ma.Schema):
    game_id = fields.UUID()
    version = fields.Integer()
    events = fields.List(fields.Nested(AuditEventSchema))
    next_after = fields.Integer(allow_none=True)
