"""The message bus between the processes of a deployment: Redis pub/sub (YOKAI_REDIS_URL),
its publishing side (its subscribers: bus_listening.py).

The relay (service/application/live/relay.py) publishes each committed command on
:data:`CHANNEL`, in commit order: its head (game, version, previous version) with its
events sealed (:class:`BusSeal`), then the players with an inbox entry of its game (``p
<player id>``). The units of work publish what else they announce once committed
(:class:`Notices`): the lobby and revoked tokens on :data:`CHANNEL`, the worker's
wake-ups on :data:`JOBS_CHANNEL`. Pub/sub keeps nothing: a subscriber that is away
misses what was published meanwhile, so once subscribed again it wakes every waiter,
which reads the store (by ``seq``): nothing is lost, as after a reconnection to
PostgreSQL.
"""

from __future__ import annotations

import base64
import itertools
import json
import logging
import os
import threading
from collections import deque
from collections.abc import Sequence
from uuid import UUID

import redis
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.adapters.postgres import events, wakeups
from service.adapters.postgres.events import announcement, from_notification, rows_json
from service.adapters.postgres.listener import commit_of
from service.adapters.postgres.listening import FIRST_DELAY, LONGEST_DELAY
from service.application.integrity.chain import ChainKeys
from service.application.live.relay import AnnounceError
from service.application.ports import StoredEvent
from service.metrics import BUS_FAILURES, BUS_NOTICES

log = logging.getLogger(__name__)


CHANNEL = "yokai:commits"
JOBS_CHANNEL = "yokai:jobs"
"""The worker's wake-ups (PostgreSQL's ``yokai_jobs`` without a bus)."""
ON_THE_BUS = {events.CHANNEL: CHANNEL, wakeups.CHANNEL: JOBS_CHANNEL}
"""The PostgreSQL channels whose announcements go on the bus instead, and where: the
commits' (the lobby, a revoked token: heard by every process as the relay's are) and the
worker's. Destroyed privacy keys (``yokai_keys``) stay PostgreSQL's: rare, and not in
the path of a game's commands."""
BACKLOG = 10_000
"""The announcements a process keeps while Redis does not take them; past this many the
oldest are dropped (and counted): the subscribers, who lost Redis too, look at the
store once they are subscribed again."""


SEAL_LIMIT = 256 * 1024
"""A command whose events take more than this goes on the bus as its head alone (the
nodes read its events from the store)."""
_NONCE = 12
_SCOPE = b"yokai bus v1"


class BusSeal:
    """The relay's announcement of a command with its events sealed: AES-GCM under a key
    derived from the chain key (HMAC of a fixed label: every process of a deployment
    holds the chain key, which hashes the events they append; Redis does not), the head
    (``g <game> <version> <previous>``) as associated data, the key's id beside the box:
    ``g <game> <version> <previous> ~<key id>:<base64 of nonce and box>``.

    What Redis and anyone reading it see is the head, as before; a node opens the events
    and hands them to its streams (postgres/listener.py ``deliver``), as a NOTIFY's
    payload did, instead of reading them from the store. A node that cannot open them
    (another chain key, a corrupted message) reads the store: a box that does not open
    is never taken for events."""

    def __init__(self, keys: ChainKeys) -> None:
        self._keys = keys
        self._ciphers: dict[str, AESGCM] = {}
        self._warned: set[str] = set()

    def describe(self, rows: Sequence[StoredEvent]) -> str:
        head = announcement(rows)
        body = rows_json(rows).encode()
        if len(body) > SEAL_LIMIT:
            return head
        kid = self._keys.current
        cipher = self._cipher(kid)
        assert cipher is not None  # the current key is always known
        nonce = os.urandom(_NONCE)
        box = cipher.encrypt(nonce, body, head.encode())
        return f"{head} ~{kid}:{base64.b64encode(nonce + box).decode()}"

    def events(self, payload: str) -> tuple[UUID, list[StoredEvent]] | None:
        """The game and the events a sealed announcement carries, else None."""
        parts = payload.split(" ", 4)
        if len(parts) < 5 or parts[0] != "g" or not parts[4].startswith("~"):
            return commit_of(payload)
        kid, _, sealed = parts[4][1:].partition(":")
        cipher = self._cipher(kid)
        if cipher is None:
            if kid not in self._warned:
                self._warned.add(kid)
                log.warning("bus: events sealed under chain key %s, unknown here", kid)
            return None
        try:
            raw = base64.b64decode(sealed, validate=True)
            body = cipher.decrypt(raw[:_NONCE], raw[_NONCE:], " ".join(parts[:4]).encode())
        except (ValueError, InvalidTag):
            log.warning("bus: sealed events that do not open (game %s)", parts[1])
            return None
        game_id = UUID(parts[1])
        return game_id, [from_notification(game_id, r) for r in json.loads(body)]

    def _cipher(self, kid: str) -> AESGCM | None:
        cipher = self._ciphers.get(kid)
        if cipher is None:
            key = self._keys.mac(kid, _SCOPE)
            if key is None:
                return None
            cipher = self._ciphers[kid] = AESGCM(bytes.fromhex(key))
        return cipher


