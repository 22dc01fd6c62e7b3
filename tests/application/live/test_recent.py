"""The commits a process's streams share: one read of the store per commit for all the
streams of a game, none for a commit made in the process, and the same messages as
when every stream read for itself."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from uuid import UUID

import pytest

from service.application.deps import Deps
from service.application.games.queries.views import public_view_at, seat_view_at
from service.application.identity.principals import Principal
from service.application.live import streams
from service.application.live.hub import game_key
from service.application.live.recent import RecentCommits
from service.application.live.streams import EventMessage, Stream, ViewMessage
from tests.application.fakes import FakeUnitOfWork
from tests.application.table import ANYONE, Game, Table


class CountingStore:
    """The fakes' units of work, counting the reads of new commits."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.reads = 0

    def __call__(self, *, snapshot: bool = False) -> FakeUnitOfWork:
        unit = self.table.db.unit_of_work(snapshot=snapshot)
        commits = unit.events.commits

        def counted(game_id: UUID, after: int) -> Any:
            self.reads += 1
            return commits(game_id, after)

        unit.events.commits = counted  # type: ignore[method-assign]
        return unit


@contextmanager
def counting(table: Table) -> Iterator[tuple[Deps, CountingStore]]:
    store = CountingStore(table)
    yield replace(table.deps, uow=store), store


def drain(stream: Stream[Any], version: int) -> list[Any]:
    """Messages up to the view at ``version``."""
    got = []
    for message in stream:
        got.append(message)
        if isinstance(message, ViewMessage) and message.view.version == version:
            return got
    raise AssertionError(f"the stream ended before version {version}")


def test_streams_of_one_game_share_one_read_per_commit(table: Table, game: Game) -> None:
    with counting(table) as (deps, store):
        viewers: list[Principal] = [ANYONE, *game.seats[:3]]
        opened = [streams.game_stream(deps, game.id, who, None) for who in viewers]
        for stream in opened:
            assert isinstance(next(stream), ViewMessage)
        # The table's commands are another process's (with recent commits of its own):
        # heard of by the notification, read once here.
        table.deps = replace(table.deps, recent=RecentCommits())
        version = table.pass_first_three(game, 1).version
        store.reads = 0
        for stream, who in zip(opened, viewers, strict=True):
            got = drain(stream, version)
            view = got[-1].view
            expected = (
                public_view_at(deps, game.id, version)
                if who is ANYONE
                else seat_view_at(deps, game.id, who, version)
            )
            assert view == expected
        assert store.reads == 1
        for stream in opened:
            stream.close()


def test_a_commit_made_in_the_process_needs_no_read(table: Table, game: Game) -> None:
    with counting(table) as (deps, store):
        stream = streams.game_stream(deps, game.id, game.seats[0], None)
        next(stream)
        table.deps = deps  # the table's commands are this process's
        version = table.pass_first_three(game, 2).version
        store.reads = 0
        got = drain(stream, version)
        assert [m.event.seq for m in got if isinstance(m, EventMessage)] == [version]
        assert store.reads == 0
        stream.close()


def test_after_the_listener_reconnects_the_store_is_read_again(table: Table, game: Game) -> None:
    with counting(table) as (deps, store):
        stream = streams.game_stream(deps, game.id, ANYONE, None, keepalive=0.01)
        next(stream)
        version = table.pass_first_three(game, 1).version
        drain(stream, version)
        store.reads = 0
        deps.changes.publish_all()  # announced versions may be stale now
        assert next(stream) == streams.KeepAlive()
        assert store.reads == 1
        stream.close()


def test_a_stream_behind_the_shared_commits_reads_its_own(table: Table, game: Game) -> None:
    """A stream that fell behind what the process holds gets exactly its missing
    commits, command by command."""
    with counting(table) as (deps, _):
        ahead = streams.game_stream(deps, game.id, ANYONE, None)
        behind = streams.game_stream(deps, game.id, ANYONE, None)
        first = next(ahead)
        assert isinstance(first, ViewMessage)
        start = first.view.version
        next(behind)
        versions = []
        for seat in range(4):
            versions.append(table.pass_first_three(game, seat).version)
            drain(ahead, versions[-1])
        for _ in range(12):  # more commands than the process keeps
            moved = table.play_turn(game)
            versions.append(moved.version)
            drain(ahead, versions[-1])
        got = drain(behind, versions[-1])
        views = [m.view.version for m in got if isinstance(m, ViewMessage)]
        assert views == versions
        events = [m.event.seq for m in got if isinstance(m, EventMessage)]
        assert events == list(range(start + 1, versions[-1] + 1))
        for stream in (ahead, behind):
            stream.close()
        assert deps.recent._games == {}


@pytest.mark.parametrize("version", [None, 3])
def test_an_announcement_with_or_without_a_version_wakes(
    table: Table, game: Game, version: int | None
) -> None:
    deps = table.deps
    with deps.changes.subscribe(game_key(game.id)) as waiting:
        deps.changes.publish(game_key(game.id), version)
        assert waiting.wait(0)
        assert deps.changes.announced(game_key(game.id)) == version
    assert deps.changes.announced(game_key(game.id)) is None  # forgotten with its waiters
