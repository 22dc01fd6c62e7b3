"""Who is looking at what (API.md Part 4: nothing is pushed for a game while its player
holds an open stream of it, or their player stream): each stream a player opens is a
row of ``watchers`` from its opening to its end, refreshed every ``REFRESH`` by one
thread of the process for all its streams, so a process that dies leaves rows that stop
counting ``pushes.WATCHED`` later.

What it costs: a write when a stream opens and one when it ends (streams last minutes
to hours), and one UPDATE per process every ``REFRESH`` whatever the number of streams.
A failed write is logged and the stream goes on: at worst a push is sent to someone who
was looking."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from uuid import UUID, uuid4

from service.application.ports import Clock, StoreUnavailableError, UnitOfWorkFactory

log = logging.getLogger(__name__)

REFRESH = 30.0  # seconds


class Watching:
    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock
        self._lock = threading.Lock()
        self._open: set[UUID] = set()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def open(self, player_id: UUID, game_id: UUID | None) -> Callable[[], None]:
        """Record that the player looks (at ``game_id``, or at their player stream);
        the function returned records the end (once, however often it is called)."""
        stream = uuid4()
        try:
            with self._uow() as uow:
                uow.notifications.watch(stream, player_id, game_id, self._clock.now())
                uow.commit()
        except StoreUnavailableError as error:
            log.warning("watchers: %s", error)
            return lambda: None
        with self._lock:
            self._open.add(stream)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._refresh, name="yokai-watchers", daemon=True
                )
                self._thread.start()
        ended = False

        def end() -> None:
            nonlocal ended
            with self._lock:
                if ended:
                    return
                ended = True
                self._open.discard(stream)
            try:
                with self._uow() as uow:
                    uow.notifications.unwatch(stream)
                    uow.commit()
            except StoreUnavailableError as error:
                log.warning("watchers: %s", error)

        return end

    def _refresh(self) -> None:
        while not self._stop.wait(REFRESH):
            with self._lock:
                streams = list(self._open)
            if not streams:
                continue
            try:
                with self._uow() as uow:
                    uow.notifications.seen(streams, self._clock.now())
                    uow.commit()
            except StoreUnavailableError as error:
                log.warning("watchers: %s", error)

    def close(self) -> None:
        self._stop.set()
