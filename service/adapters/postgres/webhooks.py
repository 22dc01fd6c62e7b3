"""Webhook endpoints, their deliveries (rows of the outbox, kind ``webhook``) and the log
of every attempt.

Deliveries are written by the statement that appends the events causing them (one
INSERT … SELECT that matches the commit's webhook events with the endpoints that want
them), so a rolled-back command leaves none and a committed one is never forgotten.
Workers claim due deliveries under a lease (the row's ``available_at`` moves to the
lease's end at once), so one that dies mid-delivery leaves it to another: at least once.
A delivery leaves the outbox once it is delivered or given up; the log keeps its attempts.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.session import Session, Statement, json_text
from service.adapters.postgres.wakeups import CHANNEL as JOBS_CHANNEL
from service.application.jobs.source import OUTBOX_NOTE
from service.application.webhooks.ports import (
    PER_ENDPOINT,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
)

_ENDPOINT = "id, player_id, url, events, created_at, failing_since, disabled_at, disabled_reason"

_FAN_OUT = (
    # Each of the commit's webhook events, to the operators' endpoints and to those of the
    # players holding a seat of the game (for a turn: the seat that must act). Two index
    # lookups, so a commit that nobody listens to costs next to nothing. Scalar
    # parameters only, a row each (:func:`_fan_out`): lists would cost psycopg far more
    # to adapt, and PostgreSQL, not knowing their length, would plan the command's
    # statement anew at every execution instead of keeping one plan.
    "INSERT INTO outbox (kind, game_id, payload, created_at, available_at, webhook_id, "
    "message_id) "
    "SELECT 'webhook', %s, jsonb_build_object('type', e.type, 'timestamp', %s::text, "
    "'data', e.data), %s, %s, h.id, 'msg_' || replace(gen_random_uuid()::text, '-', '') "
    "FROM (VALUES {events}) AS e(type, data, seat) "
    "JOIN LATERAL ("
    "SELECT w.id FROM webhooks AS w WHERE w.player_id IS NULL "
    "AND w.disabled_at IS NULL AND e.type = ANY(w.events) "
    "UNION ALL "
    "SELECT w.id FROM (SELECT seat, player_id FROM seat_players WHERE game_id = %s{bound}"
    ") AS sp(seat, player_id) "
    "JOIN webhooks AS w ON w.player_id = sp.player_id "
    "WHERE (e.seat IS NULL OR sp.seat = e.seat){left} "
    "AND w.disabled_at IS NULL AND e.type = ANY(w.events)"
    ") AS h ON true RETURNING 1"  # the worker is told of new deliveries only if any
)
_EVENT = "(%s::text, %s::jsonb, %s::smallint)"


@functools.lru_cache(maxsize=64)
def _fan_out(events: int, bound: int, left: int) -> str:
    """The fan-out for so many events, seats bound in this commit and seats left to bots
    (one text for each such shape, so that each is prepared once)."""
    return _FAN_OUT.format(
        events=", ".join([_EVENT] * events),
        bound=" UNION ALL VALUES " + ", ".join(["(%s::smallint, %s::uuid)"] * bound)
        if bound
        else "",
        left=f" AND sp.seat NOT IN ({', '.join(['%s::smallint'] * left)})" if left else "",
    )


_CLAIM = (
    # The oldest due deliveries (a bounded look), at most each endpoint's limit under way
    # to it (PER_ENDPOINT unless the claimer raised it) counting those this worker has
    # under way already (the endpoints at their limit are left out of the look); the
    # rows another worker is claiming are skipped, and a row another claimed since this
    # statement's snapshot is re-checked when it is locked (READ COMMITTED re-evaluates
    # the locking part's WHERE on the newest version), so it is not taken twice. Each
    # claimed row is due again at the lease's end unless recorded first. A claim lost in
    # a crash of the server leaves its rows due as they were: it is committed without
    # waiting for the disk (synchronous_commit off, this statement's transaction only;
    # the ``lazy`` part runs because the UPDATE reads it).
    # The ids are handed on as arrays (ARRAY(...): each subquery runs once), not joined:
    # with the outbox's statistics stale (a queue grows faster than autoanalyze looks),
    # the planner once put a scan of the outbox outside the locking subquery and ran that
    # again for each of its rows, which took seconds a claim once the outbox held a few
    # thousand rows. Parameters, in order: the ids the claimer knows (busy or with a limit
    # of their own), how many each has under way, each one's limit, PER_ENDPOINT, now,
    # the ids at their limit, the look, the limit, now, the lease's end.
    "WITH lazy AS (SELECT set_config('synchronous_commit', 'off', true)), "
    "busy AS (SELECT * FROM unnest(%s::uuid[], %s::int[], %s::int[]) AS b(id, n, cap)), "
    "f AS MATERIALIZED (SELECT id FROM outbox WHERE id = ANY(ARRAY("
    "SELECT c.id FROM (SELECT d.id, d.available_at, row_number() OVER ("
    "PARTITION BY d.webhook_id ORDER BY d.available_at, d.id) + coalesce(b.n, 0) AS r, "
    "coalesce(b.cap, %s) AS cap FROM ("
    "SELECT o2.id, o2.webhook_id, o2.available_at FROM outbox AS o2 "
    "JOIN webhooks AS w2 ON w2.id = o2.webhook_id AND w2.disabled_at IS NULL "
    "WHERE o2.kind = 'webhook' AND o2.done_at IS NULL AND o2.available_at <= %s "
    "AND NOT (o2.webhook_id = ANY(%s::uuid[])) "
    "ORDER BY o2.available_at, o2.id LIMIT %s) AS d "
    "LEFT JOIN busy AS b ON b.id = d.webhook_id) AS c "
    "WHERE c.r <= c.cap ORDER BY c.available_at, c.id LIMIT %s)) "
    "AND done_at IS NULL AND available_at <= %s "
    "FOR UPDATE SKIP LOCKED) "
    "UPDATE outbox AS o SET available_at = %s FROM webhooks AS w, lazy "
    "WHERE o.id = ANY(ARRAY(SELECT id FROM f)) AND w.id = o.webhook_id "
    "AND w.disabled_at IS NULL "
    "RETURNING o.id, o.webhook_id, o.message_id, w.url, w.secret, o.payload, o.created_at, "
    "o.attempts"
)


def _ok(attempt: WebhookAttempt) -> bool:
    return attempt.status is not None and 200 <= attempt.status < 300


def _endpoint(r: Sequence[Any]) -> WebhookEndpoint:
    return WebhookEndpoint(r[0], r[1], r[2], tuple(r[3]), r[4], r[5], r[6], r[7])


class SqlWebhooks:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, endpoint: WebhookEndpoint, secret: str) -> None:
        e = endpoint
        self._session.write(
            Statement(
                "INSERT INTO webhooks (id, player_id, url, events, secret, created_at) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                (e.id, e.player_id, e.url, list(e.events), secret, e.created_at),
            )
        )

    def get(self, webhook_id: UUID) -> WebhookEndpoint | None:
        rows = self._session.fetch(
            f"SELECT {_ENDPOINT} FROM webhooks WHERE id = %s", [webhook_id], one_row=True
        )
        return _endpoint(rows[0]) if rows else None

    def of(self, player_id: UUID | None) -> list[WebhookEndpoint]:
        rows = self._session.fetch(
            f"SELECT {_ENDPOINT} FROM webhooks WHERE player_id IS NOT DISTINCT FROM %s "
            "ORDER BY created_at, id",
            [player_id],
        )
        return [_endpoint(r) for r in rows]

    def delete(self, webhook_id: UUID) -> None:
        self._session.write(Statement("DELETE FROM webhooks WHERE id = %s", (webhook_id,)))

    def attempts(self, webhook_id: UUID, limit: int) -> list[WebhookAttempt]:
        rows = self._session.fetch(
            "SELECT message_id, event_type, attempted_at, status, error, next_attempt_at "
            "FROM webhook_attempts WHERE webhook_id = %s ORDER BY id DESC LIMIT %s",
            [webhook_id, limit],
        )
        return [WebhookAttempt(*r) for r in rows]

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
        params: list[Any] = [game_id, now.isoformat(), now, now]
        for e in events:
            params += (e.type, json_text(e.data), e.seat)
        params.append(game_id)
        for seat, player_id in bound:
            params += (seat, player_id)
        params += left
        sql = _fan_out(len(events), len(bound), len(left))
        self._session.write(Statement(sql, params))
        # Sent by the commit's statement if it wrote a delivery, or published on the bus
        # (session.py ``notify``; before migration 0017, by a trigger on each row).
        self._session.notify(JOBS_CHANNEL, OUTBOX_NOTE, if_wrote=True)

    def claim(
        self,
        now: datetime,
        lease_until: datetime,
        limit: int,
        busy: Mapping[UUID, int],
        limits: Mapping[UUID, int] | None = None,
    ) -> list[WebhookDelivery]:
        # The look is bounded (a few times the claim: its cost grows with the look, not
        # with the backlog); an endpoint with many rows due fills it only until it is
        # busy, then the next claim passes it over.
        caps = dict(limits or {})
        known = list(busy.keys() | caps.keys())
        rows = self._session.fetch(
            _CLAIM,
            [
                known,
                [busy.get(w, 0) for w in known],
                [caps.get(w, PER_ENDPOINT) for w in known],
                PER_ENDPOINT,
                now,
                [w for w, n in busy.items() if n >= caps.get(w, PER_ENDPOINT)],
                max(8 * limit, 64),
                limit,
                now,
                lease_until,
            ],
        )
        return [WebhookDelivery(*r) for r in rows]

    def record(
        self,
        attempts: Sequence[tuple[WebhookDelivery, WebhookAttempt, bool]],
        *,
        disable_failing_since: datetime,
    ) -> None:
        if not attempts:
            return
        # Lost in a crash of the server, the attempts are made again: committed lazily.
        self._session.commit_lazily()
        self._session.write(
            Statement(
                "INSERT INTO webhook_attempts (webhook_id, message_id, event_type, "
                "attempted_at, status, error, next_attempt_at) SELECT * FROM unnest("
                "%s::uuid[], %s::text[], %s::text[], %s::timestamptz[], %s::int[], "
                "%s::text[], %s::timestamptz[])",
                (
                    [d.webhook_id for d, _, _ in attempts],
                    [a.message_id for _, a, _ in attempts],
                    [a.event_type for _, a, _ in attempts],
                    [a.attempted_at for _, a, _ in attempts],
                    [a.status for _, a, _ in attempts],
                    [a.error for _, a, _ in attempts],
                    [a.next_attempt_at for _, a, _ in attempts],
                ),
            )
        )
        # A delivery that is done (delivered, or given up) leaves the outbox: its attempts
        # stay in the log. Deleting writes less than updating (no new row version, no
        # index entry). One that is retried is due again at its next attempt.
        done = [d.id for d, _, finished in attempts if finished]
        if done:
            self._session.write(
                Statement("DELETE FROM outbox WHERE id = ANY(%s::bigint[])", (done,))
            )
        again = [(d, a) for d, a, finished in attempts if not finished]
        if again:
            self._session.write(
                Statement(
                    "UPDATE outbox AS o SET attempts = o.attempts + 1, last_error = v.error, "
                    "available_at = coalesce(v.next_at, o.available_at) "
                    "FROM unnest(%s::bigint[], %s::text[], %s::timestamptz[]) "
                    "AS v(id, error, next_at) WHERE o.id = v.id",
                    (
                        [d.id for d, _ in again],
                        [a.error for _, a in again],
                        [a.next_attempt_at for _, a in again],
                    ),
                )
            )
        # Each endpoint once (a row is updated once per statement), as its last attempt
        # here left it: a success clears ``failing_since`` even when the endpoint was not
        # failing at the claim (another worker may have recorded a failure since), so
        # every endpoint of the batch is looked at; only the failing ones are written.
        # The ids go in twice: ``= ANY`` lets the primary key find the rows.
        last = {d.webhook_id: a for d, a, _ in attempts}
        self._session.write(
            Statement(
                "UPDATE webhooks AS w SET "
                "failing_since = CASE WHEN v.ok THEN NULL "
                "ELSE coalesce(w.failing_since, v.at) END, "
                "disabled_at = CASE WHEN v.ok OR w.disabled_at IS NOT NULL "
                "OR coalesce(w.failing_since, v.at) >= %s THEN w.disabled_at ELSE v.at END, "
                "disabled_reason = CASE WHEN v.ok OR w.disabled_at IS NOT NULL "
                "OR coalesce(w.failing_since, v.at) >= %s THEN w.disabled_reason "
                "ELSE 'every delivery failed since ' || w.failing_since::text END "
                "FROM unnest(%s::uuid[], %s::bool[], %s::timestamptz[]) AS v(id, ok, at) "
                "WHERE w.id = v.id AND w.id = ANY(%s::uuid[]) "
                "AND (NOT v.ok OR w.failing_since IS NOT NULL)",
                (
                    disable_failing_since,
                    disable_failing_since,
                    list(last),
                    [_ok(a) for a in last.values()],
                    [a.attempted_at for a in last.values()],
                    list(last),
                ),
            )
        )

    def forget(self, before: datetime, limit: int) -> int:
        # Oldest first by id (the primary keys): each batch reads from the start of the
        # index and stops at ``limit``; rows still being retried are only passed over.
        rows = self._session.fetch(
            "WITH d AS (DELETE FROM outbox WHERE id IN (SELECT id FROM outbox "
            "WHERE kind = 'webhook' AND done_at < %s ORDER BY id LIMIT %s) RETURNING 1), "
            "a AS (DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts "
            "WHERE attempted_at < %s ORDER BY id LIMIT %s) RETURNING 1) "
            "SELECT (SELECT count(*) FROM d) + (SELECT count(*) FROM a)",
            [before, limit, before, limit],
            one_row=True,
        )
        gone: int = rows[0][0]
        return gone

    def next_due(self, busy: Sequence[UUID]) -> datetime | None:
        rows = self._session.fetch(
            "SELECT min(o.available_at) FROM outbox AS o JOIN webhooks AS w "
            "ON w.id = o.webhook_id WHERE o.kind = 'webhook' AND o.done_at IS NULL "
            "AND w.disabled_at IS NULL AND NOT (o.webhook_id = ANY(%s::uuid[]))",
            [list(busy)],
            one_row=True,
        )
        due: datetime | None = rows[0][0]
        return due
