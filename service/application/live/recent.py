"""The latest commits of the games this process streams, shared by their streams.

Without it each stream of a game read the new events from the store and folded them
itself: N streams of a game cost N reads (and N folds) per commit. Here the first
stream to look reads and folds once, and the others of the process take the same
commits; a command made in this process hands its commit over directly, so its
streams here read nothing at all. Whether what is held is the newest is told by the
version the commit's notification announced (service/application/live/hub.py); when
no version was announced (a listener that reconnected, a notification without one)
the store is read.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from service.application.games.cache import Loaded
from service.application.games.loading import advance
from service.application.live.hub import Hub, game_key
from service.application.ports import StoredEvent, UnitOfWorkFactory

KEEP = 8
"""Commits kept per watched game: a stream further behind reads the store itself."""


@dataclass(frozen=True, slots=True)
class Commit:
    """One command's events, and the game after them."""

    rows: tuple[StoredEvent, ...]
    loaded: Loaded


class _Watched:
    def __init__(self, epoch: int, loaded: Loaded) -> None:
        self.lock = threading.Lock()
        self.commits: deque[Commit] = deque(maxlen=KEEP)
        self.last = loaded  # the newest state known: of the last commit, or the first seen
        # The hub's epoch since which what is held is known to be complete up to the
        # versions the hub announces (a reconnect of the listener starts a new one).
        self.epoch = epoch
        self.streams = 0

    def base(self) -> int:
        """The version the held commits start after."""
        return self.commits[0].rows[0].seq - 1 if self.commits else self.last.version

    def add(self, commit: Commit) -> None:
        first = commit.rows[0].seq
        if first <= self.last.version:
            return  # held already
        if first > self.last.version + 1:  # a gap: start again from this one
            self.commits.clear()
        self.commits.append(commit)
        self.last = commit.loaded


class RecentCommits:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[UUID, _Watched] = {}

    def watch(self, game_id: UUID, epoch: int, loaded: Loaded) -> None:
        """A stream of the game opens in this process, at ``loaded`` (``epoch``: the
        hub's, now)."""
        with self._lock:
            watched = self._games.get(game_id)
            if watched is None:
                watched = self._games[game_id] = _Watched(epoch, loaded)
            watched.streams += 1

    def unwatch(self, game_id: UUID) -> None:
        with self._lock:
            watched = self._games.get(game_id)
            if watched is not None:
                watched.streams -= 1
                if watched.streams <= 0:
                    del self._games[game_id]

    def watching(self, game_id: UUID) -> bool:
        return game_id in self._games

    def committed(self, game_id: UUID, rows: Sequence[StoredEvent], loaded: Loaded) -> None:
        """A command of this process committed ``rows``, leaving the game at ``loaded``."""
        watched = self._games.get(game_id)
        if watched is None or not rows:
            return
        with watched.lock:
            watched.add(Commit(tuple(rows), loaded))

    def offer(self, game_id: UUID, rows: Sequence[StoredEvent]) -> None:
        """A commit's events, as its notification carried them: kept (folded once) when
        they follow the newest state held, else left for the streams to read."""
        watched = self._games.get(game_id)
        if watched is None or not rows:
            return
        with watched.lock:
            last = watched.last
            if rows[0].seq != last.version + 1:
                return
            watched.add(Commit(tuple(rows), advance(last, rows)))

    def after(
        self, uow: UnitOfWorkFactory, hub: Hub, game_id: UUID, loaded: Loaded
    ) -> list[Commit]:
        """The commits after ``loaded``, oldest first, each with the state it left."""
        watched = self._games.get(game_id)
        if watched is None:
            return _read(uow, game_id, loaded)
        with watched.lock:  # one read for all the streams of the game
            epoch = hub.epoch
            if loaded.version < watched.base():
                # Behind what is held: a read of its own, which also brings the newest.
                commits = _read(uow, game_id, loaded)
                for commit in commits:
                    watched.add(commit)
                watched.epoch = epoch
                return commits
            announced = hub.announced(game_key(game_id))
            newest = watched.last.version
            held = [c for c in watched.commits if c.loaded.version > loaded.version]
            if watched.epoch != epoch or announced is None or newest < announced:
                if newest < loaded.version:
                    held, start = [], loaded
                else:
                    start = watched.last
                read = _read(uow, game_id, start)
                for commit in read:
                    watched.add(commit)
                watched.epoch = epoch
                # What was held and what was read, not what the deque keeps: a read
                # of more than KEEP commits pushes the oldest out of it.
                return held + read
            return held


def _read(uow: UnitOfWorkFactory, game_id: UUID, loaded: Loaded) -> list[Commit]:
    with uow() as unit:
        groups = unit.events.commits(game_id, loaded.version)
    commits = []
    for rows in groups:
        loaded = advance(loaded, rows)
        commits.append(Commit(tuple(rows), loaded))
    return commits
