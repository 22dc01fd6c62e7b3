"""Turn notifications (API.md Part 4): the server's push key, a player's push
subscriptions and their notification choices."""

from __future__ import annotations

import hashlib
from typing import Any
from uuid import UUID

from flask import Response, request

from service.application.commands import (
    ChooseNotifications,
    DeletePushSubscription,
    SetEmail,
    SubscribePush,
    UnsubscribeMail,
    VerifyEmail,
)
from service.application.errors import InvalidInputError
from service.application.notify import choices
from service.application.notify.choices import SubscriptionNotFoundError
from service.application.notify.ports import Choices, Subscription
from service.application.write.registry import execute
from service.web.api import BEARER, Blueprint
from service.web.fields import IDEMPOTENCY_KEY, IF_NONE_MATCH_INBOX
from service.web.notify.schemas import (
    EmailCodeSchema,
    EmailSchema,
    NotificationsPatchSchema,
    NotificationsSchema,
    PushKeySchema,
    SubscribeSchema,
    SubscriptionListSchema,
    SubscriptionSchema,
    UnsubscribedSchema,
    UnsubscribeQuerySchema,
)
from service.web.render import json_response, tagged_response
from service.web.request import command_context, deps, principal

blp = Blueprint(
    "notifications", __name__, url_prefix="/v1", description="Turn notifications: Web Push and mail"
)

PUSH_KEY = PushKeySchema()
SUBSCRIPTION = SubscriptionSchema()
SUBSCRIPTIONS = SubscriptionListSchema()
NOTIFICATIONS = NotificationsSchema()
UNSUBSCRIBED = UnsubscribedSchema()

_PLAYER_TOKEN = "a player token"


def _subscription(s: Subscription) -> dict[str, Any]:
    return {"id": s.id, "endpoint": s.endpoint, "created_at": s.created_at}


def _choices(c: Choices) -> dict[str, Any]:
    email = None if c.email is None else {"address": c.email, "verified": c.email_verified}
    return {
        "push": c.push,
        "mail": c.mail,
        "email": email,
        "digest": c.digest,
        "reminder_minutes": c.reminder_minutes,
    }


@blp.route("/push/key", methods=["GET"])
@blp.response(200, PushKeySchema)
@blp.doc(operationId="push_key")
@blp.problems(429, 503)
def push_key() -> Response:
    """The server's VAPID public key (RFC 8292), for `PushManager.subscribe`."""
    return json_response(PUSH_KEY, {"public_key": deps().push_key})


@blp.route("/me/push-subscriptions", methods=["POST"])
@blp.arguments(SubscribeSchema())
@blp.response(201, SubscriptionSchema)
@blp.doc(
    security=BEARER,
    operationId="subscribe_push",
    parameters=[IDEMPOTENCY_KEY],
    responses={200: {"description": "This endpoint was subscribed already: the same id"}},
)
@blp.problems(400, 401, 403, 413, 422, 429)
def subscribe(body: dict[str, Any]) -> Response:
    """Subscribe a browser to pushes (a `PushSubscription` as JSON). The player is pushed
    when it becomes their turn, when they are invited, when a seek of theirs is matched
    and before a turn clock runs out, unless they look at the game at that moment.
    Subscribing the same endpoint again answers 200 with the same id."""
    command = SubscribePush(
        body["endpoint"], body["keys"]["p256dh"], body["keys"]["auth"], body["expirationTime"]
    )
    done = execute(deps(), command, command_context(_PLAYER_TOKEN)).result
    answer = {
        "id": done.subscription_id,
        "endpoint": body["endpoint"],
        "created_at": done.created_at,
    }
    return json_response(SUBSCRIPTION, answer, status=201 if done.new else 200)


