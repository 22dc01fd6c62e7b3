"""Sign-in requests and their answer."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from service.application.identity.names import NAME_MAX, NAME_PATTERN
from service.web.fields import _printable, always_present
from service.web.players.schemas import PlayerSchema


class SignInSchema(ma.Schema):
    id_token = fields.String(
        validate=validate.Length(min=1, max=16384),
        metadata={"description": "an OpenID Connect ID token (a JWT) of a configured issuer"},
    )
    link_code = fields.String(
        validate=validate.Length(min=1, max=32),
        metadata={"description": "a code from `POST /v1/me/link-codes` on a signed-in device"},
    )
    name = fields.String(
        validate=[validate.Length(min=1, max=NAME_MAX), _printable],
        metadata={
            "pattern": NAME_PATTERN,
            "description": "the name of the player this sign-in makes, if it makes one "
            "(else the ID token's `name` or `preferred_username`)",
        },
    )

    @ma.validates_schema
    def _one_way(self, data: dict[str, Any], **_: Any) -> None:
        if ("id_token" in data) == ("link_code" in data):
            raise ma.ValidationError("give id_token or link_code", "_schema")


EXACTLY_ONE_WAY = {
    "oneOf": [
        {"required": ["id_token"], "not": {"required": ["link_code"]}},
        {"required": ["link_code"], "not": {"required": ["id_token"]}},
    ]
}
"""What SignInSchema's check says, for the contract (marshmallow cannot say it)."""


@always_present
class SignedInSchema(ma.Schema):
    player = fields.Nested(PlayerSchema)
    token = fields.String(metadata={"description": "the new token's secret; shown only here"})
    token_id = fields.UUID(metadata={"description": "its id in `GET /v1/me/tokens`"})
    new_player = fields.Boolean(metadata={"description": "this sign-in made the player"})


@always_present
class SignInProviderSchema(ma.Schema):
    issuer = fields.String()
    client_id = fields.String(metadata={"description": "the web client's id at the provider"})
    authorization_endpoint = fields.String()
    token_endpoint = fields.String()


@always_present
class SignInProvidersSchema(ma.Schema):
    providers = fields.List(fields.Nested(SignInProviderSchema))
