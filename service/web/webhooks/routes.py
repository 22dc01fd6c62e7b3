"""The /v1/webhooks endpoints: a player's (their games) or the operators' (every game)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response

from service.application.commands import CreateWebhook, DeleteWebhook
from service.application.webhooks import endpoints
from service.application.webhooks.ports import WebhookEndpoint
from service.application.write.registry import execute
from service.web.api import BEARER, Blueprint
from service.web.fields import IDEMPOTENCY_KEY
from service.web.render import json_response
from service.web.request import command_context, deps, principal
from service.web.webhooks.schemas import (
    WebhookAttemptsQuerySchema,
    WebhookAttemptsSchema,
    WebhookCreatedSchema,
    WebhookCreateSchema,
    WebhookListSchema,
    WebhookSchema,
)

blp = Blueprint(
    "webhooks", __name__, url_prefix="/v1", description="Signed webhooks (Standard Webhooks)"
)

CREATED = WebhookCreatedSchema()
WEBHOOK = WebhookSchema()
LISTED = WebhookListSchema()
ATTEMPTS = WebhookAttemptsSchema()


def _body(endpoint: WebhookEndpoint) -> dict[str, Any]:
    e = endpoint
    return {
        "id": e.id,
        "url": e.url,
        "events": list(e.events),
        "created_at": e.created_at,
        "enabled": e.disabled_at is None,
        "failing_since": e.failing_since,
        "disabled_at": e.disabled_at,
        "disabled_reason": e.disabled_reason,
    }


_TOKEN = "a player or operator token"

_NEW = {"enabled": True, "failing_since": None, "disabled_at": None, "disabled_reason": None}
"""What a new endpoint's state is (the response to its creation, and to a replay of it)."""


def _id(webhook_id: str) -> UUID:
    try:
        return UUID(webhook_id)
    except ValueError:
        raise endpoints.WebhookNotFoundError("no such webhook") from None


_WEBHOOK_LINKS = {
    op: {"operationId": op, "parameters": {"path.webhook_id": "$response.body#/id"}}
    for op in ("get_webhook", "delete_webhook", "webhook_deliveries")
}


@blp.route("/webhooks", methods=["POST"])
@blp.arguments(WebhookCreateSchema())
@blp.response(201, WebhookCreatedSchema)
@blp.doc(
    security=BEARER,
    operationId="create_webhook",
    parameters=[IDEMPOTENCY_KEY],
    responses={201: {"links": _WEBHOOK_LINKS}},
)
@blp.problems(400, 401, 403, 413, 422, 429)
def create(body: dict[str, Any]) -> Response:
    """Register a webhook (player or operator token). The secret is shown only here.

    A player's webhooks hear of the games where the player holds a seat (`turn`: one of
    the player's seats must act); the operators' of every game. Deliveries are signed by
    the Standard Webhooks scheme with the secret; a receiver orders them by `version`.
    """
    command = CreateWebhook(body["url"], tuple(body["events"]))
    made = execute(deps(), command, command_context(_TOKEN, answers_a_secret=True)).result
    created = {
        **_NEW,
        "id": made.webhook_id,
        "url": made.url,
        "events": list(made.events),
        "created_at": made.created_at,
        "secret": made.secret,
    }
    return json_response(CREATED, created, status=201)


@blp.route("/webhooks", methods=["GET"])
@blp.response(200, WebhookListSchema)
@blp.doc(security=BEARER, operationId="list_webhooks")
@blp.problems(401, 403, 429)
def listed() -> Response:
    """The caller's webhooks (a disabled one says so: `enabled`, `disabled_reason`)."""
    found = endpoints.listed(deps(), principal())
    return json_response(LISTED, {"webhooks": [_body(e) for e in found]})


@blp.route("/webhooks/<id:webhook_id>", methods=["GET"])
@blp.response(200, WebhookSchema)
@blp.doc(security=BEARER, operationId="get_webhook")
@blp.problems(401, 403, 404, 429)
def get(webhook_id: str) -> Response:
    """One of the caller's webhooks."""
    return json_response(WEBHOOK, _body(endpoints.get(deps(), principal(), _id(webhook_id))))


@blp.route("/webhooks/<id:webhook_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="delete_webhook", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def delete(webhook_id: str) -> Response:
    """Delete a webhook, with its pending deliveries and its log."""
    execute(deps(), DeleteWebhook(_id(webhook_id)), command_context(_TOKEN))
    return Response(status=204)


@blp.route("/webhooks/<id:webhook_id>/deliveries", methods=["GET"])
@blp.arguments(WebhookAttemptsQuerySchema(), location="query")
@blp.response(200, WebhookAttemptsSchema)
@blp.doc(security=BEARER, operationId="webhook_deliveries")
@blp.problems(401, 403, 404, 422, 429)
def deliveries(query: dict[str, Any], webhook_id: str) -> Response:
    """The webhook's delivery log, newest attempt first: time, status code or error, and
    when the next attempt is due (null once delivered or given up)."""
    found = endpoints.deliveries(deps(), principal(), _id(webhook_id), query["limit"])
    return json_response(ATTEMPTS, {"deliveries": found})