def publish_each(client: redis.Redis, messages: Sequence[tuple[str, str]]) -> None:
    """Publish each (channel, payload) in order, in one round trip (a pipeline, not a
    transaction: published in order either way)."""
    with client.pipeline(transaction=False) as pipe:
        for channel, payload in messages:
            pipe.publish(channel, payload)
        pipe.execute()


class RedisAnnouncer:
    def __init__(self, url: str, *, channel: str = CHANNEL, timeout: float = 2.0) -> None:
        self.channel = channel
        self._client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )

    def announce(self, payloads: Sequence[str]) -> None:
        try:
            publish_each(self._client, [(self.channel, payload) for payload in payloads])
        except redis.RedisError as error:
            raise AnnounceError(str(error)) from error

    def close(self) -> None:
        self._client.close()


class Notices:
    """The units of work's announcements on the channels of :data:`ON_THE_BUS`, published
    once committed (service/adapters/postgres/session.py ``notify``; pool.py ``Bus``):
    with it no write transaction sends NOTIFY.

    A command does not wait for Redis: :meth:`publish` queues, and a thread of the
    process (a greenlet under gevent; started with the first announcement, and again
    in a process forked after) publishes what is queued, in order, one pipeline per
    batch. What Redis does not take is kept and published again once it does (0.1 s
    doubling up to 5 s), so a fault of Redis loses nothing that a process keeps: only
    what is past :data:`BACKLOG`, or what a process that dies had not published yet
    (counted in ``lost``, logged; /metrics: ``yokai_bus_notices``, by outcome, and
    ``yokai_bus_publish_failures``)."""

    channels = frozenset(ON_THE_BUS)

    def __init__(self, url: str, *, timeout: float = 1.0) -> None:
        self._client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )
        self._queue: deque[tuple[str, str]] = deque()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._starting = threading.Lock()
        self._lock = threading.Lock()
        self.published = 0
        self.lost = 0
        self.failures = 0

    def publish(self, notices: Sequence[tuple[str, str]]) -> None:
        if not notices:
            return
        with self._lock:
            self._queue.extend(notices)
            over = len(self._queue) - BACKLOG
            for _ in range(over):
                self._queue.popleft()
            if over > 0:
                self.lost += over
        if over > 0:
            BUS_NOTICES.labels("dropped").inc(over)
            log.warning("bus: %d announcement(s) dropped: more than %d waiting", over, BACKLOG)
        self._start()
        self._wake.set()

    def pending(self) -> int:
        return len(self._queue)

    def close(self) -> None:
        """Publish what is queued (if Redis takes it within a few seconds), then stop."""
        self._stopping.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and self._pid == os.getpid():
            thread.join(timeout=5)
        self._client.close()

    def _start(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            return
        with self._starting:
            if self._thread is None or self._pid != os.getpid():  # none yet, or forked
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="yokai-notices", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        delay = FIRST_DELAY
        while True:
            self._wake.wait()
            self._wake.clear()
            while self._queue:
                with self._lock:
                    batch = list(itertools.islice(self._queue, 500))
                    lost = self.lost
                try:
                    publish_each(self._client, [(ON_THE_BUS[c], p) for c, p in batch])
                except redis.RedisError as error:
                    self.failures += 1
                    BUS_FAILURES.inc()
                    log.warning(
                        "bus: %d announcement(s) waiting: %s; again in %.1f s",
                        len(self._queue),
                        error,
                        delay,
                    )
                    if self._stopping.wait(delay):
                        self.lost += len(self._queue)
                        BUS_NOTICES.labels("unpublished").inc(len(self._queue))
                        log.error(
                            "bus: stopping with %d announcement(s) unpublished", len(self._queue)
                        )
                        return
                    delay = min(delay * 2, LONGEST_DELAY)
                    continue
                delay = FIRST_DELAY
                with self._lock:  # published: they leave the queue (unless dropped since)
                    for _ in range(max(0, len(batch) - (self.lost - lost))):
                        self._queue.popleft()
                self.published += len(batch)
                BUS_NOTICES.labels("published").inc(len(batch))
            if self._stopping.is_set():
                return
