"""How a delivery is signed (the Standard Webhooks scheme, made by the standardwebhooks
package), retried with backoff, and recorded."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from standardwebhooks import Webhook

from service.application.deps import Deps
from service.application.privacy import reveal
from service.application.privacy.ports import KeyVault
from service.application.webhooks.ports import (
    WebhookAttempt,
    WebhookDelivery,
)

RETRY_FOR = timedelta(hours=26)  # at least 24 h of retries, then the delivery is given up


DISABLE_AFTER = timedelta(days=3)  # an endpoint failing this long is disabled


FIRST_RETRY = 5.0  # seconds; doubles each attempt, up to MAX_RETRY


MAX_RETRY = 3600.0


ATTEMPT_TIME = timedelta(seconds=11)
"""The longest an attempt takes: the sender's 10 s deadline, with room to record it."""


@dataclass(frozen=True, slots=True)
class Sent:
    status: int | None
    error: str | None
    retry_after: float | None = None  # seconds the receiver asked us to wait (Retry-After)


class Sender(Protocol):
    def start(
        self, url: str, body: bytes, headers: dict[str, str], then: Callable[[Sent], None]
    ) -> None:
        """Begin one POST (at most ATTEMPT_TIME, no redirects) and return at once;
        ``then`` is called with what came of it, from any thread. Never raises for the
        network's or the receiver's trouble."""


def signed(
    delivery: WebhookDelivery, now: datetime, vault: KeyVault | None = None
) -> tuple[bytes, dict[str, str]]:
    """The body and the Standard Webhooks headers of an attempt (the message id is the
    same for every attempt of a delivery; the timestamp is the attempt's). Personal data
    is opened as the attempt is made (an erased player's name reads erased)."""
    body = json.dumps(delivery.payload, separators=(",", ":"), sort_keys=True)
    body = reveal.json_text(vault, body)
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
    retry_after: float | None = None,
) -> datetime | None:
    """When to try again after a failed attempt (exponential backoff from ``first``
    seconds, ±20 % jitter; no sooner than the ``retry_after`` seconds the receiver asked
    for, up to MAX_RETRY), or None once the delivery has been retried for RETRY_FOR."""
    if now - delivery.created_at >= RETRY_FOR:
        return None
    delay = min(first * 2**delivery.attempts, MAX_RETRY) * chance.uniform(0.8, 1.2)
    if retry_after is not None:
        delay = max(delay, min(retry_after, MAX_RETRY))
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
    done on a 2xx, else due again later, no sooner than its answer's Retry-After asked
    (or given up after RETRY_FOR). Not recorded yet: see :func:`record`."""
    ok = sent.status is not None and 200 <= sent.status < 300
    later = None if ok else retry_at(delivery, ended, chance, first_retry, sent.retry_after)
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
