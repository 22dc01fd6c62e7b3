"""Loading a game's state: the cached fold plus the events stored after it."""

from __future__ import annotations

from uuid import UUID

from service.application.cache import Loaded, StateCache
from service.application.chain import GENESIS
from service.application.codec import decode
from service.application.errors import GameNotFoundError
from service.application.ports import UnitOfWork
from service.rules import INITIAL, fold

NEW_GAME = Loaded(INITIAL, 0, GENESIS)
"""A game before its first event."""


def load(uow: UnitOfWork, cache: StateCache, game_id: UUID, *, remember: bool = True) -> Loaded:
    """The game's current state: the cached one plus the events stored after it. With
    ``remember`` the result is cached: only for reads of committed events (a write
    transaction's own appends are not committed yet)."""
    cached = cache.get(game_id)
    rows = uow.events.load(game_id, after=cached.version if cached else 0)
    if not rows:
        if cached is None:
            raise GameNotFoundError(f"no game {game_id}")
        return cached
    start = cached or NEW_GAME
    loaded = Loaded(fold((decode(r) for r in rows), start.state), rows[-1].seq, rows[-1].hash)
    if remember:
        cache.put(game_id, loaded)
    return loaded


def load_at(uow: UnitOfWork, cache: StateCache, game_id: UUID, version: int) -> Loaded:
    """The game's state after event ``version`` (which must exist): the cached state when
    it is that one or an earlier one, plus the events up to ``version``."""
    cached = cache.get(game_id)
    if cached is not None and cached.version == version:
        return cached
    start = cached if cached is not None and cached.version < version else NEW_GAME
    rows = uow.events.load(game_id, after=start.version, upto=version)
    if start.version + len(rows) != version:
        raise GameNotFoundError(f"no version {version} of game {game_id}")
    if not rows:
        return start
    loaded = Loaded(fold((decode(r) for r in rows), start.state), version, rows[-1].hash)
    cache.put(game_id, loaded)
    return loaded


def current_version(uow: UnitOfWork, game_id: UUID) -> int:
    """The game's version as the games projection records it."""
    summary = uow.games.get(game_id)
    if summary is None:
        raise GameNotFoundError(f"no game {game_id}")
    return summary.version
