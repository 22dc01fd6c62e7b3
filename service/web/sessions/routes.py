"""/v1/sessions: a new token of a player, by an OpenID Connect ID token or a link code."""

from __future__ import annotations

from typing import Any

from flask import Response

from service.application.identity import signin
from service.web.api import Blueprint
from service.web.fields import IDEMPOTENCY_KEY
from service.web.render import json_response
from service.web.request import command_context, deps, services
from service.web.sessions.schemas import (
    SignedInSchema,
    SignInProvidersSchema,
    SignInSchema,
)

blp = Blueprint("sessions", __name__, url_prefix="/v1", description="Signing in")

SIGNED_IN = SignedInSchema()
PROVIDERS = SignInProvidersSchema()

_TOKEN_LINKS = {
    op: {
        "operationId": op,
        "parameters": {"header.Authorization": "Bearer {$response.body#/token}"},
    }
    for op in ("me", "my_games", "my_tokens", "create_link_code")
}


@blp.route("/sessions", methods=["POST"])
@blp.arguments(SignInSchema())
@blp.response(201, SignedInSchema)
@blp.doc(parameters=[IDEMPOTENCY_KEY], responses={201: {"links": _TOKEN_LINKS}})
@blp.problems(400, 401, 403, 409, 413, 422, 429, 503)
def sign_in(body: dict[str, Any]) -> Response:
    """Sign in: a new token of the player an ID token's identity (issuer, subject) is,
    made at its first sign-in; or of the player a link code was made for.

    With a player token, an ID token's identity is linked to that player instead (409
    `identity_in_use` if it is another's). Refusals: 401 `invalid_id_token` (the detail
    says which check failed), 401 `invalid_link_code` (unknown, used or expired alike),
    503 `provider_unavailable` (the issuer's keys could not be had).
    """
    ctx = command_context(answers_a_secret=True)
    if "id_token" in body:
        done = signin.with_id_token(deps(), body["id_token"], body.get("name"), ctx)
    else:
        done = signin.with_link_code(deps(), body["link_code"], ctx)
    made = done.result
    answer = {
        "player": {"id": made.player_id, "name": made.name},
        "token": made.token,
        "token_id": made.token_id,
        "new_player": made.new_player,
    }
    return json_response(SIGNED_IN, answer, status=201)


@blp.route("/sessions/providers", methods=["GET"])
@blp.response(200, SignInProvidersSchema)
@blp.problems(429)
def providers() -> Response:
    """The OpenID providers the web client may sign in with (`YOKAI_OIDC_WEB_CLIENTS`):
    the authorization code flow with PKCE at `authorization_endpoint`, the code then
    exchanged at `token_endpoint` for the ID token that `POST /v1/sessions` takes. A
    provider that cannot be reached now is left out."""
    found = signin.providers(deps(), services().web_clients)
    return json_response(PROVIDERS, {"providers": found})
