"""Request and response schemas (marshmallow). They are also the OpenAPI document."""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.application.ports import ActorKind
from service.rules import (
    CLIENT_SEED_MAX,
    MAX_TURN_SECONDS,
    SEVEN_FOLLOWERS_DECK,
    SHUFFLE_ALGORITHM,
    Action,
    BotLevel,
    OnTimeout,
    Phase,
    RoundEndReason,
    Scoring,
    Variant,
)

MAX_INT32 = 2**31 - 1
MAX_SEED = 2**63 - 1
# What views show as a game's status: `new` and `dealing` never leave a command.
STATUSES = [p.value for p in Phase if p not in (Phase.NEW, Phase.DEALING, Phase.EXPIRED)]


def _values(kind: type[Enum], *extra: object) -> dict[str, list[object]]:
    """OpenAPI metadata for a response field that holds an enum's values (views carry
    plain strings, so the field stays a String)."""
    return {"enum": [m.value for m in kind] + list(extra)}


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

# What a name may not hold: control characters (C0, DEL, C1), format characters (soft
# hyphen, bidirectional and zero-width controls, tags...), separators other than the
# space, private-use characters and noncharacters (the code points of Unicode 14 in those
# categories). Written out, so the contract's pattern and the service's check are the
# same text whatever Unicode version a validator knows; code points unassigned in Unicode
# 14 pass, and lone surrogates (which JSON Schema never sees) are refused besides.
_NOT_IN_NAMES = (
    (0x0, 0x1F), (0x7F, 0xA0), (0xAD, 0xAD), (0x600, 0x605), (0x61C, 0x61C),
    (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2), (0x1680, 0x1680),
    (0x180E, 0x180E), (0x2000, 0x200F), (0x2028, 0x202F), (0x205F, 0x2064),
    (0x2066, 0x206F), (0x3000, 0x3000), (0xE000, 0xF8FF), (0xFDD0, 0xFDEF),
    (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0xFFFE, 0xFFFF), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    *((plane + 0xFFFE, plane + 0xFFFF) for plane in range(0x10000, 0xE0000, 0x10000)),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F), (0xEFFFE, 0x10FFFF),
)  # fmt: skip


def _class_char(code: int) -> str:
    # `\uXXXX` reads the same in ECMA-262, Python and Rust; a character beyond the BMP
    # stands for itself (every engine that reads code points agrees on it).
    return f"\\u{code:04X}" if code <= 0xFFFF else chr(code)


_EXCLUDED = "".join(
    _class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}"
    for lo, hi in _NOT_IN_NAMES
)
NAME_PATTERN = f"^[^{_EXCLUDED}]*[^ {_EXCLUDED}][^{_EXCLUDED}]*$"
"""1 or more characters, none of the above, not only spaces."""
_NAME = re.compile(NAME_PATTERN)


# Cursors are base64url without padding (service/application/games/paging.py and
# queries/players.py); only those the server gave name a place in a listing (422
# `invalid_cursor` otherwise).
CURSOR_PATTERN = "^[A-Za-z0-9_-]+$"


def _printable(value: str) -> None:
    if not _NAME.fullmatch(value) or any("\ud800" <= ch <= "\udfff" for ch in value):
        raise ma.ValidationError("must be printable text, not blank")


# --- request headers and path parameters ----------------------------------------------


def _header(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "in": "header",
        "name": name,
        "required": False,
        "schema": {"type": "string", **schema},
        "description": description,
    }


