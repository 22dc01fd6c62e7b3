"""What is the fakes' own: how a fake unit of work fails where PostgreSQL would abort or
wait, the outbox, and the scripted dealer. What the fakes share with the PostgreSQL
adapters is checked on both by the contract suite (tests/contract)."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID, uuid4

import pytest

from service.application.games.ports import GameSummary
from service.application.integrity.chain import GENESIS, Origin, Unchained, link
from service.application.ports import SYSTEM, AppendConflictError, StoredEvent
from service.rules import GameConfig, Scoring, Variant
from tests.application.fakes import (
    CHAIN_KEYS,
    Database,
    DealerScriptExhaustedError,
    ScriptedDealer,
    TransactionError,
    WouldBlockError,
)
from tests.application.table import ordered_deal

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def rows(game_id: UUID, after: int = 0, count: int = 1) -> list[StoredEvent]:
    events = [Unchained("SeatJoined", 1, {"seat": n}, SYSTEM) for n in range(count)]
    return link(game_id, after, GENESIS, events, NOW, Origin(), CHAIN_KEYS)


def new_game(db: Database, *, events: int = 1) -> UUID:
    game_id = uuid4()
    with db.unit_of_work() as uow:
        uow.games.add(GameSummary(game_id, NOW, NOW, 4, "basic", "standard", "waiting", events))
        uow.events.append(rows(game_id, count=events))
        uow.commit()
    return game_id


def test_a_failed_commit_ends_the_unit_of_work(db: Database) -> None:
    """As PostgreSQL aborts a transaction whose statement failed: whatever the unit of
    work is asked after that is refused (the service only leaves it)."""
    game_id = new_game(db)
    with db.unit_of_work() as uow:
        uow.events.append(rows(game_id))  # seq 1 is committed
        with pytest.raises(AppendConflictError):
            uow.commit()
        with pytest.raises(TransactionError):
            uow.events.load(game_id)


def test_a_twin_that_would_wait_for_a_held_key_fails_at_once(db: Database) -> None:
    """PostgreSQL would make it wait until the holder ends; with one thread that would
    be for ever."""
    with db.unit_of_work() as holder:
        holder.idempotency.lock("s", "k")
        holder.idempotency.lock("s", "k")  # again, by the same transaction
        with db.unit_of_work() as twin, pytest.raises(WouldBlockError):
            twin.idempotency.lock("s", "k")
    with db.unit_of_work() as twin:
        twin.idempotency.lock("s", "k")


def test_the_scripted_dealer_deals_in_order_and_then_fails() -> None:
    config = GameConfig(4, Scoring.BASIC, Variant.STANDARD)
    dealer = ScriptedDealer(ordered_deal())
    assert dealer.deal(config, 3, 1) == ordered_deal()
    with pytest.raises(DealerScriptExhaustedError):
        dealer.deal(config, 3, 2)
    assert dealer.asked == [(3, 1), (3, 2)]
