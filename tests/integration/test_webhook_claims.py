"""Claiming webhook deliveries from the outbox (service/adapters/postgres/webhooks.py), on
a database of its own: the claim's plan runs each of its parts once, also when the
outbox's statistics say it is empty while it holds thousands of rows (as a queue's do
between two autoanalyze runs): a plan that ran its locking part again for every outbox
row made a claim take seconds. (What a claim takes is checked on the fakes and on
PostgreSQL alike by tests/contract/test_webhooks_ports.py.)"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from sqlalchemy import Engine, insert, text

from service.adapters import migrate
from service.adapters.postgres.engine import make_engine
from service.adapters.postgres.tables import games, outbox, webhooks
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.adapters.postgres.webhooks import _CLAIM
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


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def test_each_part_of_a_claim_runs_once_when_the_statistics_are_stale(engine: Engine) -> None:
    """The outbox analyzed empty, then 4,000 deliveries due to 2,000 endpoints: the
    generic plan (what a prepared statement runs after five executions) reads the outbox
    no more than once in each part of the statement, and claims what it should; so too
    when the claimer has deliveries under way and limits of its own for 100 endpoints."""
    with engine.begin() as conn:
        conn.execute(text("ANALYZE outbox"))
    to = endpoints(engine, 2000)
    ids = deliveries(engine, to, 2)
    known = "{" + ",".join(str(w) for w in to[:100]) + "}"
    ones, fours = "{" + ",".join(["1"] * 100) + "}", "{" + ",".join(["4"] * 100) + "}"
    numbered = iter(range(1, 11))
    prepared = re.sub("%s", lambda _: f"${next(numbered)}", _CLAIM)
    plans = []
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert raw is not None
        with raw.transaction(force_rollback=True):
            raw.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            raw.execute(
                "PREPARE claim_now (uuid[], int[], int[], int, timestamptz, uuid[], int, int, "
                "timestamptz, timestamptz) AS " + prepared
            )
            for busy in (("{}", "{}", "{}"), (known, ones, fours)):
                (row,) = raw.execute(  # EXECUTE takes no bound parameters: literals
                    "EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE claim_now "
                    f"('{busy[0]}', '{busy[1]}', '{busy[2]}', 2, '{NOW.isoformat()}', '{{}}', "
                    f"512, 64, '{NOW.isoformat()}', '{(NOW + LEASE).isoformat()}')"
                ).fetchall()
                (explained,) = row[0] if isinstance(row[0], list) else json.loads(row[0])
                plans.append(explained["Plan"])
            raw.execute("DEALLOCATE claim_now")
    # Each claims 64 (the second, the next oldest: the first's rows are under their lease
    # in this transaction).
    for plan in plans:
        assert plan["Node Type"] == "ModifyTable" and plan["Actual Rows"] == 64
        reads = [n for n in _nodes(plan) if n.get("Relation Name") == "outbox"]
        assert reads and all(n["Actual Loops"] <= 1 for n in reads), [
            (n["Node Type"], n["Actual Loops"]) for n in reads
        ]
    # What it claimed (rolled back since): the 64 oldest, each endpoint's first.
    assert claim(engine, NOW, 64) == ids[:64]