IDEMPOTENCY_KEY_PATTERN = "^[!-~]{1,255}$"  # service/web/http.py: _VISIBLE_ASCII
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
_VERSION_TAG = '"[0-9]{1,10}"'
IF_MATCH = _header(
    "If-Match",
    {"pattern": f"^(?:\\*|{_VERSION_TAG}(?: *, *{_VERSION_TAG})*)$"},
    'act only if the game is at one of these versions: `"<version>"`, a list of them, or '
    "`*`; anything else (a weak tag too) matches no version: 412 `stale_version`",
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


# --- requests -------------------------------------------------------------------------


# A deal uses every card of the game's deck once: three hands of 16 and a trump card,
# four of 12 and a trump, or (Seven Followers) four of 14 and no trump (R-3.1, R-7.2).
HAND_SIZES = (12, 16)
MAX_DEALS = 40
"""The most deals a game may be created with: the largest body the contract allows,
even pretty-printed, stays under the body limit (413), tests/e2e/test_contract.py."""


class DealSchema(ma.Schema):
    hands = fields.List(
        fields.List(
            _card(),
            metadata={
                "minItems": HAND_SIZES[0],
                "maxItems": HAND_SIZES[1],
                "uniqueItems": True,
                "description": "16 cards (three players), 12 (four), 14 (Seven Followers)",
            },
        ),
        required=True,
        validate=validate.Length(min=3, max=4),
        metadata={
            "description": "card ids of seat 0, seat 1, …: one hand per seat; with the "
            "trump, every card of the game's deck exactly once (422 `invalid_deal`)"
        },
    )
    trump = _card(
        required=True,
        allow_none=True,
        metadata={"description": "the trump card; null in Seven Followers"},
    )


class ClockSchema(ma.Schema):
    turn_seconds = JsonInteger(
        required=True,
        validate=validate.Range(min=1, max=MAX_TURN_SECONDS),
        metadata={"description": "how long each seat has to act (up to two weeks)"},
    )
    on_timeout = _enum(
        OnTimeout,
        load_default=OnTimeout.AUTOPLAY,
        metadata={
            "description": "`autoplay`: the seat's move is made as the basic bot would; "
            "`forfeit`: the seat's side loses the game",
        },
    )


class BotSeatSchema(ma.Schema):
    seat = JsonInteger(required=True, validate=validate.Range(min=0, max=3))
    level = _enum(BotLevel, required=True)


class BotLevelSchema(ma.Schema):
    level = _enum(BotLevel, load_default=BotLevel.BASIC)


class CreateGameSchema(ma.Schema):
    players = JsonInteger(required=True, validate=validate.OneOf([3, 4]))
    scoring = _enum(Scoring, load_default=Scoring.BASIC)
    variant = _enum(Variant, load_default=Variant.STANDARD)
    seed = JsonInteger(
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={"description": "operators only: deterministic shuffles"},
    )
    deals = fields.List(
        fields.Nested(DealSchema),
        validate=validate.Length(min=1, max=MAX_DEALS),
        metadata={"description": "operators only: the deals of the first rounds"},
    )
    clock = fields.Nested(ClockSchema, metadata={"description": "a turn clock (default: none)"})
    bots = fields.List(
        fields.Nested(BotSeatSchema),
        validate=validate.Length(max=4),
        metadata={"description": "seats taken by bots at creation"},
    )


class JoinSchema(ma.Schema):
    name = fields.String(
        validate=[validate.Length(min=1, max=40), _printable],
        metadata={
            "pattern": NAME_PATTERN,
            "description": "printable characters, not only spaces. Required (422 "
            "`name_required`), unless a player joins: then the player's name",
        },
    )
    client_seed = fields.String(
        validate=[
            validate.Length(min=1, max=CLIENT_SEED_MAX),
            validate.Regexp(CLIENT_SEED_PATTERN, error="must be printable ASCII"),
        ],
        metadata={
            "pattern": CLIENT_SEED_PATTERN,
            "description": "provably fair games: this seat's part of every deal "
            "(docs/fairness.md); drawn by the server when not given",
        },
    )


class PlayerCreateSchema(ma.Schema):
    name = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=40), _printable],
        metadata={"pattern": NAME_PATTERN, "description": "printable, not only spaces"},
    )


class InboxQuerySchema(ma.Schema):
    status = fields.String(
        load_default="active", validate=validate.OneOf(["active", "finished", "all"])
    )
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
            "until the inbox changes (200) or this many seconds pass (304)"
        },
    )


class PassSchema(ma.Schema):
    # Any other count, or a card twice, is 422 `invalid_pass` from the rules (R-3.2).
    cards = fields.List(
        _card(),
        required=True,
        validate=validate.Length(max=64),
        metadata={
            "minItems": 3,
            "maxItems": 3,
            "uniqueItems": True,
            "description": "three different card ids; in Seven Followers in target order: "
            "for seat+1, seat+2, seat+3",
        },
    )


class PlaySchema(ma.Schema):
    card = _card(required=True)


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


class StreamQuerySchema(ma.Schema):
    after = fields.Integer(
        validate=validate.Range(min=0, max=MAX_INT32),
        metadata={
            "description": "resume: start with every event after this `seq` (as "
            "`Last-Event-ID` does; the header wins when both are given)"
        },
    )


class ExportQuerySchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(STATUSES), metadata={"enum": STATUSES})
    since = fields.AwareDateTime(
        format="iso",
        metadata={"description": "games that changed at or after this time (RFC 3339)"},
    )


class ImportSchema(ma.Schema):
    record = fields.String(required=True, metadata={"description": "the record's text"})


class GamesQuerySchema(ma.Schema):
    status = fields.String(validate=validate.OneOf(STATUSES))
    cursor = fields.String(
        validate=validate.Length(min=1, max=200),
        metadata={"pattern": CURSOR_PATTERN, "description": "`next_cursor` of the page before"},
    )
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))


class StateQuerySchema(ma.Schema):
    at = fields.Integer(
        validate=validate.Range(min=1, max=MAX_INT32),
        metadata={"description": "rebuild from events 1..at (default: all)"},
    )


# --- responses ------------------------------------------------------------------------


class SeatSummarySchema(ma.Schema):
    seat = fields.Integer()
    name = fields.String(allow_none=True)
    team = fields.Integer(allow_none=True)
    joined = fields.Boolean()
    passed = fields.Boolean()
    hand_size = fields.Integer()
    tricks_won = fields.Integer()
    bosses = fields.List(fields.String(), metadata={"description": "captured this round"})
    bot = _nullable_enum("Bot", description="a bot plays it")
    deadline = fields.String(
        allow_none=True,
        metadata={
            "format": "date-time",
            "description": "by when the seat must act (turn clocks; null when it need not)",
        },
    )


class ClockViewSchema(ma.Schema):
    turn_seconds = fields.Integer()
    on_timeout = fields.String(metadata=_values(OnTimeout))


class FairnessSchema(ma.Schema):
    algorithm = fields.String(
        metadata={
            "enum": [SHUFFLE_ALGORITHM, "operator", "unverified"],
            "description": f"`{SHUFFLE_ALGORITHM}`: provably fair (docs/fairness.md); "
            "`operator`: dealt from an operator's seed or deals; `unverified`: created "
            "before deals were committed to",
        },
    )
    commitment = fields.String(
        allow_none=True,
        metadata={"pattern": "^[0-9a-f]{64}$", "description": "SHA-256 of the server seed"},
    )
    client_seeds = fields.List(
        fields.String(allow_none=True),
        allow_none=True,
        metadata={"description": "one per seat, null until the seat is joined"},
    )
    server_seed = fields.String(
        allow_none=True,
        metadata={
            "pattern": "^[0-9a-f]{64}$",
            "description": "revealed (hex) when the game is finished; null until then",
        },
    )


class PlayedCardSchema(ma.Schema):
    seat = fields.Integer()
    card = fields.String()


class TrickSchema(ma.Schema):
    number = fields.Integer()
    cards = fields.List(fields.Nested(PlayedCardSchema))
    winner = fields.Integer()


class RoundSchema(ma.Schema):
    number = fields.Integer()
    trump = fields.String(allow_none=True)
    trump_suit = fields.String(allow_none=True)
    leader = fields.Integer(allow_none=True, metadata={"description": "leads this trick"})
    turn = fields.Integer(allow_none=True, metadata={"description": "must play now"})
    trick = fields.List(fields.Nested(PlayedCardSchema))
    tricks_played = fields.Integer()
    last_trick = fields.Nested(TrickSchema, allow_none=True)


class RoundResultSchema(ma.Schema):
    number = fields.Integer()
    trump = fields.String(allow_none=True)
    trump_suit = fields.String(allow_none=True)
    reason = fields.String(metadata=_values(RoundEndReason))
    winners = fields.List(fields.Integer())
    points = fields.List(fields.Integer())
    bosses_scored = fields.List(fields.String())


class GameViewSchema(ma.Schema):
    id = fields.UUID()
    version = fields.Integer(metadata={"description": "seq of the game's last event"})
    players = fields.Integer()
    scoring = fields.String()
    variant = fields.String()
    status = fields.String(metadata={"enum": STATUSES})
    seats = fields.List(fields.Nested(SeatSummarySchema))
    round = fields.Nested(RoundSchema, allow_none=True)
    scores = fields.List(fields.Integer())
    rounds = fields.List(fields.Nested(RoundResultSchema))
    winner = fields.List(fields.Integer(), allow_none=True)
    seals = fields.List(
        fields.List(fields.String()),
        allow_none=True,
        metadata={"description": "Seven Followers: suits sealed by team 0 and team 1"},
    )
    clock = fields.Nested(ClockViewSchema, allow_none=True)
    fairness = fields.Nested(FairnessSchema)
    expired = fields.Boolean(
        metadata={
            "description": "the game waited for players too long and the service ended it "
            "(status `finished`, no round, no winner)"
        }
    )


