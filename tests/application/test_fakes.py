"""The in-memory unit of work keeps the promises of the PostgreSQL adapters that the
handler tests rely on: transactions, keys, locks, snapshots, the global order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

import pytest

from service.application.games.ports import GameSummary
from service.application.integrity.chain import GENESIS, Origin, Unchained, link
from service.application.ports import SYSTEM, AppendConflictError, StoredEvent
from service.application.webhooks.ports import OutboxMessage
from service.application.write.ports import DuplicateKeyError, SealedRecord
from service.rules import GameConfig, Scoring, Variant
from tests.application.fakes import (
    CHAIN_KEYS,
    Database,
    DealerScriptExhaustedError,
    IntegrityViolation,
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


def test_writes_are_seen_by_others_only_once_committed(db: Database) -> None:
    game_id = new_game(db)
    with db.unit_of_work() as writer:
        writer.events.append(rows(game_id, after=1))
        assert len(writer.events.load(game_id)) == 2
        with db.unit_of_work() as other:
            assert len(other.events.load(game_id)) == 1
        writer.commit()
    with db.unit_of_work() as other:
        assert len(other.events.load(game_id)) == 2


def test_a_unit_of_work_left_without_commit_leaves_nothing(db: Database) -> None:
    game_id = new_game(db)
    with db.unit_of_work() as uow:
        uow.events.append(rows(game_id, after=1))
        uow.credentials.add(game_id, 0, "a" * 64, NOW)
        uow.idempotency.add("s", "k", SealedRecord("f", b"x"), NOW)
        uow.games.update(game_id, status="passing", version=2, updated_at=NOW)
    assert len(db.stream(game_id)) == 1
    assert db.committed.games[game_id].version == 1
    assert db.committed.credentials == {} and db.committed.idempotency == {}


def test_a_taken_seq_is_a_conflict_and_aborts_the_transaction(db: Database) -> None:
    game_id = new_game(db)
    with db.unit_of_work() as uow:
        with pytest.raises(AppendConflictError):
            uow.events.append(rows(game_id))  # seq 1 is committed
        with pytest.raises(TransactionError):
            uow.events.load(game_id)
    with db.unit_of_work() as uow:
        uow.events.append(rows(game_id, after=1))
        with pytest.raises(AppendConflictError):
            uow.events.append(rows(game_id, after=1))  # seq 2 is staged here


def test_events_need_their_games_row(db: Database) -> None:
    with db.unit_of_work() as uow, pytest.raises(IntegrityViolation):
        uow.events.append(rows(uuid4()))


def test_a_taken_seat_is_a_conflict_and_a_taken_key_a_duplicate(db: Database) -> None:
    game_id = new_game(db)
    with db.unit_of_work() as uow:
        uow.credentials.add(game_id, 1, "a" * 64, NOW)
        uow.idempotency.add("s", "k", SealedRecord("f", b"x"), NOW)
        uow.commit()
    with db.unit_of_work() as uow, pytest.raises(AppendConflictError):
        uow.credentials.add(game_id, 1, "b" * 64, NOW)
    with db.unit_of_work() as uow, pytest.raises(DuplicateKeyError):
        uow.idempotency.add("s", "k", SealedRecord("f", b"y"), NOW)
    with db.unit_of_work() as uow:
        assert uow.credentials.find("a" * 64) == (game_id, 1)


def test_a_lock_is_held_until_the_transaction_ends(db: Database) -> None:
    with db.unit_of_work() as holder:
        holder.idempotency.lock("s", "k")
        holder.idempotency.lock("s", "k")  # again, by the same transaction
        with db.unit_of_work() as twin, pytest.raises(WouldBlockError):
            twin.idempotency.lock("s", "k")
    with db.unit_of_work() as twin:
        twin.idempotency.lock("s", "k")


def test_a_snapshot_sees_one_state_and_writes_nothing(db: Database) -> None:
    game_id = new_game(db)
    with db.unit_of_work(snapshot=True) as snapshot:
        assert snapshot.games.get(game_id) is not None
        with db.unit_of_work() as writer:
            writer.events.append(rows(game_id, after=1))
            writer.games.update(game_id, status="passing", version=2, updated_at=NOW)
            writer.commit()
        assert len(snapshot.events.load(game_id)) == 1
        assert snapshot.games.get(game_id).version == 1  # type: ignore[union-attr]
        with pytest.raises(TransactionError):
            snapshot.events.append(rows(game_id, after=2))


def test_the_global_order_waits_for_transactions_still_running(db: Database) -> None:
    first, second = new_game(db), new_game(db)
    with db.unit_of_work() as early:
        early.events.append(rows(first, after=1))  # takes its transaction id first
        with db.unit_of_work() as late:
            late.events.append(rows(second, after=1))
            late.commit()
        with db.unit_of_work(snapshot=True) as reader:
            seen = [(e.game_id, e.seq) for _, e in reader.events.read_all(None, 10)]
        assert seen == [(first, 1), (second, 1)]  # not the late one: it is after `early`
        early.commit()
    with db.unit_of_work(snapshot=True) as reader:
        found = reader.events.read_all(None, 10)
        after = reader.events.read_all(found[1][0], 10)
    assert [(e.game_id, e.seq) for _, e in after] == [(first, 2), (second, 2)]


def test_the_outbox_gives_a_due_message_to_one_claimer(db: Database) -> None:
    message = OutboxMessage("webhook", {"n": 1}, NOW)
    with db.unit_of_work() as uow:
        uow.outbox.add([message], NOW)
        uow.commit()
    with db.unit_of_work() as worker:
        (claimed,) = worker.outbox.claim("webhook", NOW, 10)
        with db.unit_of_work() as other:
            assert other.outbox.claim("webhook", NOW, 10) == []  # skipped: locked
        worker.outbox.retry(claimed.id, NOW + timedelta(minutes=1), "timeout")
        worker.commit()
    with db.unit_of_work() as worker:
        assert worker.outbox.claim("webhook", NOW, 10) == []  # not due yet
        (again,) = worker.outbox.claim("webhook", NOW + timedelta(minutes=1), 10)
        assert again.attempts == 1
        worker.outbox.done(again.id, NOW)
        worker.commit()
    with db.unit_of_work() as worker:
        assert worker.outbox.claim("webhook", NOW + timedelta(days=1), 10) == []


def test_the_scripted_dealer_deals_in_order_and_then_fails() -> None:
    config = GameConfig(4, Scoring.BASIC, Variant.STANDARD)
    dealer = ScriptedDealer(ordered_deal())
    assert dealer.deal(config, 3, 1) == ordered_deal()
    with pytest.raises(DealerScriptExhaustedError):
        dealer.deal(config, 3, 2)
    assert dealer.asked == [(3, 1), (3, 2)]
