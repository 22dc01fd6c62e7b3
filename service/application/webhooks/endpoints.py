"""Webhook endpoints: a player's (or the operators') commands on them, run by the write
path like every command (write/registry.py), and the queries of them and of their
deliveries' log."""

from __future__ import annotations

import base64
import secrets
from uuid import UUID, uuid4

from service.application.commands import CreateWebhook, DeleteWebhook
from service.application.deps import Deps
from service.application.errors import InvalidInputError, NotFoundError
from service.application.identity.principals import (
    Operator,
    PlayerHolder,
    Principal,
    actor_of,
    guard,
    require_player,
    require_valid,
)
from service.application.ports import Actor
from service.application.results import WebhookCreated, WebhookDeleted
from service.application.webhooks.events import EVENT_TYPES
from service.application.webhooks.ports import (
    WebhookAttempt,
    WebhookEndpoint,
)
from service.application.write.transaction import Transaction

MAX_ENDPOINTS = 10  # per player, and for the operators


class WebhookNotFoundError(NotFoundError):
    code = "webhook_not_found"


def new_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def _owner(principal: Principal) -> UUID | None:
    """Whose endpoints: a player's (their id) or the operators' (None)."""
    require_valid(principal)
    if isinstance(principal, Operator):
        return None
    return require_player(principal).player_id


def authorize(cmd: CreateWebhook | DeleteWebhook, principal: Principal) -> Actor:
    """A player (their endpoints) or an operator (the operators')."""
    _owner(principal)
    return actor_of(principal)


def create(cmd: CreateWebhook, actor: Actor, tx: Transaction) -> WebhookCreated:
    owner = _owner(tx.principal)
    problem = tx.webhook_urls.problem(cmd.url)
    if problem is not None:
        raise InvalidInputError(f"url: {problem}", "webhook_url_forbidden")
    wanted = tuple(dict.fromkeys(cmd.events))
    if not wanted or any(e not in EVENT_TYPES for e in wanted):
        raise InvalidInputError(f"events: choose from {', '.join(EVENT_TYPES)}", "unknown_event")
    if len(tx.uow.webhooks.of(owner)) >= MAX_ENDPOINTS:
        raise InvalidInputError(
            f"at most {MAX_ENDPOINTS} webhooks each: delete one first", "too_many_webhooks"
        )
    endpoint = WebhookEndpoint(uuid4(), owner, cmd.url, wanted, tx.now)
    secret = new_secret()
    tx.uow.webhooks.add(endpoint, secret)
    return WebhookCreated(endpoint.id, endpoint.url, endpoint.events, endpoint.created_at, secret)


def listed(deps: Deps, principal: Principal) -> list[WebhookEndpoint]:
    owner = _owner(principal)
    with deps.uow() as uow:
        if isinstance(principal, PlayerHolder):
            guard(uow, principal)
        return uow.webhooks.of(owner)


def get(deps: Deps, principal: Principal, webhook_id: UUID) -> WebhookEndpoint:
    owner = _owner(principal)
    with deps.uow() as uow:
        if isinstance(principal, PlayerHolder):
            guard(uow, principal)
        return _owned(uow.webhooks.get(webhook_id), owner)


def delete(cmd: DeleteWebhook, actor: Actor, tx: Transaction) -> WebhookDeleted:
    _owned(tx.uow.webhooks.get(cmd.webhook_id), _owner(tx.principal))
    tx.uow.webhooks.delete(cmd.webhook_id)
    return WebhookDeleted(cmd.webhook_id)


def deliveries(
    deps: Deps, principal: Principal, webhook_id: UUID, limit: int
) -> list[WebhookAttempt]:
    owner = _owner(principal)
    with deps.uow() as uow:
        if isinstance(principal, PlayerHolder):
            guard(uow, principal)
        _owned(uow.webhooks.get(webhook_id), owner)
        return uow.webhooks.attempts(webhook_id, limit)


def _owned(endpoint: WebhookEndpoint | None, owner: UUID | None) -> WebhookEndpoint:
    """The endpoint, if it is the caller's; another's is as unknown as a missing one."""
    if endpoint is None or endpoint.player_id != owner:
        raise WebhookNotFoundError("no such webhook")
    return endpoint
