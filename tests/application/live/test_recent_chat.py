"""The chat messages a process's game streams share (service/application/live/
recent_chat.py): one read of the store per announced message for all the readers of a
game, none while nothing newer was announced, and a reader further behind than what is
held reads the store itself."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from uuid import UUID, uuid4

from service.application.chat.ports import TABLE, ChatMessage
from service.application.live.recent_chat import KEEP, RecentChat
from tests.application.fakes import Database, FakeUnitOfWork

GAME = uuid4()
AT = datetime(2026, 11, 28, tzinfo=UTC)


class Counting:
    def __init__(self, db: Database) -> None:
        self.db = db
        self.reads = 0

    def __call__(self, *, snapshot: bool = False) -> FakeUnitOfWork:
        unit = self.db.unit_of_work(snapshot=snapshot)
        page = unit.chat.page

        def counted(game_id: UUID, *args: Any) -> Any:
            self.reads += 1
            return page(game_id, *args)

        unit.chat.page = counted  # type: ignore[method-assign,assignment]
        return unit


def message(n: int) -> ChatMessage:
    return ChatMessage(n, GAME, AT, TABLE, 0, None, "Seat 1", f"m{n}", None)


def test_many_readers_of_a_game_share_one_read_per_message() -> None:
    db = Database()
    store = Counting(db)
    recent = RecentChat()
    for _ in range(200):
        recent.watch(GAME, 0)
    db.chat.append((message(1), "s"))
    got = [recent.after(store, GAME, 0, 1) for _ in range(200)]
    assert store.reads == 1
    assert all([m.id for m in g] == [1] for g in got)
    # Nothing newer announced: nothing read, nothing given.
    assert recent.after(store, GAME, 1, 1) == [] and store.reads == 1
    db.chat.append((message(2), "s"))
    assert [m.id for m in recent.after(store, GAME, 1, 2)] == [2] and store.reads == 2
    # Unsure (no announcement trusted): the store is read.
    assert [m.id for m in recent.after(store, GAME, 1, None)] == [2] and store.reads == 3


def test_a_reader_behind_what_is_held_reads_the_store_and_the_last_reader_frees_it() -> None:
    db = Database()
    store = Counting(db)
    recent = RecentChat()
    recent.watch(GAME, 0)
    for n in range(1, KEEP + 11):
        db.chat.append((message(n), "s"))
    newest = KEEP + 10
    assert len(recent.after(store, GAME, 0, newest)) == newest
    reads = store.reads
    behind = recent.after(store, GAME, 2, newest)
    assert [m.id for m in behind] == list(range(3, newest + 1))
    assert store.reads == reads + 1  # the first ones were no longer held
    recent.unwatch(GAME)
    assert recent.after(store, GAME, newest - 1, newest)[0].id == newest
    assert store.reads == reads + 2  # nobody watches: read each time


def test_a_games_ids_with_gaps_are_held_all_the_same() -> None:
    """Ids come from one sequence for every game: a game's first message may be 1000.
    The readers that went past the newest when they began still share one read."""
    db = Database()
    store = Counting(db)
    recent = RecentChat()
    for _ in range(200):
        recent.watch(GAME, 0)
    db.chat.append((message(1000), "s"))
    got = [recent.after(store, GAME, 0, 1000) for _ in range(200)]
    assert store.reads == 1 and all([m.id for m in g] == [1000] for g in got)
