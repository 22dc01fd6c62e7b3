"""The process's one listening connection: it hears PostgreSQL's notifications of
committed changes (channel ``yokai``: each command's append announces itself in its own
statement, events.py; inbox rows by the trigger of migration 0005) and wakes the
process's waiting streams and long-polls.

It runs in a thread of its own (a greenlet under gunicorn's gevent worker: psycopg 3
waits cooperatively once gevent has patched ``select``). When its connection is lost it
reconnects, backing off up to 5 s, and once listening again wakes every waiter: they
read the store by ``seq``, so what committed meanwhile is delivered, not lost.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from uuid import UUID

from service.adapters.listening_thread import ListeningThread
from service.adapters.postgres.engine import libpq_conninfo
from service.adapters.postgres.events import CHANNEL, from_notification
from service.adapters.postgres.listening import listen_until_stopped
from service.application.live.hub import Hub
from service.application.live.recent import RecentCommits
from service.application.ports import StoredEvent

log = logging.getLogger(__name__)


def parse(payload: str) -> tuple[str, int | None]:
    """A notification's hub key (``g <game id>``, ``p <player id>``) and the version it
    announces, if any."""
    parts = payload.split(" ", 3)
    version = int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else None
    return " ".join(parts[:2]), version


def commit_of(payload: str) -> tuple[UUID, list[StoredEvent]] | None:
    """The game and the events of a game's notification that carries them."""
    parts = payload.split(" ", 4)
    if len(parts) < 5 or parts[0] != "g":
        return None
    game_id = UUID(parts[1])
    return game_id, [from_notification(game_id, r) for r in json.loads(parts[4])]


def deliver(
    payload: str,
    hub: Hub,
    recent: RecentCommits | None,
    events_of: Callable[[str], tuple[UUID, list[StoredEvent]] | None] = commit_of,
) -> None:
    """Hand an announcement to the process's waiters: a game's events to ``recent`` (for
    the streams that watch it) before the wake-up, then the wake-up. Also the bus
    listener's (service/adapters/bus_listening.py), whose announcements are the relay's and whose
    events come sealed (``events_of``: its ``BusSeal.events``)."""
    try:
        key, version = parse(payload)
    except ValueError as error:
        log.warning("listener: unreadable notification: %s", error)
        return
    try:
        if recent is not None and key.startswith("g ") and recent.watching(UUID(key[2:])):
            found = events_of(payload)
            if found is not None:
                recent.offer(*found)  # before the wake-up: the streams find it held
    except Exception:  # e.g. an event type of a newer release
        # Not held: the woken streams read the store, which is always right.
        log.exception("listener: a notification's events could not be folded")
    hub.publish(key, version)


class Listener(ListeningThread):
    name = "yokai-listener"

    def __init__(
        self,
        database_url: str,
        hub: Hub,
        *,
        recent: RecentCommits | None = None,
        poll_seconds: float = 1.0,
    ) -> None:
        super().__init__(poll_seconds)
        self._conninfo = libpq_conninfo(database_url)
        self._hub = hub
        self._recent = recent  # handed the events a notification carries

    def _heard(self, payload: str) -> None:
        deliver(payload, self._hub, self._recent)

    def _run(self) -> None:
        listen_until_stopped(
            self._conninfo,
            CHANNEL,
            "yokai-listener",
            stopping=self._stopping,
            poll_seconds=self._poll,
            listening=self._listening,
            heard=self._heard,
            lost=self.listening.clear,
            logger=log,
            label="listener",
        )

    def _listening(self) -> None:
        self.connections += 1
        self.listening.set()
        # Anything may have committed while nobody listened: look again.
        self._hub.publish_all()
