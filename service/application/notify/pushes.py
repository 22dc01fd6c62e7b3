"""The worker's pushes (API.md Part 4 "Turn notifications"): claimed from the outbox,
sent beside the worker's loop by the webhooks' sender (one event loop for every attempt),
recorded a batch at a time.

A push is sent only to a subscription that still exists, and not while its player looks
at the game (a stream of it, or their player stream, seen within ``WATCHED``): then it
is dropped, for the player sees the turn already. Its payload says what happened and
where, never a card: ``{"type", "game_id", "version", "url"}``, encrypted for the
subscription (RFC 8291) and signed with the server's VAPID key (RFC 8292) by the
adapter behind :class:`PushMessages`. A push service's 404 or 410 deletes the
subscription; 429, 5xx and a failed connection are tried again with backoff (at least
as long as ``Retry-After`` asks), for at most ``TTL``; any other answer ends it.
"""

from __future__ import annotations

import base64
import json
import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from service.application.deps import Deps
from service.application.jobs.source import OUTBOX_NOTE, Soonest
from service.application.notify.mail import game_url
from service.application.notify.ports import Push, PushOutcome
from service.application.privacy.sealing import Revealer
from service.application.webhooks.delivery import MAX_RETRY, Sender, Sent

log = logging.getLogger("yokai.worker")

TTL = timedelta(hours=24)
"""How long a push service keeps a push for an offline browser (its ``TTL``), and how
long one is tried: a turn a day old is better found in the inbox."""
WATCHED = timedelta(seconds=90)
"""A stream seen this recently is open (streams refresh every 30 s: live/watching.py)."""
FIRST_RETRY = 5.0
GONE = (404, 410)


class PushMessages(Protocol):
    def request(
        self,
        endpoint: str,
        p256dh: str,
        auth: str,
        payload: bytes,
        *,
        ttl: int,
        urgency: str,
        topic: str | None,
    ) -> tuple[bytes, dict[str, str]]:
        """The encrypted body of one push and its headers (VAPID-signed)."""
        ...


def payload_of(push: Push, public_url: str) -> dict[str, object]:
    """What a push says: what happened, in which game, at which version, and where to
    look. Nothing hidden: no card, no hand."""
    return {
        "type": push.payload["type"],
        "game_id": str(push.game_id),
        "version": push.payload["version"],
        "url": game_url(public_url, push.game_id),
    }


def outcome_of(
    push: Push, sent: Sent, ended: datetime, chance: random.Random, first: float = FIRST_RETRY
) -> PushOutcome:
    """What an attempt came to: done on a 2xx; the subscription gone on 404 or 410;
    tried again later on 429, 5xx or no answer (backoff, at least ``Retry-After``),
    until ``TTL`` has passed; ended on any other answer."""
    status = sent.status
    if status is not None and 200 <= status < 300:
        return PushOutcome(push, True, None, None)
    error = sent.error or f"HTTP {status}"
    if status in GONE:
        return PushOutcome(push, True, error, None, gone=True)
    if status is not None and status != 429 and status < 500:
        return PushOutcome(push, True, error, None)
    delay = min(first * 2**push.attempts, MAX_RETRY) * chance.uniform(0.8, 1.2)
    asked = sent.retry_after
    if asked is not None:
        delay = max(delay, min(float(asked), MAX_RETRY))
    later = ended + timedelta(seconds=delay)
    if later - push.created_at >= TTL:
        return PushOutcome(push, True, f"{error}; given up after {TTL}", None)
    return PushOutcome(push, False, error, later)


def _topic(push: Push) -> str:
    """One push per game waits at the push service (RFC 8030 5.4: a newer one replaces
    it); a reminder apart."""
    raw = push.game_id.bytes + (b"r" if push.payload["type"] == "reminder" else b"")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@dataclass