class RecordSeatSchema(ma.Schema):
    name = fields.String(allow_none=True)
    bot = fields.String(allow_none=True)
    client_seed = fields.String(allow_none=True)


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


class RecordResultSchema(ma.Schema):
    reason = fields.String(metadata=_values(RoundEndReason))
    winners = fields.List(fields.Integer())
    points = fields.List(fields.Integer())
    bosses = fields.List(fields.String())


class RecordRoundSchema(ma.Schema):
    number = fields.Integer()
    hands = fields.List(
        fields.List(fields.String()), metadata={"description": "by seat; null: hidden"}
    )
    trump = fields.String(allow_none=True)
    moves = fields.List(fields.Nested(RecordMoveSchema))
    tricks = fields.List(fields.Integer(), metadata={"description": "each trick's winner"})
    result = fields.Nested(RecordResultSchema, allow_none=True)


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


class PassViewSchema(ma.Schema):
    given = fields.List(fields.String())
    received = fields.List(
        fields.String(allow_none=True), metadata={"description": "null until the exchange"}
    )
    to = fields.List(fields.Integer(), metadata={"description": "seat of each given card"})


class SeatViewSchema(GameViewSchema):
    seat = fields.Integer()
    hand = fields.List(fields.String())
    action = _nullable_enum("Action")
    legal = fields.List(fields.String(), metadata={"description": "may pass or play now"})
    pass_ = fields.Nested(PassViewSchema, data_key="pass", allow_none=True)


class DealViewSchema(ma.Schema):
    hands = fields.List(fields.List(fields.String()))
    trump = fields.String(allow_none=True)


class OperatorStateSchema(GameViewSchema):
    status = fields.String(
        metadata={
            "enum": [*STATUSES, Phase.DEALING.value],
            "description": "`dealing`: between a round's end and the next deal (only in a "
            "state rebuilt at an earlier event)",
        }
    )
    hands = fields.List(fields.List(fields.String()))
    passes = fields.List(fields.Nested(PassViewSchema, allow_none=True))
    lead_holder = fields.Integer(allow_none=True)
    seed = fields.Integer(allow_none=True)
    deals = fields.List(fields.Nested(DealViewSchema), allow_none=True)


class JoinedSchema(ma.Schema):
    game_id = fields.UUID()
    version = fields.Integer()
    seat = fields.Integer()
    token = fields.String(metadata={"description": "the seat's secret; shown only here"})


class ActorSchema(ma.Schema):
    kind = _enum(ActorKind)
    seat = fields.Integer(allow_none=True)


class FeedEventSchema(ma.Schema):
    seq = fields.Integer()
    type = fields.String()
    data = fields.Dict()
    recorded_at = fields.DateTime()
    actor = fields.Nested(ActorSchema)


class FeedSchema(ma.Schema):
    game_id = fields.UUID()
    version = fields.Integer()
    events = fields.List(fields.Nested(FeedEventSchema))
    next_after = fields.Integer(
        allow_none=True, metadata={"description": "`after` for the next page; null at the end"}
    )


