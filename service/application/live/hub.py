"""Waking what waits for a change: streams and long-polls of this process wait here, and
the process's one listener (service/adapters/postgres/listener.py, on PostgreSQL's
LISTEN/NOTIFY) publishes each committed change of a game or of a player's inbox.

A waiter subscribes *before* it reads the store, so a change committed between its read
and its wait still wakes it: nothing is missed, whatever the order. A wake-up says only
"look again"; what changed is read from the store by ``seq`` (or the inbox), so a
notification lost while the listener reconnects costs nothing: the listener wakes every
waiter once it listens again (:meth:`Hub.publish_all`).

Plain ``threading`` primitives: under gunicorn's gevent worker they are gevent's, so a
waiting stream holds neither an OS thread nor a database connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import TracebackType
from typing import Self
from uuid import UUID


def game_key(game_id: UUID) -> str:
    return f"g {game_id}"


def player_key(player_id: UUID) -> str:
    return f"p {player_id}"


def chat_key(game_id: UUID) -> str:
    """Announced with each chat message of the game, with the message's id."""
    return f"c {game_id}"


def block_key(player_id: UUID) -> str:
    """Announced when the player blocks or unblocks someone: their game streams read
    their blocks again (service/application/live/chat_stream.py)."""
    return f"b {player_id}"


def follow_key(player_id: UUID) -> str:
    """Announced when the player takes a seat of a public game: the streams of those who
    follow them look again (service/application/live/player_stream.py)."""
    return f"f {player_id}"


DEAF_POLL = 1.0
"""While the hub is deaf, how often its waiters look at the store (seconds)."""

LOBBY_KEY = "lobby"
"""Announced with every change of the lobby (one key: the lobby is one list)."""


def token_key(token_sha256: str) -> str:
    """Announced when a player's token is revoked: the streams it opened end."""
    return f"t {token_sha256}"


_NOTHING: frozenset[str] = frozenset()


class Subscription:
    """One waiter's interest in one key, until closed (use it as a context manager); and
    in the keys of what would end it (``ending``: a revoked token's), each of which only
    marks it :attr:`ended` when published; and in the ``also`` keys, each of which wakes
    it too and marks it :attr:`heard` (a player stream's followed players: ``follow_key``)."""

    def __init__(
        self, hub: Hub, key: str, ending: tuple[str, ...] = (), also: tuple[str, ...] = ()
    ) -> None:
        self.key = key
        self.also = frozenset(also) if also else _NOTHING  # (a call saved per long-poll)
        # ``also``: keys that wake it as ``key`` does (a game's chat for its stream, the
        # followed players for a player's stream).
        self.keys = (key, *also, *ending)
        self._hub = hub
        self._woken = threading.Event()
        self.heard = False
        """One of the ``also`` keys was announced, or anything may have been (the
        listener reconnected): the waiter clears it as it looks."""
        self.ended = False
        """What would end it was announced (its token was revoked)."""
        self.woken: set[str | None] = set()
        """The keys that woke it since :meth:`taken` (None: everything, a reconnect)."""
        self.recheck = False
        """Announcements may have been missed (the listener reconnected): whether it
        should end is for the store to say."""

    def wait(self, timeout: float) -> bool:
        """Block until a change is published for this key (True) or ``timeout`` seconds
        pass (False); a change published since the last wait returns at once."""
        woken = self._woken.wait(timeout)
        if woken:
            # Cleared only once woken: a change published as the wait timed out stays
            # for the next wait. One published before this clear is of a commit made
            # already, which the waiter's next read of the store sees.
            self._woken.clear()
        return woken

    @property
    def deaf(self) -> bool:
        """Nothing can wake it now (:attr:`Hub.deaf`): look at the store on a timer."""
        return self._hub.deaf

    @property
    def closing(self) -> bool:
        """The process is shutting down: end the stream so the client reconnects."""
        return self._hub.closing

    def wake(self, key: str | None = None) -> None:
        """Wake for a change of ``key`` (None: of anything, after a reconnect)."""
        self.woken.add(key)
        if key is None:
            self.recheck = self.heard = True
        elif key in self.also:
            self.heard = True
        elif key != self.key:
            self.ended = True
        self._woken.set()

    def taken(self) -> set[str | None]:
        """The keys that woke it since the last call (and forget them)."""
        woken, self.woken = self.woken, set()
        return woken

    def close(self) -> None:
        self._hub._remove(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class Hub:
    """This process's waiters, by key (``game_key`` / ``player_key``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, set[Subscription]] = {}
        self._announced: dict[str, int] = {}
        self._start: Callable[[], None] | None = None
        self.closing = False
        self.epoch = 0  # counts publish_all: after one, nothing announced may be trusted
        self.deaf = False
        """Nothing can be announced: the bus that carries the commits is away
        (service/adapters/bus.py). Waiters then look at the store every DEAF_POLL seconds
        instead of waiting to be woken."""

    def on_first_subscription(self, start: Callable[[], None]) -> None:
        """Call ``start`` (the listener's) when the first waiter subscribes."""
        self._start = start

    def subscribe(
        self, key: str, ending: tuple[str, ...] = (), also: tuple[str, ...] = ()
    ) -> Subscription:
        """Wait on ``key`` (and the keys of ``also``); the keys of ``ending`` end the
        subscription when published."""
        subscription = Subscription(self, key, ending, also)
        start = None
        with self._lock:
            for each in subscription.keys:
                self._waiting.setdefault(each, set()).add(subscription)
            start, self._start = self._start, None
        if start is not None:
            start()
        if self.closing:
            subscription.wake()
        return subscription

    def publish(self, key: str, version: int | None = None) -> None:
        """Wake the waiters of ``key``; ``version``: the game's version the commit left
        (kept while someone waits on the key, see :meth:`announced`)."""
        with self._lock:
            waiting = list(self._waiting.get(key, ()))
            if version is not None and waiting:
                self._announced[key] = max(version, self._announced.get(key, 0))
        for subscription in waiting:
            subscription.wake(key)

    def announced(self, key: str) -> int | None:
        """The newest version announced for ``key`` since someone waits on it (None: no
        version was announced)."""
        with self._lock:
            return self._announced.get(key)

    def publish_all(self) -> None:
        """Wake every waiter (the listener (re)connected: anything may have changed)."""
        with self._lock:
            self.epoch += 1
            waiting = {s for subs in self._waiting.values() for s in subs}
        for subscription in waiting:
            subscription.wake()

    def close(self) -> None:
        """The process is shutting down: every waiter wakes and sees ``closing``."""
        self.closing = True
        self.publish_all()

    def waiters(self) -> int:
        with self._lock:
            return len({s for subs in self._waiting.values() for s in subs})

    def _remove(self, subscription: Subscription) -> None:
        with self._lock:
            for key in subscription.keys:
                subs = self._waiting.get(key)
                if subs is not None:
                    subs.discard(subscription)
                    if not subs:
                        del self._waiting[key]
                        self._announced.pop(key, None)
