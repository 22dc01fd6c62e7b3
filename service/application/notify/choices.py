"""A player's side of turn notifications: their browsers' push subscriptions and their
choices (push, mail, digest, reminder), commands run by the write path like every
command (write/registry.py), and the queries of them.

A subscription's endpoint and keys are personal data: sealed under the player's key
(like names), opened only as a push leaves (the worker) or as the player reads their
own list. The same endpoint subscribed twice by one player is one subscription (found
again by the endpoint's SHA-256)."""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from uuid import uuid4

from service.application.commands import ChooseNotifications, DeletePushSubscription, SubscribePush
from service.application.deps import Deps
from service.application.errors import InvalidInputError, NotFoundError
from service.application.identity.principals import (
    PlayerHolder,
    Principal,
    actor_of,
    guard,
    require_player,
    require_valid,
)
from service.application.notify.ports import DIGESTS, Choices, Subscription
from service.application.ports import Actor
from service.application.results import NotificationsChosen, PushSubscribed, PushUnsubscribed
from service.application.write.transaction import Transaction

MAX_SUBSCRIPTIONS = 20  # per player: a browser profile each


class SubscriptionNotFoundError(NotFoundError):
    code = "subscription_not_found"


def endpoint_hash(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()


def authorize(
    cmd: SubscribePush | DeletePushSubscription | ChooseNotifications, principal: Principal
) -> Actor:
    """A player, for themselves."""
    require_valid(principal)
    require_player(principal)
    return actor_of(principal)


def subscribe(cmd: SubscribePush, actor: Actor, tx: Transaction) -> PushSubscribed:
    player = require_player(tx.principal).player_id
    problem = tx.push_subscription_problem(cmd.endpoint, cmd.p256dh, cmd.auth)
    if problem is not None:
        raise InvalidInputError(problem, "invalid_subscription")
    keys = {"p256dh": cmd.p256dh, "auth": cmd.auth}
    digest = endpoint_hash(cmd.endpoint)
    known = tx.uow.notifications.subscription(player, digest)
    if known is not None:
        return PushSubscribed(known.id, known.created_at, False)
    if len(tx.uow.notifications.subscriptions(player)) >= MAX_SUBSCRIPTIONS:
        raise InvalidInputError(
            f"at most {MAX_SUBSCRIPTIONS} push subscriptions each: delete one first",
            "too_many_subscriptions",
        )
    made = Subscription(
        uuid4(),
        player,
        tx.seal_personal(player, cmd.endpoint),
        tx.seal_personal(player, json.dumps(keys, sort_keys=True)),
        tx.now,
        None
        if cmd.expiration_ms is None
        else datetime.fromtimestamp(cmd.expiration_ms / 1000, UTC),
    )
    tx.uow.notifications.subscribe(made, digest)
    return PushSubscribed(made.id, made.created_at, True)


def unsubscribe(cmd: DeletePushSubscription, actor: Actor, tx: Transaction) -> PushUnsubscribed:
    player = require_player(tx.principal).player_id
    if not tx.uow.notifications.unsubscribe(player, cmd.subscription_id):
        raise SubscriptionNotFoundError("no such push subscription")
    return PushUnsubscribed(cmd.subscription_id)


_CHOOSABLE = {"push": bool, "mail": bool, "digest": str, "reminder_minutes": int}


def choose(cmd: ChooseNotifications, actor: Actor, tx: Transaction) -> NotificationsChosen:
    player = require_player(tx.principal).player_id
    changes = dict(cmd.changes)
    for name, value in changes.items():
        kind = _CHOOSABLE.get(name)
        if kind is None:
            raise InvalidInputError(f"{name}: not a choice", "invalid_choice")
        if name == "reminder_minutes" and value is None:
            continue
        if type(value) is not kind:
            raise InvalidInputError(f"{name}: a {kind.__name__}", "invalid_choice")
    if "digest" in changes and changes["digest"] not in DIGESTS:
        raise InvalidInputError(f"digest: one of {', '.join(DIGESTS)}", "invalid_choice")
    minutes = changes.get("reminder_minutes")
    if isinstance(minutes, int) and not 1 <= minutes <= 1440:
        raise InvalidInputError("reminder_minutes: 1 to 1440, or null", "invalid_choice")
    if changes:
        tx.uow.notifications.choose(player, changes, new_token())
    return NotificationsChosen(player)


def new_token() -> str:
    """A one-click unsubscribe token (RFC 8058): whoever holds it turns the player's
    mail off, nothing more."""
    return secrets.token_urlsafe(24)


@dataclass(frozen=True, slots=True)
class Mine:
    """A player's choices and subscriptions, as stored (sealed)."""

    choices: Choices
    subscriptions: list[Subscription]


def mine(deps: Deps, principal: Principal) -> Mine:
    player = require_player(principal).player_id
    with deps.uow() as uow:
        if isinstance(principal, PlayerHolder):
            guard(uow, principal)
        return Mine(uow.notifications.choices(player), uow.notifications.subscriptions(player))
