"""The relay's own rules (service/application/live/relay.py), on a commit log and a bus
of this test's: commands announced whole and in commit order, the position saved only
once the bus took them, one relay at a time. tests/integration/test_relay.py runs it on
PostgreSQL and Redis."""

from __future__ import annotations

import threading
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from uuid import UUID, uuid4

import pytest

from service.application.live.relay import AnnounceError, Relay, commits
from service.application.ports import Actor, ActorKind, Position, StoredEvent
from tests.support.waiting import wait_for

GAME_A, GAME_B = uuid4(), uuid4()


def event(game_id: UUID, seq: int) -> StoredEvent:
    return StoredEvent(
        game_id,
        seq,
        "CardPlayed",
        1,
        {},
        datetime.now(UTC),
        Actor(ActorKind.SEAT, 0),
        None,
        None,
        "",
        "",
    )


class Log:
    """Committed rows in commit order, the lock (held by one log object at a time, as
    PostgreSQL's advisory lock is by one connection) and the saved position."""

    lock = threading.Lock()

    def __init__(self, rows: list[tuple[Position, StoredEvent]], saved: Position | None = None):
        self.rows = rows
        self.saved = saved
        self.held = False
        self.seated: dict[UUID, list[UUID]] = {}

    def hold(self) -> bool:
        if not self.held:
            self.held = Log.lock.acquire(blocking=False)
        return self.held

    def start(self) -> Position | None:
        return self.saved or (self.rows[-1][0] if self.rows else None)

    def committed_after(
        self, after: Position | None, limit: int
    ) -> list[tuple[Position, StoredEvent]]:
        key = (-1, -1) if after is None else (after.transaction, after.position)
        return [r for r in self.rows if (r[0].transaction, r[0].position) > key][:limit]

    def players(self, games: Collection[UUID]) -> list[UUID]:
        return sorted({p for g in games for p in self.seated.get(g, ())})

    def save(self, position: Position) -> None:
        self.saved = position

    def reset(self) -> None:
        if self.held:
            self.held = False
            Log.lock.release()


class Bus:
    def __init__(self) -> None:
        self.heard: list[str] = []
        self.down = False

    def announce(self, payloads: Sequence[str]) -> None:
        if self.down:
            raise AnnounceError("connection refused")
        self.heard.extend(payloads)


def describe(events: Sequence[StoredEvent]) -> str:
    return f"{events[0].game_id} " + ",".join(str(e.seq) for e in events)


def rows(*commands: tuple[int, UUID, range]) -> list[tuple[Position, StoredEvent]]:
    """Rows of commands ``(transaction id, game, seqs)``, positions in append order."""
    made: list[tuple[Position, StoredEvent]] = []
    for transaction, game, seqs in commands:
        for seq in seqs:
            made.append((Position(transaction, len(made) + 1), event(game, seq)))
    return made


@pytest.fixture(autouse=True)
def free_lock() -> None:
    if Log.lock.locked():
        Log.lock.release()


def test_rows_are_grouped_by_transaction_and_game() -> None:
    found = commits(
        rows((10, GAME_A, range(1, 3)), (11, GAME_B, range(1, 2)), (12, GAME_A, range(3, 4)))
    )
    assert [(p.transaction, [e.seq for e in events]) for p, events in found] == [
        (10, [1, 2]),
        (11, [1]),
        (12, [3]),
    ]
    assert found[0][0] == Position(10, 2)  # the position of its last event


def test_commands_are_announced_whole_in_commit_order_and_the_position_saved() -> None:
    log = Log(rows((10, GAME_A, range(1, 3)), (11, GAME_B, range(1, 4)), (12, GAME_A, range(3, 4))))
    bus = Bus()
    relay = Relay(log, bus, describe, batch=4)
    log.saved = Position(0, 0)  # a relay before this one announced nothing yet
    assert relay.take_over()

    assert relay.step() == 2  # 4 rows read, but the second command may go on: held back
    assert bus.heard == [f"{GAME_A} 1,2"]
    assert log.saved == Position(10, 2)
    assert relay.step() == 3  # a whole batch again: its last command waits once more
    assert relay.step() == 1
    assert bus.heard[1:] == [f"{GAME_B} 1,2,3", f"{GAME_A} 3"]
    assert log.saved == Position(12, 6) == relay.position
    assert relay.step() == 0


