"""The latest chat messages of the games this process streams, shared by their streams
(as recent.py shares commits): when a message is announced, the first stream of the
game to look reads the store once (every channel, as stored: sealed texts are opened as
each stream's message goes out), and the game's other streams here take the same rows.
Without it, N streams of a table cost N reads per message.

Whether what is held is the newest is told by the id the message's announcement carried
(service/application/live/hub.py ``announced``); a stream that knows of nothing newer
than what is held reads nothing."""

from __future__ import annotations

import threading
from collections import deque
from uuid import UUID

from service.application.chat.ports import CHANNELS, ChatMessage
from service.application.ports import UnitOfWorkFactory

KEEP = 64
"""Messages kept per watched game: a stream further behind reads the store itself."""
READ = 200


class _Watched:
    def __init__(self, newest: int) -> None:
        self.lock = threading.Lock()
        self.messages: deque[ChatMessage] = deque(maxlen=KEEP)
        self.newest = newest  # the game's messages up to this id are known
        # Those after this id (up to ``newest``) are all held: the newest when the first
        # stream began to watch, then the last one the deque let go. Ids come from one
        # sequence for every game, so a game's are not consecutive: gaps say nothing.
        self.floor = newest
        self.streams = 0

    def held_after(self, after: int) -> list[ChatMessage] | None:
        """The held messages after ``after``, or None when some of them may not be."""
        if after < self.floor:
            return None  # older than what is held: only the store knows
        return [m for m in self.messages if m.id > after]

    def add(self, message: ChatMessage) -> None:
        if len(self.messages) == KEEP:
            self.floor = self.messages[0].id  # let go: from it on, the store's
        self.messages.append(message)
        self.newest = message.id


class RecentChat:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._games: dict[UUID, _Watched] = {}

    def watch(self, game_id: UUID, newest: int) -> None:
        """A stream of the game opens here, having seen every message up to ``newest``."""
        with self._lock:
            watched = self._games.get(game_id)
            if watched is None:
                watched = self._games[game_id] = _Watched(newest)
            watched.streams += 1

    def unwatch(self, game_id: UUID) -> None:
        with self._lock:
            watched = self._games.get(game_id)
            if watched is not None:
                watched.streams -= 1
                if watched.streams <= 0:
                    del self._games[game_id]

    def after(
        self,
        uow: UnitOfWorkFactory,
        game_id: UUID,
        after: int,
        announced: int | None,
    ) -> list[ChatMessage]:
        """The game's messages after ``after`` (every channel), reading the store only
        when what is held may be behind: ``announced`` is the newest id announced (None:
        unknown, e.g. after the listener reconnected: the store is read)."""
        watched = self._games.get(game_id)
        if watched is None:
            return _read(uow, game_id, after)
        with watched.lock:
            if announced is not None and announced <= watched.newest:
                held = watched.held_after(after)
                if held is not None:
                    return held
            start = min(after, watched.newest)
            fresh = _read(uow, game_id, start)
            for m in fresh:
                if m.id > watched.newest:
                    watched.add(m)
            return [m for m in fresh if m.id > after]


def _read(uow: UnitOfWorkFactory, game_id: UUID, after: int) -> list[ChatMessage]:
    with uow() as u:
        return u.chat.page(game_id, CHANNELS, after, READ)
