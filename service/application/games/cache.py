"""Folded game states kept in memory, so a command reads only the newest events."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from service.rules import GameState


@dataclass(frozen=True, slots=True)
class Loaded:
    """A game's state folded up to ``version``, and the hash of that event.

    ``turn_since``: when the seats that must act now began to (the recording time of the
    last event that gave a seat a new turn): turn clocks run from it. None before any.
    """

    state: GameState
    version: int
    last_hash: str
    turn_since: datetime | None = None


class StateCache:
    """Folded states by game: a disposable snapshot cache.

    Events are immutable and numbered without gaps, so a cached state plus the stored
    events after its version is the full replay (tests/integration/test_state_cache.py).
    Each worker process has its own; thread-safe; least recently used goes first.
    """

    def __init__(self, capacity: int = 2048) -> None:
        self._items: OrderedDict[UUID, Loaded] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def get(self, game_id: UUID) -> Loaded | None:
        with self._lock:
            item = self._items.get(game_id)
            if item is not None:
                self._items.move_to_end(game_id)
            return item

    def put(self, game_id: UUID, loaded: Loaded) -> None:
        if self._capacity <= 0:
            return
        with self._lock:
            current = self._items.get(game_id)
            if current is not None and current.version >= loaded.version:
                return
            self._items[game_id] = loaded
            self._items.move_to_end(game_id)
            while len(self._items) > self._capacity:
                self._items.popitem(last=False)
