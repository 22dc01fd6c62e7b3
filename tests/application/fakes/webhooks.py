"""Webhook endpoints, deliveries and attempts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from uuid import UUID, uuid4

from service.application.webhooks.ports import (
    PER_ENDPOINT,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)
from tests.application.fakes.tables import (
    AttemptRow,
    Commit,
    DeliveryRow,
    IntegrityViolation,
    Recorded,
    Tables,
    WebhookRow,
)

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeWebhooks:
    """Endpoints, their deliveries (the outbox's ``webhook`` rows) and the log of their
    attempts, as service/adapters/postgres/webhooks.py keeps them. What commits told
    webhooks and the attempts they recorded are also listed (``Tables.told``,
    ``Tables.recorded``), for the tests' assertions."""

    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def add(self, endpoint: WebhookEndpoint, secret: str) -> None:
        row = WebhookRow(
            replace(endpoint, failing_since=None, disabled_at=None, disabled_reason=None), secret
        )

        def write(c: Commit) -> None:
            if endpoint.id in c.after.webhooks:
                raise IntegrityViolation(f"webhooks: duplicate id {endpoint.id}")
            c.after.webhooks[endpoint.id] = row
            if endpoint.player_id is not None:
                c.player(endpoint.player_id, "webhooks")

        self._uow.queue(write)

    def get(self, webhook_id: UUID) -> WebhookEndpoint | None:
        row = self._uow.read().webhooks.get(webhook_id)
        return None if row is None else row.endpoint

    def of(self, player_id: UUID | None) -> list[WebhookEndpoint]:
        rows = [
            row.endpoint
            for row in self._uow.read().webhooks.values()
            if row.endpoint.player_id == player_id
        ]
        return sorted(rows, key=lambda e: (e.created_at, e.id))

    def delete(self, webhook_id: UUID) -> None:
        def write(c: Commit) -> None:
            if webhook_id not in c.before.webhooks:
                return
            del c.after.webhooks[webhook_id]
            for ident in [i for i, d in c.after.deliveries.items() if d.webhook_id == webhook_id]:
                del c.after.deliveries[ident]  # ON DELETE CASCADE
            for ident in [i for i, a in c.after.attempts.items() if a.webhook_id == webhook_id]:
                del c.after.attempts[ident]

        self._uow.queue(write)

    def attempts(self, webhook_id: UUID, limit: int) -> list[WebhookAttempt]:
        rows = [a for a in self._uow.read().attempts.values() if a.webhook_id == webhook_id]
        rows.sort(key=lambda a: a.id, reverse=True)
        return [a.attempt for a in rows[:limit]]

    def fan_out(
        self,
        game_id: UUID,
        events: Sequence[WebhookEvent],
        bound: Sequence[tuple[int, UUID]],
        now: datetime,
        left: Sequence[int] = (),
    ) -> None:
        if not events:
            return
        told = [(game_id, e, tuple(bound)) for e in events]

        def write(c: Commit) -> None:
            c.after.told.extend(told)
            enabled = sorted(
                (row.endpoint for row in c.before.webhooks.values()),
                key=lambda e: (e.created_at, e.id),
            )
            enabled = [e for e in enabled if e.disabled_at is None]
            seats = [(s, p) for (g, s), p in c.before.seat_players.items() if g == game_id]
            seats += bound
            for event in events:
                to = [e for e in enabled if e.player_id is None and event.type in e.events]
                for seat, player_id in seats:
                    if (event.seat is None or seat == event.seat) and seat not in left:
                        to += [
                            e
                            for e in enabled
                            if e.player_id == player_id and event.type in e.events
                        ]
                payload = {"type": event.type, "timestamp": now.isoformat(), "data": event.data}
                for endpoint in to:
                    ident = c.db._outbox_id()
                    message_id = "msg_" + uuid4().hex
                    c.after.deliveries[ident] = DeliveryRow(
                        ident, endpoint.id, game_id, message_id, payload, now, now
                    )
            c.game(game_id, "outbox")

        self._uow.queue(write)

    def claim(
        self,
        now: datetime,
        lease_until: datetime,
        limit: int,
        busy: Mapping[UUID, int],
        limits: Mapping[UUID, int] | None = None,
    ) -> list[WebhookDelivery]:
        caps = dict(limits or {})
        full = {w for w, n in busy.items() if n >= caps.get(w, PER_ENDPOINT)}

        def edit(t: Tables) -> list[WebhookDelivery]:
            # As the adapter's claim: a bounded look at the oldest due, then at most
            # each endpoint's limit, counting what it has under way.
            due = [
                d
                for d in t.deliveries.values()
                if d.done_at is None
                and d.available_at <= now
                and _enabled(t, d.webhook_id)
                and d.webhook_id not in full
            ]
            due.sort(key=lambda d: (d.available_at, d.id))
            taken = Counter(busy)
            chosen: list[DeliveryRow] = []
            for d in due[: max(8 * limit, 64)]:
                taken[d.webhook_id] += 1
                if taken[d.webhook_id] <= caps.get(d.webhook_id, PER_ENDPOINT):
                    chosen.append(d)
            out: list[WebhookDelivery] = []
            for d in chosen[:limit]:
                t.deliveries[d.id] = replace(d, available_at=lease_until)
                hook = t.webhooks[d.webhook_id]
                out.append(
                    WebhookDelivery(
                        d.id,
                        d.webhook_id,
                        d.message_id,
                        hook.endpoint.url,
                        hook.secret,
                        d.payload,
                        d.created_at,
                        d.attempts,
                    )
                )
            return out

        return self._uow.at_once(edit)

    def record(
        self,
        attempts: Sequence[Recorded],
        *,
        disable_failing_since: datetime,
    ) -> None:
        if not attempts:
            return
        recorded = list(attempts)

        def write(c: Commit) -> None:
            c.after.recorded.extend(recorded)
            for d, a, _ in recorded:
                ident = c.db._attempt_id()
                c.after.attempts[ident] = AttemptRow(ident, d.webhook_id, a)
                c.webhook(d.webhook_id, "webhook_attempts")
            for d, a, done in recorded:
                row = c.before.deliveries.get(d.id)
                if done:
                    c.after.deliveries.pop(d.id, None)  # delivered or given up: it leaves
                elif row is not None:
                    c.after.deliveries[d.id] = replace(
                        row,
                        attempts=row.attempts + 1,
                        last_error=a.error,
                        available_at=a.next_attempt_at or row.available_at,
                    )
            last = {d.webhook_id: a for d, a, _ in recorded}
            for webhook_id, a in last.items():
                hook = c.before.webhooks.get(webhook_id)
                if hook is None:
                    continue
                e, ok = hook.endpoint, a.status is not None and 200 <= a.status < 300
                if ok and e.failing_since is None:
                    continue
                since = e.failing_since or a.attempted_at
                stays = ok or e.disabled_at is not None or since >= disable_failing_since
                reason = (
                    e.disabled_reason
                    if stays
                    else None
                    if e.failing_since is None
                    else f"every delivery failed since {_as_text(e.failing_since)}"
                )
                c.after.webhooks[webhook_id] = replace(
                    hook,
                    endpoint=replace(
                        e,
                        failing_since=None if ok else since,
                        disabled_at=e.disabled_at if stays else a.attempted_at,
                        disabled_reason=reason,
                    ),
                )

        self._uow.queue(write)

    def next_due(self, busy: Sequence[UUID]) -> datetime | None:
        t = self._uow.read()
        return min(
            (
                d.available_at
                for d in t.deliveries.values()
                if d.done_at is None and _enabled(t, d.webhook_id) and d.webhook_id not in busy
            ),
            default=None,
        )

    def forget(self, before: datetime, limit: int) -> int:
        def edit(t: Tables) -> int:
            done = sorted(
                i for i, d in t.deliveries.items() if d.done_at is not None and d.done_at < before
            )[:limit]
            logged = sorted(i for i, a in t.attempts.items() if a.attempt.attempted_at < before)
            for ident in done:
                del t.deliveries[ident]
            for ident in logged[:limit]:
                del t.attempts[ident]
            return len(done) + len(logged[:limit])

        return self._uow.at_once(edit)


def _enabled(tables: Tables, webhook_id: UUID) -> bool:
    row = tables.webhooks.get(webhook_id)
    return row is not None and row.endpoint.disabled_at is None


def _as_text(moment: datetime) -> str:
    """A timestamptz as PostgreSQL's ``::text`` gives it (in UTC)."""
    text = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f").rstrip("0").rstrip(".")
    return f"{text}+00"
