"""Request and response schemas (marshmallow). They are also the OpenAPI document."""

from __future__ import annotations

from enum import Enum
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.application.ports import ActorKind
from service.rules import (
    CLIENT_SEED_MAX,
    MAX_TURN_SECONDS,
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


def _card(**kwargs: Any) -> fields.String:
    return fields.String(
        validate=validate.Length(min=1, max=16),
        metadata={"description": "card id (RULES.md R-1.4)", "example": "blue-13"},
        **kwargs,
    )


def _enum(kind: type[Enum], **kwargs: Any) -> fields.Enum[Any]:
    """A field of an enum's values (apispec leaves out their type)."""
    metadata = {"type": "string", **kwargs.pop("metadata", {})}
    return fields.Enum(kind, by_value=True, metadata=metadata, **kwargs)


CLIENT_SEED_PATTERN = f"^[ -~]{{1,{CLIENT_SEED_MAX}}}$"


def _printable(value: str) -> None:
    if not value.strip() or any(not ch.isprintable() for ch in value):
        raise ma.ValidationError("must be printable text, not blank")


# --- requests -------------------------------------------------------------------------


class DealSchema(ma.Schema):
    hands = fields.List(
        fields.List(_card()),
        required=True,
        validate=validate.Length(min=3, max=4),
        metadata={"description": "card ids of seat 0, seat 1, …"},
    )
    trump = _card(required=True, allow_none=True)


class ClockSchema(ma.Schema):
    turn_seconds = fields.Integer(
        required=True,
        strict=True,
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
    seat = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=3))
    level = _enum(BotLevel, required=True)


class BotLevelSchema(ma.Schema):
    level = _enum(BotLevel, load_default=BotLevel.BASIC)


class CreateGameSchema(ma.Schema):
    players = fields.Integer(required=True, strict=True, validate=validate.OneOf([3, 4]))
    scoring = _enum(Scoring, load_default=Scoring.BASIC)
    variant = _enum(Variant, load_default=Variant.STANDARD)
    seed = fields.Integer(
        strict=True,
        validate=validate.Range(min=0, max=MAX_SEED),
        metadata={"description": "operators only: deterministic shuffles"},
    )
    deals = fields.List(
        fields.Nested(DealSchema),
        validate=validate.Length(min=1, max=100),
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
        metadata={"description": "required, unless a player joins: then the player's name"},
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
    name = fields.String(required=True, validate=[validate.Length(min=1, max=40), _printable])


class InboxQuerySchema(ma.Schema):
    status = fields.String(
        load_default="active", validate=validate.OneOf(["active", "finished", "all"])
    )
    cursor = fields.String(validate=validate.Length(min=1, max=400))
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
    cards = fields.List(
        _card(),
        required=True,
        validate=validate.Length(max=64),
        metadata={
            "description": "three card ids; in Seven Followers in target order: "
            "for seat+1, seat+2, seat+3"
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
    cursor = fields.String(validate=validate.Length(min=1, max=200))
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
    bot = fields.String(
        allow_none=True, metadata={**_values(BotLevel, None), "description": "a bot plays it"}
    )
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
    action = fields.String(allow_none=True, metadata=_values(Action, None))
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
    action = fields.String(allow_none=True, metadata=_values(Action, None))
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
HealthSchema._declared_fields["status"].required = True