@blp.route("/me/push-subscriptions", methods=["GET"])
@blp.response(200, SubscriptionListSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(security=BEARER, operationId="list_push_subscriptions", parameters=[IF_NONE_MATCH_INBOX])
@blp.problems(304, 401, 403, 429)
def subscriptions() -> Response:
    """The player's push subscriptions, oldest first, in one page (a player has at most
    20: `next_cursor` is null), with an `ETag` (`If-None-Match` → 304)."""
    found = choices.mine(deps(), principal()).subscriptions
    body = {"subscriptions": [_subscription(s) for s in found], "next_cursor": None}
    etag = hashlib.sha256(" ".join(str(s.id) for s in found).encode()).hexdigest()[:20]
    return tagged_response(SUBSCRIPTIONS, etag, lambda: body)


@blp.route("/me/push-subscriptions/<subscription_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="delete_push_subscription", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def unsubscribe(subscription_id: str) -> Response:
    """Stop pushes to one subscription (its waiting pushes go too)."""
    try:
        wanted = UUID(subscription_id)
    except ValueError:
        raise SubscriptionNotFoundError("no such push subscription") from None
    execute(deps(), DeletePushSubscription(wanted), command_context(_PLAYER_TOKEN))
    return Response(status=204)


@blp.route("/me/notifications", methods=["GET"])
@blp.response(200, NotificationsSchema)
@blp.doc(security=BEARER, operationId="my_notifications")
@blp.problems(401, 403, 429)
def notifications() -> Response:
    """The player's notification choices (each as it was chosen, else its default)."""
    return json_response(NOTIFICATIONS, _choices(choices.mine(deps(), principal()).choices))


@blp.route("/me/notifications", methods=["PATCH"])
@blp.arguments(NotificationsPatchSchema())
@blp.response(200, NotificationsSchema)
@blp.doc(security=BEARER, operationId="choose_notifications", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 413, 422, 429)
def choose(body: dict[str, Any]) -> Response:
    """Change some of the player's choices: `push` and `mail` turn each way off as a
    whole; `digest` (`off`, `hourly`, `daily`); `reminder_minutes` (1 to 1440, or null
    for no reminder). The address is set with POST /v1/me/email."""
    command = ChooseNotifications(tuple(sorted(body.items())))
    execute(deps(), command, command_context(_PLAYER_TOKEN))
    return json_response(NOTIFICATIONS, _choices(choices.mine(deps(), principal()).choices))


_LANGUAGES = ["en", "fr", "de", "zh"]


@blp.route("/me/email", methods=["POST"])
@blp.arguments(EmailSchema())
@blp.response(202, NotificationsSchema)
@blp.doc(security=BEARER, operationId="set_email", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 413, 422, 429, 503)
def set_email(body: dict[str, Any]) -> Response:
    """Give the address mail goes to: a 6-digit code is sent to it (valid 30 minutes;
    at most 5 a day: 429 `too_many_codes`), and mail goes there once it is verified
    (POST /v1/me/email/verify). The messages are in the request's language
    (`Accept-Language`: en, fr, de or zh)."""
    lang = request.accept_languages.best_match(_LANGUAGES) or "en"
    execute(deps(), SetEmail(body["address"], lang), command_context(_PLAYER_TOKEN))
    return json_response(
        NOTIFICATIONS, _choices(choices.mine(deps(), principal()).choices), status=202
    )


_NOT_VERIFIED = {
    "no_code": "no code was sent: give the address first (POST /v1/me/email)",
    "code_expired": "this code no longer works (too old, or tried 5 times): ask for another",
    "wrong_code": "that is not the code that was sent",
}


@blp.route("/me/email/verify", methods=["POST"])
@blp.arguments(EmailCodeSchema())
@blp.response(200, NotificationsSchema)
@blp.doc(security=BEARER, operationId="verify_email", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 413, 422, 429)
def verify_email(body: dict[str, Any]) -> Response:
    """Verify the address with the code sent to it (422 `wrong_code`, `code_expired`,
    `no_code`)."""
    done = execute(deps(), VerifyEmail(body["code"]), command_context(_PLAYER_TOKEN)).result
    if done.refused is not None:
        raise InvalidInputError(_NOT_VERIFIED[done.refused], done.refused)
    return json_response(NOTIFICATIONS, _choices(choices.mine(deps(), principal()).choices))


@blp.route("/unsubscribe", methods=["POST"])
@blp.arguments(UnsubscribeQuerySchema(), location="query")
@blp.response(200, UnsubscribedSchema)
@blp.doc(operationId="unsubscribe_mail")
@blp.problems(400, 404, 422, 429)
def unsubscribe_mail(query: dict[str, Any]) -> Response:
    """The one-click unsubscribe of every message's `List-Unsubscribe` (RFC 8058): turns
    the player's mail off, without signing in (pushes are not touched). The body a mail
    client sends (`List-Unsubscribe=One-Click`) is not needed."""
    execute(deps(), UnsubscribeMail(query["token"]), command_context())
    return json_response(UNSUBSCRIBED, {"mail": False})
