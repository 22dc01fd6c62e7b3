"""The games' requests (create, join, pass, play, seat a bot), the operators' listing
and the verify report."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.application.identity.names import NAME_MAX, NAME_PATTERN
from service.rules import (
    CLIENT_SEED_MAX,
    MAX_TURN_SECONDS,
    BotLevel,
    OnTimeout,
    Scoring,
    Variant,
    Visibility,
)
from service.web.fields import (
    CLIENT_SEED_PATTERN,
    CURSOR_PATTERN,
    MAX_INT32,
    MAX_SEED,
    STATUSES,
    JsonBoolean,
    JsonInteger,
    _card,
    _enum,
    _printable,
    always_present,
)

# A deal uses every card of the game's deck once: three hands of 16 and a trump card,
# four of 12 and a trump, or (Seven Followers) four of 14 and no trump.
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


class InvitationField(fields.Field):  # type: ignore[type-arg]
    """A player to invite: their id (the next free seat from seat 1 up), or
    ``{"player_id", "seat"}``."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            value = {"player_id": value}
        if not isinstance(value, dict):
            raise ma.ValidationError("a player id, or {player_id, seat}")
        loaded: dict[str, Any] = _InvitationSchema().load(value)
        return loaded


class _InvitationSchema(ma.Schema):
    player_id = fields.UUID(required=True)
    seat = JsonInteger(validate=validate.Range(min=0, max=3))


_INVITATION_DOC = {
    "oneOf": [
        {"type": "string", "format": "uuid"},
        {
            "type": "object",
            "required": ["player_id"],
            "additionalProperties": False,
            "properties": {
                "player_id": {"type": "string", "format": "uuid"},
                "seat": {"type": "integer", "minimum": 0, "maximum": 3},
            },
        },
    ]
}


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
    visibility = _enum(
        Visibility,
        load_default=Visibility.PRIVATE,
        metadata={"description": "private: whoever has the link; public: listed in the lobby"},
    )
    rated = JsonBoolean(
        load_default=False,
        metadata={
            "description": "the result changes the players' ratings: every seat joined by a "
            "player (403 `players_only` for an anonymous join) or a bot; no `seed` or `deals`"
        },
    )
    invite = fields.List(
        InvitationField(metadata=_INVITATION_DOC),
        validate=validate.Length(min=1, max=4),
        metadata={
            "description": "players whose seats are kept for them: a player id (the next "
            "free seat from seat 1 up) or {player_id, seat}"
        },
    )


class JoinSchema(ma.Schema):
    name = fields.String(
        validate=[validate.Length(min=1, max=NAME_MAX), _printable],
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


class PassSchema(ma.Schema):
    # Any other count, or a card twice, is 422 `invalid_pass` from the rules.
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


@always_present
class JoinedSchema(ma.Schema):
    game_id = fields.UUID()
    version = fields.Integer()
    seat = fields.Integer()
    token = fields.String(metadata={"description": "the seat's secret; shown only here"})


@always_present
class VerifySchema(ma.Schema):
    intact = fields.Boolean(
        metadata={"description": "the hash chain holds and every event replays under the rules"}
    )
    events = fields.Integer(metadata={"description": "events stored for the game"})
    first_bad_seq = fields.Integer(
        allow_none=True, metadata={"description": "the first event that fails; null if intact"}
    )
    reason = fields.String(allow_none=True, metadata={"description": "why it fails"})


@always_present
class GameSummarySchema(ma.Schema):
    id = fields.UUID()
    created_at = fields.DateTime()
    updated_at = fields.DateTime()
    players = fields.Integer()
    scoring = fields.String()
    variant = fields.String()
    status = fields.String()
    version = fields.Integer()


@always_present
class GameListSchema(ma.Schema):
    games = fields.List(fields.Nested(GameSummarySchema))
    next_cursor = fields.String(allow_none=True)