class PushDeliveries:
    """At most ``at_once`` pushes under way; claimed when places are free; their
    outcomes recorded together at the next turn of the worker's loop (which ``wake``
    calls for). A claim leases its rows for ``lease``: a worker lost mid-attempt leaves
    them to another when it ends (a push may then be sent twice; the Topic header makes
    the push service keep one)."""

    sender: Sender
    messages: PushMessages
    public_url: str
    lease: timedelta = timedelta(seconds=60)
    at_once: int = 64
    first_retry: float = FIRST_RETRY
    wake: Callable[[], None] = lambda: None  # the worker's loop, to record outcomes
    _soonest: Soonest = field(default_factory=lambda: Soonest(timedelta(seconds=30)))
    _sending: int = 0
    _done: list[PushOutcome] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _chance: random.Random = field(default_factory=random.Random)
    _closing: bool = False
    _deps: Deps | None = None  # the last run's: close() records with it

    def run_due(self, deps: Deps) -> int:
        self._deps = deps
        self._record(deps)
        now = deps.clock.now()
        free = self.at_once - self._sending
        if free <= 0 or self._closing or self._soonest.later_than(now):
            return 0
        with deps.uow() as uow:
            claimed = uow.notifications.claim_pushes(now, now + self.lease, now - WATCHED, free)
            uow.commit()
        if not claimed:
            self._soonest.forget()
            return 0
        revealer = None if deps.vault is None else Revealer(deps.vault.keys, deps.vault.opened)
        skipped: list[PushOutcome] = []
        for push in claimed:
            sub = push.subscription
            if sub is None or push.watched or push.turned_off:
                why = "unsubscribed" if sub is None else "watching" if push.watched else "off"
                skipped.append(PushOutcome(push, True, why, None))
                continue
            endpoint = sub.endpoint if revealer is None else revealer.value(sub.endpoint)
            keys = sub.keys if revealer is None else revealer.value(sub.keys)
            if endpoint is None or keys is None:  # the player was erased meanwhile
                skipped.append(PushOutcome(push, True, "erased", None, gone=True))
                continue
            self._send(push, endpoint, json.loads(keys), deps)
        if skipped:
            with self._lock:
                self._done += skipped
            self._record(deps)
        return len(claimed)

    def _send(self, push: Push, endpoint: str, keys: dict[str, str], deps: Deps) -> None:
        body = json.dumps(payload_of(push, self.public_url), separators=(",", ":")).encode()
        urgent = bool(push.payload.get("urgent"))
        try:
            data, headers = self.messages.request(
                endpoint,
                keys["p256dh"],
                keys["auth"],
                body,
                ttl=int(TTL.total_seconds()),
                urgency="high" if urgent else "normal",
                topic=_topic(push),
            )
        except (ValueError, KeyError) as error:  # keys a browser would not have made
            with self._lock:
                self._done.append(PushOutcome(push, True, f"cannot encrypt: {error}", None))
            return
        with self._lock:
            self._sending += 1

        def then(sent: Sent) -> None:
            outcome = outcome_of(push, sent, deps.clock.now(), self._chance, self.first_retry)
            with self._lock:
                self._sending -= 1
                self._done.append(outcome)
            self.wake()

        self.sender.start(endpoint, data, headers, then)

    def _record(self, deps: Deps) -> None:
        with self._lock:
            done, self._done = self._done, []
        if not done:
            return
        with deps.uow() as uow:
            uow.notifications.record_pushes(done, deps.clock.now())
            uow.commit()
        for o in done:
            if not o.done and o.retry_at is not None:
                self._soonest.sooner(o.retry_at)
            elif o.error and o.error not in ("watching", "unsubscribed", "off"):
                log.info("push %s: %s", o.push.id, o.error)

    def next_due(self, deps: Deps) -> datetime | None:
        with self._lock:
            if self._done:
                return deps.clock.now()
        if self._sending >= self.at_once:
            return None

        def read() -> datetime | None:
            with deps.uow() as uow:
                return uow.notifications.next_push()

        return self._soonest.get(deps.clock.now(), read)

    def in_flight(self) -> int:
        with self._lock:
            return self._sending + len(self._done)

    def wants(self, note: str) -> bool:
        if note == OUTBOX_NOTE:
            self._soonest.forget()
            return self._sending < self.at_once
        return False

    def close(self) -> None:
        """Claim nothing more; wait for the attempts under way (each ends within the
        sender's 10 s) and record them. One that outlives the wait is tried again once
        its lease ends."""
        self._closing = True
        ended = threading.Event()
        for _ in range(110):
            with self._lock:
                if self._sending == 0:
                    break
            ended.wait(0.1)
        if self._deps is not None:
            self._record(self._deps)
