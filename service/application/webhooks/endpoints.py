"""Webhook endpoints: a player's (or the operators') commands and queries on them, and
their deliveries' log."""

from __future__ import annotations

import base64
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID, uuid4

from service.application.deps import Deps
from service.application.errors import ApplicationError, InvalidInputError
from service.application.identity.principals import (
    Operator,
    PlayerHolder,
    Principal,
    guard,
    require_player,
    require_valid,
)
from service.application.webhooks.events import EVENT_TYPES
from service.application.webhooks.ports import (
    WebhookAttempt,
    WebhookEndpoint,
)

MAX_ENDPOINTS = 10  # per player, and for the operators


class WebhookNotFoundError(ApplicationError):
    code = "webhook_not_found"


# --- what a commit tells --------------------------------------------------------------


# --- endpoints ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CreatedWebhook:
    endpoint: WebhookEndpoint
    secret: str  # shown once


def new_secret() -> str:
    """A Standard Webhooks secret: ``whsec_`` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def _owner(principal: Principal) -> UUID | None:
    """Whose endpoints: a player's (their id) or the operators' (None)."""
    require_valid(principal)
    if isinstance(principal, Operator):
        return None
    return require_player(principal).player_id


def create(deps: Deps, principal: Principal, url: str, events: Sequence[str]) -> CreatedWebhook:
    owner = _owner(principal)
    problem = deps.webhook_urls.problem(url)
    if problem is not None:
        raise InvalidInputError(f"url: {problem}", "webhook_url_forbidden")
    wanted = tuple(dict.fromkeys(events))
    if not wanted or any(e not in EVENT_TYPES for e in wanted):
        raise InvalidInputError(f"events: choose from {', '.join(EVENT_TYPES)}", "unknown_event")
    endpoint = WebhookEndpoint(uuid4(), owner, url, wanted, deps.clock.now())
    secret = new_secret()
    with deps.uow() as uow:
        if isinstance(principal, PlayerHolder):
            guard(uow, principal)
        if len(uow.webhooks.of(owner)) >= MAX_ENDPOINTS:
            raise InvalidInputError(
                f"at most {MAX_ENDPOINTS} webhooks each: delete one first", "too_many_webhooks"
            )
        uow.webhooks.add(endpoint, secret)
        uow.commit()
    return CreatedWebhook(endpoint, secret)


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


def delete(deps: Deps, principal: Principal, webhook_id: UUID) -> None:
    owner = _owner(principal)
    with deps.uow() as uow:
        if isinstance(principal, PlayerHolder):
            guard(uow, principal)
        _owned(uow.webhooks.get(webhook_id), owner)
        uow.webhooks.delete(webhook_id)
        uow.commit()


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


# --- delivering -----------------------------------------------------------------------