def test_a_command_longer_than_a_batch_is_announced_in_parts() -> None:
    log = Log(rows((10, GAME_A, range(1, 6))), saved=Position(0, 0))
    bus = Bus()
    relay = Relay(log, bus, describe, batch=3)
    assert relay.take_over()
    relay.step()
    relay.step()
    assert bus.heard == [f"{GAME_A} 1,2,3", f"{GAME_A} 4,5"]


def test_a_first_relay_starts_at_the_end_of_the_log_and_saves_it_at_once() -> None:
    log = Log(rows((10, GAME_A, range(1, 3))))
    bus = Bus()
    relay = Relay(log, bus, describe)
    assert relay.take_over()
    # Saved before any batch: a relay that stops now and comes back goes on from here,
    # not from the end the log will have then.
    assert log.saved == Position(10, 2)
    assert relay.step() == 0  # what was committed before it is read from the store
    log.rows += [(Position(11, 3), event(GAME_A, 3))]
    relay.step()
    assert bus.heard == [f"{GAME_A} 3"]


def test_nothing_is_saved_while_the_bus_is_down_and_the_same_batch_goes_when_back() -> None:
    log = Log(rows((10, GAME_A, range(1, 3))), saved=Position(0, 0))
    bus = Bus()
    bus.down = True
    relay = Relay(log, bus, describe)
    assert relay.take_over()
    with pytest.raises(AnnounceError):
        relay.step()
    assert log.saved == Position(0, 0) and bus.heard == []
    bus.down = False
    relay.step()
    assert bus.heard == [f"{GAME_A} 1,2"] and log.saved == Position(10, 2)


def test_one_relay_announces_and_another_takes_over_from_its_position() -> None:
    committed = rows((10, GAME_A, range(1, 3)))
    first_log, second_log = Log(committed, saved=Position(0, 0)), Log(committed)
    bus = Bus()
    first = Relay(first_log, bus, describe, poll_seconds=0.001, takeover_seconds=0.001)
    second = Relay(second_log, bus, describe, poll_seconds=0.001, takeover_seconds=0.001)
    runs = [threading.Thread(target=r.run, daemon=True) for r in (first, second)]
    try:
        runs[0].start()
        wait_for(lambda: bus.heard == [f"{GAME_A} 1,2"], "the first command", 5)
        runs[1].start()
        committed.append((Position(11, 3), event(GAME_A, 3)))
        wait_for(lambda: len(bus.heard) == 2, "the second command", 5)
        assert not second.holding  # the lock is the first's

        wait_for(lambda: first_log.saved == Position(11, 3), "the first relay's save", 5)
        first.stop()
        runs[0].join(5)
        second_log.saved = first_log.saved  # one table in PostgreSQL
        wait_for(lambda: second.holding, "the second relay to take over", 5)
        committed.append((Position(12, 4), event(GAME_B, 1)))
        wait_for(lambda: len(bus.heard) == 3, "the third command", 5)
        assert bus.heard == [f"{GAME_A} 1,2", f"{GAME_A} 3", f"{GAME_B} 1"]  # none twice
    finally:
        first.stop()
        second.stop()
        for run in runs:
            if run.is_alive():
                run.join(5)


def test_the_players_of_a_batchs_games_are_announced_after_its_commands() -> None:
    alice, bob = uuid4(), uuid4()
    log = Log(rows((10, GAME_A, range(1, 3)), (11, GAME_B, range(1, 2))), saved=Position(0, 0))
    log.seated = {GAME_A: [alice, bob], GAME_B: [bob], uuid4(): [uuid4()]}
    bus = Bus()
    relay = Relay(log, bus, describe)
    assert relay.take_over()
    relay.step()
    assert bus.heard == [f"{GAME_A} 1,2", f"{GAME_B} 1", *sorted(f"p {p}" for p in (alice, bob))]
