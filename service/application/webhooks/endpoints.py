"""Webhooks: what a commit tells the endpoints that want to hear of it, the endpoints'
commands and queries, and how a delivery is signed and scheduled.

Payloads are thin (API.md Part 2: Webhooks): type, time, game id, version, and the seat
for ``turn``; never a card. A receiver reads its view with its own token. Signatures are
the Standard Webhooks scheme, made by the ``standardwebhooks`` package.
"""

from __future__ import annotations

import base64
import json
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol
from uuid import UUID, uuid4

from standardwebhooks import Webhook

from service.application.deps import Deps
from service.application.errors import ApplicationError, InvalidInputError
from service.application.games import turnclocks
from service.application.games.cache import Loaded
from service.application.identity.principals import (
    Operator,
    PlayerHolder,
    Principal,
    guard,
    require_player,
    require_valid,
)
from service.application.ports import StoredEvent
from service.application.webhooks.ports import (
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)

EVENT_TYPES = ("turn", "game_started", "round_finished", "game_finished")
MAX_ENDPOINTS = 10  # per player, and for the operators
RETRY_FOR = timedelta(hours=26)  # at least 24 h of retries, then the delivery is given up
DISABLE_AFTER = timedelta(days=3)  # an endpoint failing this long is disabled
FIRST_RETRY = 5.0  # seconds; doubles each attempt, up to MAX_RETRY
MAX_RETRY = 3600.0
ATTEMPT_TIME = timedelta(seconds=11)
"""The longest an attempt takes: the sender's 10 s deadline, with room to record it."""


class WebhookNotFoundError(ApplicationError):
    code = "webhook_not_found"


# --- what a commit tells --------------------------------------------------------------


def events_of(
    game_id: UUID, before: Loaded, after: Loaded, rows: Sequence[StoredEvent]
) -> list[WebhookEvent]:
    """The webhook events of one commit of a game: its new turns (each seat a person
    holds that must now act, when a turn began), the first deal, each round's end and
    the game's."""
    base = {"game_id": str(game_id), "version": after.version}
    out: list[WebhookEvent] = []
    for row in rows:
        if row.type == "RoundDealt" and row.data.get("number") == 1:
            out.append(WebhookEvent("game_started", base))
        elif row.type == "RoundEnded":
            out.append(WebhookEvent("round_finished", {**base, "round": row.data["number"]}))
        elif row.type == "GameEnded":
            out.append(WebhookEvent("game_finished", {**base, "winner": row.data["winners"]}))
        elif row.type == "GameExpired":  # never filled: over, without a winner
            out.append(WebhookEvent("game_finished", {**base, "winner": None, "expired": True}))
    key = turnclocks.turn_key(after.state)
    if key is not None and key != turnclocks.turn_key(before.state):
        state = after.state
        for seat in turnclocks.due_seats(state):
            if state.bots[seat] is None:
                out.append(WebhookEvent("turn", {**base, "seat": seat}, seat))
    return out


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


@dataclass(frozen=True, slots=True)
class Sent:
    status: int | None
    error: str | None


class Sender(Protocol):
    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        """Begin one POST (at most ATTEMPT_TIME, no redirects) and return at once;
        ``then`` is called with what came of it, from any thread. Never raises for the
        network's or the receiver's trouble."""


def signed(delivery: WebhookDelivery, now: datetime) -> tuple[bytes, dict[str, str]]:
    """The body and the Standard Webhooks headers of an attempt (the message id is the
    same for every attempt of a delivery; the timestamp is the attempt's)."""
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True)
    signature = Webhook(delivery.secret).sign(delivery.message_id, now, body)
    headers = {
        "webhook-id": delivery.message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature,
    }
    return body.encode(), headers


def retry_at(
    delivery: WebhookDelivery,
    now: datetime,
    chance: random.Random,
    first: float = FIRST_RETRY,
) -> datetime | None:
    """When to try again after a failed attempt (exponential backoff from ``first``
    seconds, ±20 % jitter), or None once the delivery has been retried for RETRY_FOR."""
    if now - delivery.created_at >= RETRY_FOR:
        return None
    delay = min(first * 2**delivery.attempts, MAX_RETRY) * chance.uniform(0.8, 1.2)
    return now + timedelta(seconds=delay)


@dataclass(frozen=True, slots=True)
class Outcome:
    delivery: WebhookDelivery
    attempt: WebhookAttempt
    done: bool  # delivered, or given up


def attempted(
    delivery: WebhookDelivery,
    at: datetime,
    sent: Sent,
    chance: random.Random,
    first_retry: float = FIRST_RETRY,
    *,
    ended: datetime,
) -> Outcome:
    """What an attempt made ``at`` (its signature's time) and ended at ``ended`` came to:
    done on a 2xx, else due again later (or given up after RETRY_FOR). Not recorded
    yet: see :func:`record`."""
    ok = sent.status is not None and 200 <= sent.status < 300
    later = None if ok else retry_at(delivery, ended, chance, first_retry)
    error = sent.error if sent.error or ok else f"HTTP {sent.status}"
    if not ok and later is None:
        error = f"{error}; given up after {RETRY_FOR}"
    attempt = WebhookAttempt(
        delivery.message_id,
        str(delivery.payload.get("type", "")),
        at,
        sent.status,
        error,
        later,
    )
    return Outcome(delivery, attempt, ok or later is None)


def record(deps: Deps, outcomes: Sequence[Outcome]) -> None:
    """Record attempts together, in one transaction (a commit per batch, not per
    attempt). Until it commits, their deliveries are still claimed: lost with the
    process, they are attempted again when the lease ends (at least once)."""
    now = deps.clock.now()
    with deps.uow() as uow:
        uow.webhooks.record(
            [(o.delivery, o.attempt, o.done) for o in outcomes],
            disable_failing_since=now - DISABLE_AFTER,
        )
        uow.commit()
