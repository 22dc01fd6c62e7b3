"""Claiming webhook deliveries from the outbox (service/adapters/postgres/webhooks.py), on
a database of its own: the oldest due first, at most PER_ENDPOINT of an endpoint, none of
a busy or disabled endpoint, each under a lease that keeps it from every other claim,
and two workers never given the same delivery. The claim's plan runs each of its parts
once, also when the outbox's statistics say it is empty while it holds thousands of rows
(as a queue's do between two autoanalyze runs): a plan that ran its locking part again
for every outbox row made a claim take seconds."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from sqlalchemy import Engine, insert, text, update

from service.adapters import migrate
from service.adapters.postgres.engine import make_engine
from service.adapters.postgres.tables import games, outbox, webhooks
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.adapters.postgres.webhooks import _CLAIM, PER_ENDPOINT
from tests.support.postgres import new_database

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
LEASE = timedelta(seconds=60)


@pytest.fixture
def engine(server_url: str) -> Iterator[Engine]:
    url = new_database(server_url, prefix="yokai_claims")
    migrate.upgrade(url)
    built = make_engine(url)
    with built.begin() as conn:
        # Statistics stay as the test leaves them: no autoanalyze in between.
        conn.execute(text("ALTER TABLE outbox SET (autovacuum_enabled = false)"))
    yield built
    built.dispose()


def endpoints(engine: Engine, count: int) -> list[UUID]:
    ids = [uuid4() for _ in range(count)]
    with engine.begin() as conn:
        conn.execute(
            insert(webhooks),
            [
                {"id": i, "player_id": None, "url": f"https://h{n}.test/", "events": ["turn"],
                 "secret": "whsec_x", "created_at": NOW}
                for n, i in enumerate(ids)
            ],
        )  # fmt: skip
    return ids


def deliveries(engine: Engine, to: list[UUID], each: int, start: datetime = NOW) -> list[int]:
    """``each`` due deliveries to every endpoint of ``to``, one a millisecond, round the
    endpoints; their ids, oldest first."""
    game_id = uuid4()
    rows = []
    for n in range(each * len(to)):
        at = start - timedelta(seconds=60) + timedelta(milliseconds=n)
        rows.append(
            {"kind": "webhook", "game_id": game_id, "payload": {"type": "turn"},
             "created_at": at, "available_at": at, "webhook_id": to[n % len(to)],
             "message_id": f"msg_{n}"}
        )  # fmt: skip
    with engine.begin() as conn:
        conn.execute(
            insert(games),
            {"id": game_id, "created_at": NOW, "updated_at": NOW, "players": 4,
             "scoring": "basic", "variant": "standard", "status": "waiting", "version": 0},
        )  # fmt: skip
        result = conn.execute(insert(outbox).returning(outbox.c.id), rows)
        return [r[0] for r in result]


def claim(
    engine: Engine, at: datetime, limit: int, busy: dict[UUID, int] | None = None
) -> list[int]:
    with SqlUnitOfWork(engine) as uow:
        got = uow.webhooks.claim(at, at + LEASE, limit, busy or {})
        uow.commit()
    return [d.id for d in got]


def test_the_oldest_due_come_first_at_most_two_an_endpoint(engine: Engine) -> None:
    a, b, c = endpoints(engine, 3)
    ids = deliveries(engine, [a, a, a, a, b, c], 1)  # a: 4 deliveries, b and c: 1 each
    got = claim(engine, NOW, limit=10)
    assert PER_ENDPOINT == 2
    assert got == [ids[0], ids[1], ids[4], ids[5]]  # a's first two, then b's and c's


def test_a_busy_or_disabled_endpoint_is_passed_over(engine: Engine) -> None:
    busy, off, free = endpoints(engine, 3)
    deliveries(engine, [busy, off, free], 1)
    with engine.begin() as conn:
        conn.execute(update(webhooks).where(webhooks.c.id == off).values(disabled_at=NOW))
    with SqlUnitOfWork(engine) as uow:
        got = uow.webhooks.claim(NOW, NOW + LEASE, 10, {busy: 2})
        uow.commit()
    assert [d.webhook_id for d in got] == [free]


def test_what_an_endpoint_has_under_way_counts_against_its_limit(engine: Engine) -> None:
    one, none = endpoints(engine, 2)
    ids = deliveries(engine, [one, none], 3)  # one: ids 0, 2, 4; none: 1, 3, 5
    assert claim(engine, NOW, 10, {one: 1}) == [ids[0], ids[1], ids[3]]


def test_a_claimed_delivery_is_left_alone_until_its_lease_ends(engine: Engine) -> None:
    (one,) = endpoints(engine, 1)
    (first,) = deliveries(engine, [one], 1)
    assert claim(engine, NOW, 10) == [first]
    assert claim(engine, NOW + LEASE - timedelta(seconds=1), 10) == []
    assert claim(engine, NOW + LEASE, 10) == [first]  # the claimer stopped: another's turn


def test_two_workers_claiming_at_once_never_get_the_same_delivery(engine: Engine) -> None:
    ids = deliveries(engine, endpoints(engine, 20), 2)
    with SqlUnitOfWork(engine) as a, SqlUnitOfWork(engine) as b:
        first = a.webhooks.claim(NOW, NOW + LEASE, 15, {})  # not committed yet
        second = b.webhooks.claim(NOW, NOW + LEASE, 100, {})
        a.commit()
        b.commit()
    taken = [d.id for d in first] + [d.id for d in second]
    assert len(first) == 15 and len(taken) == len(set(taken)) == len(ids)


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def test_each_part_of_a_claim_runs_once_when_the_statistics_are_stale(engine: Engine) -> None:
    """The outbox analyzed empty, then 4,000 deliveries due to 2,000 endpoints: the
    generic plan (what a prepared statement runs after five executions) reads the outbox
    no more than once in each part of the statement, and claims what it should."""
    with engine.begin() as conn:
        conn.execute(text("ANALYZE outbox"))
    ids = deliveries(engine, endpoints(engine, 2000), 2)
    numbered = iter(range(1, 10))
    prepared = re.sub("%s", lambda _: f"${next(numbered)}", _CLAIM)
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert raw is not None
        with raw.transaction(force_rollback=True):
            raw.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            raw.execute(
                "PREPARE claim_now (uuid[], int[], timestamptz, uuid[], int, int, int, "
                "timestamptz, timestamptz) AS " + prepared
            )
            (row,) = raw.execute(  # EXECUTE takes no bound parameters: literals
                "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE claim_now "
                f"('{{}}', '{{}}', '{NOW.isoformat()}', '{{}}', 512, 2, 64, '{NOW.isoformat()}', "
                f"'{(NOW + LEASE).isoformat()}')"
            ).fetchall()
            raw.execute("DEALLOCATE claim_now")
    (explained,) = row[0] if isinstance(row[0], list) else json.loads(row[0])
    plan = explained["Plan"]
    assert plan["Node Type"] == "ModifyTable" and plan["Actual Rows"] == 64
    reads = [n for n in _nodes(plan) if n.get("Relation Name") == "outbox"]
    assert reads and all(n["Actual Loops"] <= 1 for n in reads), [
        (n["Node Type"], n["Actual Loops"]) for n in reads
    ]
    # What it claimed (rolled back since): the 64 oldest, each endpoint's first.
    assert claim(engine, NOW, 64) == ids[:64]
