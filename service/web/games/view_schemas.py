"""A game as each viewer sees it: the public view, a seat's view, the operators' state."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from service.rules import (
    SHUFFLE_ALGORITHM,
    OnTimeout,
    Phase,
    RoundEndReason,
)
from service.web.fields import STATUSES, _nullable_enum, _values, always_present


@always_present
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
    reserved_for = fields.String(
        allow_none=True,
        metadata={"format": "uuid", "description": "the invited player the seat waits for"},
    )
    player_id = fields.String(
        allow_none=True,
        metadata={
            "format": "uuid",
            "description": "the player who joined the seat, where the game records it (a "
            "rated game's seats, a seat kept for an invited player); else null",
        },
    )


@always_present
class ClockViewSchema(ma.Schema):
    turn_seconds = fields.Integer()
    on_timeout = fields.String(metadata=_values(OnTimeout))


@always_present
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


@always_present
class PlayedCardSchema(ma.Schema):
    seat = fields.Integer()
    card = fields.String()


@always_present
class TrickSchema(ma.Schema):
    number = fields.Integer()
    cards = fields.List(fields.Nested(PlayedCardSchema))
    winner = fields.Integer()


@always_present
class RoundSchema(ma.Schema):
    number = fields.Integer()
    trump = fields.String(allow_none=True)
    trump_suit = fields.String(allow_none=True)
    leader = fields.Integer(allow_none=True, metadata={"description": "leads this trick"})
    turn = fields.Integer(allow_none=True, metadata={"description": "must play now"})
    trick = fields.List(fields.Nested(PlayedCardSchema))
    tricks_played = fields.Integer()
    last_trick = fields.Nested(TrickSchema, allow_none=True)


@always_present
class RoundResultSchema(ma.Schema):
    number = fields.Integer()
    trump = fields.String(allow_none=True)
    trump_suit = fields.String(allow_none=True)
    reason = fields.String(metadata=_values(RoundEndReason))
    winners = fields.List(fields.Integer())
    points = fields.List(fields.Integer())
    bosses_scored = fields.List(fields.String())


@always_present
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
    visibility = fields.String(metadata={"enum": ["private", "public"]})
    rated = fields.Boolean(metadata={"description": "the result changes the players' ratings"})
    rematch = fields.UUID(
        allow_none=True,
        metadata={"description": "the game that plays this finished one again, once made"},
    )
    expired = fields.Boolean(
        metadata={
            "description": "the game waited for players too long and the service ended it "
            "(status `finished`, no round, no winner)"
        }
    )


@always_present
class PassViewSchema(ma.Schema):
    given = fields.List(fields.String())
    received = fields.List(
        fields.String(allow_none=True), metadata={"description": "null until the exchange"}
    )
    to = fields.List(fields.Integer(), metadata={"description": "seat of each given card"})


@always_present
class SeatViewSchema(GameViewSchema):
    seat = fields.Integer()
    hand = fields.List(fields.String())
    action = _nullable_enum("Action")
    legal = fields.List(fields.String(), metadata={"description": "may pass or play now"})
    pass_ = fields.Nested(PassViewSchema, data_key="pass", allow_none=True)


@always_present
class DealViewSchema(ma.Schema):
    hands = fields.List(fields.List(fields.String()))
    trump = fields.String(allow_none=True)


@always_present
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


@always_present
class RematchSeatSchema(ma.Schema):
    seat = fields.Integer(metadata={"description": "the caller's seat in the new game"})
    token = fields.String(metadata={"description": "the seat's secret; shown only here"})


class RematchSchema(GameViewSchema):
    joined = fields.Nested(
        RematchSeatSchema,
        metadata={
            "description": "only when a seat token made the rematch: the seat it took for "
            "the caller, and that seat's token"
        },
    )
