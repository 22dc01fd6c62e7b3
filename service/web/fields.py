"""What the resources' schemas share: field kinds (JSON integers, card ids, enums), the
patterns of names and cursors, the headers of the contract, and the problem document.
Schemas are also the OpenAPI document."""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

import marshmallow as ma
from marshmallow import fields, validate

from service.application.identity.names import printable_name
from service.rules import (
    CLIENT_SEED_MAX,
    PUBLIC_STATUSES,
    SEVEN_FOLLOWERS_DECK,
    Action,
    BotLevel,
)
from service.web.conditional import IF_MATCH_PATTERN

MAX_INT32 = 2**31 - 1


MAX_SEED = 2**63 - 1


# What views show as a game's status: `new` and `dealing` never leave a command.
STATUSES = list(PUBLIC_STATUSES)


def _values(kind: type[Enum], *extra: object) -> dict[str, list[object]]:
    """OpenAPI metadata for a response field that holds an enum's values (views carry
    plain strings, so the field stays a String)."""
    return {"enum": [m.value for m in kind] + list(extra)}


S = TypeVar("S", bound=type[ma.Schema])


def always_present(schema: S) -> S:
    """A response schema whose every field is always there (null when it has no value):
    the contract says so, and clients generated from it get required fields, not
    optional ones."""
    for field in schema._declared_fields.values():
        field.required = True
    return schema


class JsonInteger(fields.Integer):
    """An integer as JSON (and JSON Schema's `integer`) has it: a number without a
    fraction, `4` or `4.0`; never a string, a boolean or `4.5`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(strict=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        number: int = super()._deserialize(value, attr, data, **kwargs)
        return number


class JsonBoolean(fields.Boolean):
    """A boolean as JSON has it: ``true`` or ``false``, never a string or a number."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class JsonNumber(fields.Float):
    """A finite number as JSON has it (integer or not); never a string or a boolean."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_nan=False, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid", input=value)
        number: float = super()._deserialize(value, attr, data, **kwargs)
        return number


# Enums that responses share, as components: a nullable one is `anyOf: [{$ref}, null]`,
# one enum type in generated clients (`type: [string, "null"]` with an `enum` made a
# client generator write three identical classes).
ENUM_COMPONENTS: dict[str, dict[str, Any]] = {
    "Action": {"type": "string", **_values(Action), "description": "what the seat must do"},
    "Bot": {"type": "string", **_values(BotLevel), "description": "the bot that plays a seat"},
}


def _nullable_enum(component: str, **metadata: Any) -> fields.Raw:
    assert component in ENUM_COMPONENTS
    # A Raw field has no type of its own: apispec writes just this anyOf for it.
    ref = {"$ref": f"#/components/schemas/{component}"}
    return fields.Raw(allow_none=True, metadata={"anyOf": [ref, {"type": "null"}], **metadata})


def _card_pattern() -> str:
    """Exactly the card ids of the 56-card deck: `<suit>-<rank>` (R-1.4) and the second
    sevens `<suit>-7b` of Seven Followers (R-7.1). A standard game refuses the `-7b` ones
    (422 `unknown_card`): which deck is in play is the game's, not the request's."""
    ranks: dict[str, list[str]] = {}
    for card in SEVEN_FOLLOWERS_DECK:
        suit, _, rank = card.id.partition("-")
        ranks.setdefault(suit, []).append(rank)
    suits = "|".join(f"{suit}-(?:{'|'.join(r)})" for suit, r in ranks.items())
    return f"^(?:{suits})$"


CARD_PATTERN = _card_pattern()


def _card(**kwargs: Any) -> fields.String:
    # The service refuses any other id with 422 `unknown_card` (not a pattern mismatch),
    # so the pattern is documentation and the engine stays the one judge of card ids.
    metadata = {
        "description": "card id (docs/rules.md R-1.4, R-7.1)",
        "example": "blue-13",
        "pattern": CARD_PATTERN,
        **kwargs.pop("metadata", {}),
    }
    return fields.String(validate=validate.Length(min=1, max=16), metadata=metadata, **kwargs)


def _enum(kind: type[Enum], **kwargs: Any) -> fields.Enum[Any]:
    """A field of an enum's values (apispec leaves out their type)."""
    metadata = {"type": "string", **kwargs.pop("metadata", {})}
    return fields.Enum(kind, by_value=True, metadata=metadata, **kwargs)


CLIENT_SEED_PATTERN = f"^[ -~]{{1,{CLIENT_SEED_MAX}}}$"


# Cursors are base64url without padding (service/application/paging.py and
# games/queries/inbox.py); only those the server gave name a place in a listing (422
# `invalid_cursor` otherwise).
CURSOR_PATTERN = "^[A-Za-z0-9_-]+$"


