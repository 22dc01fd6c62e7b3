"""Loading a game's state: the cached fold (or else the game's stored snapshot) plus the
events stored after it, so the cost of a load does not grow with the game."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from service.application.errors import GameNotFoundError
from service.application.games.cache import Loaded, StateCache
from service.application.games.codec import decode
from service.application.games.ports import Snapshot
from service.application.integrity.chain import GENESIS
from service.application.ports import StoredEvent, UnitOfWork
from service.rules import (
    INITIAL,
    SNAPSHOT_VERSION,
    EventDataError,
    GameState,
    fold,
    snapshot_of,
    state_from_snapshot,
)

NEW_GAME = Loaded(INITIAL, 0, GENESIS)
"""A game before its first event."""

SNAPSHOT_EVERY = 64
"""A command whose events cross a multiple of this many leaves a snapshot of the game."""

KEEPS_THE_CLOCK = frozenset({"CardsPassed", "SeatLeft", "SeatErased"})
"""Events after which the seats that must act are the ones that had to before, since the
same time: another seat's pass, a bot taking a seat over. Every other event either
starts a turn (a deal, a card played, the exchange) or ends the game."""


def advance(start: Loaded, rows: Sequence[StoredEvent]) -> Loaded:
    """``start`` after the stored events ``rows`` (which follow it)."""
    if not rows:
        return start
    state = fold((decode(r) for r in rows), start.state)
    return Loaded(state, rows[-1].seq, rows[-1].hash, turn_since(start.turn_since, rows))


def turn_since(before: datetime | None, rows: Sequence[StoredEvent]) -> datetime | None:
    """When the current turns began, after ``rows`` (see :attr:`Loaded.turn_since`)."""
    for row in reversed(rows):
        if row.type not in KEEPS_THE_CLOCK:
            return row.recorded_at
    return before


def load(uow: UnitOfWork, cache: StateCache, game_id: UUID) -> Loaded:
    """The game's current state: the cached one (else its snapshot) plus the events
    stored after it; the result is cached. Call it only where the store holds committed
    events of the game alone (not in a transaction that appended to it)."""
    start = cache.get(game_id) or _snapshot(uow, game_id, None) or NEW_GAME
    rows = uow.events.load(game_id, after=start.version)
    if not rows and start.version == 0:
        raise GameNotFoundError(f"no game {game_id}")
    loaded = advance(start, rows)
    cache.put(game_id, loaded)
    return loaded


def load_at(uow: UnitOfWork, cache: StateCache, game_id: UUID, version: int) -> Loaded:
    """The game's state after event ``version`` (which must exist): the cached state (or
    else the snapshot) when it is that one or an earlier one, plus the events up to
    ``version``."""
    cached = cache.get(game_id)
    if cached is not None and cached.version == version:
        return cached
    if cached is not None and cached.version < version:
        start = cached
    else:
        start = _snapshot(uow, game_id, version) or NEW_GAME
    rows = uow.events.load(game_id, after=start.version, upto=version)
    if start.version + len(rows) != version:
        raise GameNotFoundError(f"no version {version} of game {game_id}")
    if not rows:
        return start
    loaded = advance(start, rows)
    cache.put(game_id, loaded)
    return loaded


TURN_SINCE = "turn_since"
"""The key under which a snapshot keeps :attr:`Loaded.turn_since` beside the state."""


def snapshot(game_id: UUID, loaded: Loaded) -> Snapshot:
    data = snapshot_of(loaded.state)
    since = loaded.turn_since
    data[TURN_SINCE] = since.isoformat() if since is not None else None
    return Snapshot(game_id, loaded.version, loaded.last_hash, SNAPSHOT_VERSION, data)


def _snapshot(uow: UnitOfWork, game_id: UUID, upto: int | None) -> Loaded | None:
    """The game's stored snapshot, if it is of this code's version and not past ``upto``;
    one that cannot be read is ignored like a missing one (it is only a cache)."""
    found = uow.snapshots.get(game_id, SNAPSHOT_VERSION)
    if found is None or (upto is not None and found.version > upto):
        return None
    try:
        state: GameState = state_from_snapshot(found.data)
        since = found.data[TURN_SINCE]
        turn = datetime.fromisoformat(since) if since is not None else None
    except (EventDataError, KeyError, TypeError, ValueError):
        return None
    return Loaded(state, found.version, found.last_hash, turn)


def current_version(uow: UnitOfWork, game_id: UUID) -> int:
    """The game's version as the games projection records it."""
    summary = uow.games.get(game_id)
    if summary is None:
        raise GameNotFoundError(f"no game {game_id}")
    return summary.version
