"""The event store's global order and the outbox, on a database of their own: a reader of
"everything after P" never skips a transaction that commits late (held open here by
hand, which no unit of work does: tests/contract checks the rest of the event store on
the fakes and on PostgreSQL alike), and outbox messages are written with the command
that causes them and taken by one worker at a time."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime
from uuid import UUID, uuid4

import pytest
from sqlalchemy import Engine, insert

from service.adapters import migrate
from service.adapters.postgres.engine import make_engine
from service.adapters.postgres.tables import events, games
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.application.games.ports import GameSummary
from service.application.integrity import chain
from service.application.ports import SYSTEM, Position
from tests.support.postgres import new_database

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
KEYS = chain.ChainKeys(b"event-store-tests-chain-key-32by")


@pytest.fixture(scope="module")
def engine(server_url: str) -> Iterator[Engine]:
    url = new_database(server_url, prefix="yokai_feeds")
    migrate.upgrade(url)
    built = make_engine(url)
    yield built
    built.dispose()


def begin_game(uow: SqlUnitOfWork, events: int = 1) -> UUID:
    """A game's row and its first events, written in ``uow`` (not committed)."""
    game_id = uuid4()
    uow.games.add(GameSummary(game_id, NOW, NOW, 4, "basic", "standard", "waiting", events))
    unchained = [chain.Unchained(f"E{i}", 1, {"i": i}, SYSTEM) for i in range(events)]
    uow.events.append(chain.link(game_id, 0, chain.GENESIS, unchained, NOW, chain.Origin(), KEYS))
    return game_id


def read_all(engine: Engine, after: Position | None = None) -> list[tuple[Position, UUID, int]]:
    with SqlUnitOfWork(engine, snapshot=True) as uow:
        return [(p, e.game_id, e.seq) for p, e in uow.events.read_all(after, limit=1000)]


def test_a_transaction_that_commits_late_is_not_skipped(engine: Engine) -> None:
    """T1 appends first but commits last. A reader must not hand out T2's events while T1
    may still commit below them: else a reader that moved past T2 would never see T1's.
    (A unit of work sends its writes and COMMIT together, so T1 is held open by hand: as a
    command's transaction is while it holds an idempotency key, or a slow network.)"""
    start = read_all(engine)
    cursor = start[-1][0] if start else None
    late = uuid4()
    with engine.connect() as t1:
        t1.execute(insert(games).values(summary_row(late)))
        t1.execute(insert(events).values(event_row(late)))
        with SqlUnitOfWork(engine) as t2:
            early = begin_game(t2)
            t2.commit()
        # T2 has committed, but T1 (an older transaction) is still running.
        assert read_all(engine, cursor) == []
        t1.commit()
    read = read_all(engine, cursor)
    assert [g for _, g, _ in read] == [late, early]


def summary_row(game_id: UUID) -> dict[str, object]:
    summary = GameSummary(game_id, NOW, NOW, 4, "basic", "standard", "waiting", 1)
    return dataclasses.asdict(summary)


def event_row(game_id: UUID) -> dict[str, object]:
    (row,) = chain.link(
        game_id, 0, chain.GENESIS, [chain.Unchained("E0", 1, {}, SYSTEM)], NOW, chain.Origin(), KEYS
    )
    values = dataclasses.asdict(row)
    actor = values.pop("actor")
    return {
        **values,
        "actor_kind": actor["kind"].value,
        "actor_seat": actor["seat"],
        "actor_id": actor["id"],
    }