def _printable(value: str) -> None:
    if not printable_name(value):
        raise ma.ValidationError("must be printable text, not blank")


def _header(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "in": "header",
        "name": name,
        "required": False,
        "schema": {"type": "string", **schema},
        "description": description,
    }


IDEMPOTENCY_KEY_PATTERN = "^[!-~]{1,255}$"  # service/web/request.py: _VISIBLE_ASCII


IDEMPOTENCY_KEY = _header(
    "Idempotency-Key",
    {"minLength": 1, "maxLength": 255, "pattern": IDEMPOTENCY_KEY_PATTERN},
    "1-255 visible ASCII characters (400 `invalid_idempotency_key` otherwise; use a random "
    "UUID). A retry with the same key and body gets the first response (or refusal) and "
    "appends nothing; another body gets 422 `idempotency_key_reused`. Joining a seat or "
    "making a player without a token, the key needs 32 characters or more (400 "
    "`weak_idempotency_key`): it alone keeps the seat's or player's token from another "
    "client behind the same address.",
)


IF_MATCH = _header(
    "If-Match",
    {"pattern": IF_MATCH_PATTERN, "examples": ['"12"', '"11", "12"', "*"]},
    'act only if the game is at one of these versions: `"<version>"`, a list of them, or '
    "`*` (412 `stale_version` otherwise). A tag that is no version, or a weak one (compared "
    "strongly), matches none. A value this pattern refuses, neither `*` nor a list of entity "
    "tags (RFC 9110 13.1.1), is 400 `invalid_if_match`",
)


IF_NONE_MATCH = _header(
    "If-None-Match",
    {"examples": ['"12"', 'W/"12"', "*"]},
    'answer 304 if the game is still at `"<version>"` (weak or strong, a list, or `*`); '
    "a value naming no version is no condition (RFC 9110): the view is sent",
)


IF_NONE_MATCH_INBOX = _header(
    "If-None-Match",
    {"examples": ['"0123456789abcdef0123456789abcdef"', "*"]},
    "the inbox's ETag from an earlier answer: 304 while it is still current (with `wait`, "
    "after waiting for a change); a value naming no ETag is no condition",
)


IF_NONE_MATCH_TAG = _header(
    "If-None-Match",
    {"examples": ['"0123456789abcdef0123456789abcdef"', "*"]},
    "the ETag of an earlier answer: 304 while what it showed is still current; a value "
    "naming no ETag is no condition",
)


LAST_EVENT_ID = _header(
    "Last-Event-ID",
    {"pattern": "^[0-9]{0,10}$"},
    "resume after this seq: every event after it, then the view (empty: as if absent; 422 "
    "`invalid_last_event_id` when it is not a number, `after_out_of_range` when it is "
    "ahead of the game)",
)


SEAT = {
    "in": "path",
    "name": "seat",
    "required": True,
    "schema": {"type": "integer", "minimum": 0, "maximum": 3},
    "description": "0 to 3 (404 `unknown_seat` for a seat the game does not have)",
}


@always_present
class BanSchema(ma.Schema):
    """A running ban: until when, and the abandonment that brought it."""

    until = fields.DateTime()
    reason = fields.String(
        metadata={
            "enum": ["left", "resigned", "forfeited"],
            "description": "how the game was abandoned: left while running, resigned, or "
            "forfeited by a clock",
        }
    )
    at = fields.DateTime(metadata={"description": "when it was abandoned"})
    count = fields.Integer(
        metadata={
            "description": "the rated or quick-play abandonments in the 24 hours up to it "
            "(itself included): the ban lasts 10 minutes x 2^(count-1), at most 48 hours"
        }
    )


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details."""

    type = fields.String(
        metadata={"description": "`/problems/<code>`: the code's page (plain text)"}
    )
    title = fields.String(
        metadata={"description": "the code's own short sentence, for people: a client may show it"}
    )
    status = fields.Integer()
    detail = fields.String(metadata={"description": "what happened this time, for people"})
    code = fields.String(metadata={"description": "stable machine-readable code"})
    errors = fields.Dict(metadata={"description": "field errors (422 on invalid content)"})
    request_id = fields.String()
    banned_until = fields.DateTime(metadata={"description": "`player_banned`: when it ends"})
    ban = fields.Nested(BanSchema, metadata={"description": "`player_banned`: why"})
    muted_until = fields.DateTime(metadata={"description": "`player_muted`: when it ends"})


for _name in ("type", "title", "status", "detail", "code", "request_id"):
    ProblemSchema._declared_fields[_name].required = True