class AuditActorSchema(ActorSchema):
    id = fields.String(
        allow_none=True,
        metadata={
            "description": "who exactly: the operator token's name (`operator`), the "
            "player's id (`player`), for a seat token of another game `<game id>/<seat>`; "
            "null otherwise, and on events stored before the audit recorded it"
        },
    )


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
        allow_none=True, metadata={"description": "the `X-Request-ID` the client sent, if any"}
    )
    client_address = fields.String(
        allow_none=True,
        metadata={"description": "the client's address (after YOKAI_TRUSTED_PROXIES)"},
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


class AuditSchema(ma.Schema):
    game_id = fields.UUID()
    version = fields.Integer()
    events = fields.List(fields.Nested(AuditEventSchema))
    next_after = fields.Integer(allow_none=True)


class VerifySchema(ma.Schema):
    intact = fields.Boolean(
        metadata={"description": "the hash chain holds and every event replays under the rules"}
    )
    events = fields.Integer(metadata={"description": "events stored for the game"})
    first_bad_seq = fields.Integer(
        allow_none=True, metadata={"description": "the first event that fails; null if intact"}
    )
    reason = fields.String(allow_none=True, metadata={"description": "why it fails"})


class GameSummarySchema(ma.Schema):
    id = fields.UUID()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
    players = fields.Integer()
    scoring = fields.String()
    variant = fields.String()
    status = fields.String()
    version = fields.Integer()


class GameListSchema(ma.Schema):
    games = fields.List(fields.Nested(GameSummarySchema))
    next_cursor = fields.String(allow_none=True)


class PlayerSchema(ma.Schema):
    id = fields.UUID()
    name = fields.String()


class PlayerCreatedSchema(PlayerSchema):
    token = fields.String(metadata={"description": "the player's secret; shown only here"})


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
    due_since = fields.DateTime(
        allow_none=True, metadata={"description": "since when the seat must act"}
    )
    deadline = fields.DateTime(
        allow_none=True, metadata={"description": "by when the seat must act (turn clocks)"}
    )
    updated_at = fields.DateTime()


class InboxSchema(ma.Schema):
    games = fields.List(fields.Nested(InboxEntrySchema))
    next_cursor = fields.String(allow_none=True)


WEBHOOK_EVENTS = ["turn", "game_started", "round_finished", "game_finished"]


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


class WebhookCreatedSchema(WebhookSchema):
    secret = fields.String(
        metadata={"description": "`whsec_` + base64: the signing secret, shown only here"}
    )


class WebhookListSchema(ma.Schema):
    webhooks = fields.List(fields.Nested(WebhookSchema))


class WebhookAttemptSchema(ma.Schema):
    message_id = fields.String(metadata={"description": "the `webhook-id` header"})
    event_type = fields.String()
    attempted_at = fields.DateTime()
    status = fields.Integer(allow_none=True, metadata={"description": "the receiver's answer"})
    error = fields.String(allow_none=True)
    next_attempt_at = fields.DateTime(
        allow_none=True, metadata={"description": "null: delivered, or given up"}
    )


class WebhookAttemptsSchema(ma.Schema):
    deliveries = fields.List(fields.Nested(WebhookAttemptSchema))


class WebhookAttemptsQuerySchema(ma.Schema):
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=500))


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details."""

    type = fields.String()
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String(metadata={"description": "stable machine-readable code"})
    errors = fields.Dict(metadata={"description": "field errors (422 on invalid content)"})
    request_id = fields.String()


class HealthSchema(ma.Schema):
    status = fields.String()
    detail = fields.String()


# Every field of a response is always there (null when it has no value), so the contract
# says so: clients generated from it get required fields, not optional ones.
_ALWAYS_PRESENT: tuple[type[ma.Schema], ...] = (
    SeatSummarySchema,
    ClockViewSchema,
    FairnessSchema,
    RecordSeatSchema,
    RecordFairnessSchema,
    RecordResultSchema,
    RecordRoundSchema,
    HandRecordSchema,
    PlayedCardSchema,
    TrickSchema,
    RoundSchema,
    RoundResultSchema,
    GameViewSchema,
    PassViewSchema,
    SeatViewSchema,
    DealViewSchema,
    OperatorStateSchema,
    JoinedSchema,
    ActorSchema,
    AuditActorSchema,
    FeedEventSchema,
    FeedSchema,
    AuditEventSchema,
    AuditSchema,
    VerifySchema,
    GameSummarySchema,
    GameListSchema,
    PlayerSchema,
    PlayerCreatedSchema,
    InboxEntrySchema,
    InboxSchema,
    WebhookSchema,
    WebhookCreatedSchema,
    WebhookListSchema,
    WebhookAttemptSchema,
    WebhookAttemptsSchema,
)
for _schema in _ALWAYS_PRESENT:
    for _field in _schema._declared_fields.values():
        _field.required = True
RecordMoveSchema._declared_fields["type"].required = True
for _name in ("type", "title", "status", "detail", "code", "request_id"):
    ProblemSchema._declared_fields[_name].required = True
for _name in ("status", "detail"):
    HealthSchema._declared_fields[_name].required = True
