"""The keys a process has read, kept while it hears every destruction of a key.

Opening an answer's sealed names needs their keys. Reading them from the store for every
answer was a round trip and half a millisecond of the process's CPU per answer
(docs/benchmarks.md). This cache keeps them in the process, which is safe only while
the process hears, at once, of every key destroyed: :class:`SqlKeyVault
<service.adapters.postgres.privacy.SqlKeyVault>` announces each destruction on the
channel ``yokai_keys`` in the destroying transaction (so the announcement and the
destruction commit together), and this cache's own listening connection drops what it
hears named. While that connection is not listening (not yet started, lost, being
re-established) the cache holds nothing and every lookup goes to the store; each time
it listens again it starts empty, since what was destroyed meanwhile was not heard.

Beside each key, the values its tokens opened to in this process (:meth:`KeyCache.opened`):
a name is decrypted once while its key is held, and what it opened to goes with the key.

An erasure is so in force in every process as soon as PostgreSQL has delivered its
notification (milliseconds; docs/privacy.md), the way the erased player's streams end.
The connection is the process's second listening connection, apart from the streams'
(service/adapters/postgres/listener.py), so that a process whose streams need no
listener does not fold every commit's notification to learn of the rare erasure.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Mapping

from service.adapters.listening_thread import ListeningThread
from service.adapters.postgres.engine import libpq_conninfo
from service.adapters.postgres.listening import listen_until_stopped

log = logging.getLogger(__name__)

CHANNEL = "yokai_keys"
ALL_DAYS_BEFORE = "before "  # a payload "before dYYYYMMDD": day keys before it are gone


class KeyCache(ListeningThread):
    """Keys by subject; ``read(subjects)`` reads the store for those it does not hold.

    The first lookup starts the listening connection to ``database_url`` (None: no cache
    at all; every lookup reads the store)."""

    name = "yokai-keys"

    def __init__(self, database_url: str | None, *, poll_seconds: float = 1.0) -> None:
        super().__init__(poll_seconds)
        self._conninfo = libpq_conninfo(database_url) if database_url else None
        self._keys: dict[str, bytes] = {}
        self._opened: dict[str, dict[str, str]] = {}  # values opened, by subject held
        self._generation = 0  # moves on every drop: a read that spans one is not kept
        self._lock = threading.Lock()

    def keys(
        self, subjects: Collection[str], read: Callable[[list[str]], Mapping[str, bytes]]
    ) -> Mapping[str, bytes]:
        """The keys of ``subjects`` that exist (a destroyed key has none); those not held
        are ``read`` from the store, and kept if nothing was dropped meanwhile."""
        if self._conninfo is None:
            return read(list(subjects))
        self.start()
        if not self.listening.is_set():
            return read(list(subjects))
        with self._lock:
            found = {s: self._keys[s] for s in subjects if s in self._keys}
            generation = self._generation
        missing = [s for s in subjects if s not in found]
        if not missing:
            return found
        fetched = read(missing)
        with self._lock:
            if generation == self._generation and self.listening.is_set():
                self._keys.update(fetched)
        return {**found, **fetched}

    def opened(self, subjects: Collection[str]) -> dict[str, dict[str, str]]:
        """Where the values opened of each subject's tokens are kept, for those of
        ``subjects`` whose keys are held: dropped with the key."""
        with self._lock:
            return {s: self._opened.setdefault(s, {}) for s in subjects if s in self._keys}

    def drop(self, payload: str) -> None:
        """What a notification names: subjects separated by spaces, or ``before d…``."""
        with self._lock:
            self._generation += 1
            if payload.startswith(ALL_DAYS_BEFORE):
                bound = payload[len(ALL_DAYS_BEFORE) :]
                dropped = [s for s in self._keys if s.startswith("d") and s < bound]
            else:
                dropped = payload.split()
            for subject in dropped:
                self._keys.pop(subject, None)
                self._opened.pop(subject, None)

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._keys.clear()
            self._opened.clear()

    def _run(self) -> None:
        assert self._conninfo is not None
        listen_until_stopped(
            self._conninfo,
            CHANNEL,
            "yokai-keys",
            stopping=self._stopping,
            poll_seconds=self._poll,
            listening=self._listening,
            heard=self.drop,
            lost=self._lost,
            logger=log,
            label="key cache",
        )

    def _listening(self) -> None:
        self.clear()  # only keys read from now on, which every later drop is heard for
        self.connections += 1
        self.listening.set()

    def _lost(self) -> None:
        self.listening.clear()
        self.clear()  # what was destroyed while nobody listened was not heard
