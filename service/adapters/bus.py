"""The message bus between the relay and the nodes: Redis pub/sub (YOKAI_REDIS_URL).

The relay (service/application/live/relay.py) publishes each committed command's
announcement on :data:`CHANNEL`, in commit order: its game, version and previous version
(service/adapters/postgres/events.py ``announcement``: no event, so nothing hidden), and
the players with an inbox entry of its game (``p <player id>``). Each process subscribes
once (:class:`BusListener`) and hands what it hears to its waiters as the PostgreSQL
listener does. Pub/sub keeps nothing: a subscriber that is away misses what was published
meanwhile, so once it is subscribed again it wakes every waiter, which reads the store (by
``seq``): nothing is lost, as after a reconnection to PostgreSQL.
"""

from __future__ import annotations

import base64
import itertools
import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from uuid import UUID

import redis
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from service.adapters.listening_thread import ListeningThread
from service.adapters.postgres import events, wakeups
from service.adapters.postgres.events import announcement, from_notification, rows_json
from service.adapters.postgres.listener import commit_of, deliver
from service.adapters.postgres.listening import FIRST_DELAY, LONGEST_DELAY
from service.application.integrity.chain import ChainKeys
from service.application.live.hub import Hub
from service.application.live.recent import RecentCommits
from service.application.live.relay import AnnounceError
from service.application.ports import StoredEvent

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


class RedisAnnouncer:
    def __init__(self, url: str, *, channel: str = CHANNEL, timeout: float = 2.0) -> None:
        self.channel = channel
        self._client = redis.Redis.from_url(
            url, socket_timeout=timeout, socket_connect_timeout=timeout
        )

    def announce(self, payloads: Sequence[str]) -> None:
        """One round trip for the batch (a pipeline, not a transaction: published in
        order either way)."""
        try:
            with self._client.pipeline(transaction=False) as pipe:
                for payload in payloads:
                    pipe.publish(self.channel, payload)
                pipe.execute()
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
    (counted in ``lost``, logged)."""

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
                    with self._client.pipeline(transaction=False) as pipe:
                        for channel, payload in batch:
                            pipe.publish(ON_THE_BUS[channel], payload)
                        pipe.execute()
                except redis.RedisError as error:
                    self.failures += 1
                    log.warning(
                        "bus: %d announcement(s) waiting: %s; again in %.1f s",
                        len(self._queue),
                        error,
                        delay,
                    )
                    if self._stopping.wait(delay):
                        self.lost += len(self._queue)
                        return
                    delay = min(delay * 2, LONGEST_DELAY)
                    continue
                delay = FIRST_DELAY
                with self._lock:  # published: they leave the queue (unless dropped since)
                    for _ in range(max(0, len(batch) - (self.lost - lost))):
                        self._queue.popleft()
                self.published += len(batch)
            if self._stopping.is_set():
                return


QUIET_SECONDS = 5.0
"""A subscription that has heard nothing for this long asks Redis (PING)..."""
PONG_SECONDS = 5.0
"""... and, without an answer within this long, is taken for dead and made again."""


class Liveness:
    """Whether a subscription still hears: one that has said nothing for QUIET_SECONDS
    is asked, and one that does not answer within PONG_SECONDS raises (a connection gone
    silent without closing, which TCP would notice only after minutes; redis-py's own
    health check sends its PING but does not wait for the answer)."""

    def __init__(self) -> None:
        self._heard = time.monotonic()
        self._asked: float | None = None

    def heard(self) -> None:
        self._heard, self._asked = time.monotonic(), None

    def check(self, pubsub: redis.client.PubSub) -> None:
        now = time.monotonic()
        if self._asked is not None:
            if now - self._asked > PONG_SECONDS:
                raise redis.ConnectionError(f"no answer to a ping in {PONG_SECONDS:g} s")
        elif now - self._heard > QUIET_SECONDS:
            pubsub.ping()
            self._asked = now


class JobNotes:
    """The worker's wake-ups heard on the bus (:data:`JOBS_CHANNEL`), for service/worker.py
    in place of its PostgreSQL listening connection. While it is not subscribed (Redis
    away) it is ``deaf``: the worker then looks at its jobs every second; it tries to
    subscribe again at each turn of the worker's loop, backing off up to 5 s."""

    def __init__(self, url: str, *, channel: str = JOBS_CHANNEL) -> None:
        self._url = url
        self._channel = channel
        self._client: redis.Redis | None = None
        self._pubsub: redis.client.PubSub | None = None
        self._retry_at = 0.0
        self._delay = FIRST_DELAY
        self._liveness = Liveness()

    @property
    def deaf(self) -> bool:
        return self._pubsub is None

    def listen(self) -> None:
        """Subscribe, unless subscribed or backing off; never raises."""
        if self._pubsub is not None or time.monotonic() < self._retry_at:
            return
        client = redis.Redis.from_url(
            self._url,
            socket_connect_timeout=2,
            socket_timeout=None,
            socket_keepalive=True,
            health_check_interval=5,
        )
        pubsub = client.pubsub()  # type: ignore[no-untyped-call]
        try:
            pubsub.subscribe(self._channel)
            deadline = time.monotonic() + 2
            while (message := pubsub.get_message(timeout=0.5)) is None or message[
                "type"
            ] != "subscribe":
                if time.monotonic() > deadline:
                    raise redis.TimeoutError("no subscription confirmed in 2 s")
        except redis.RedisError as error:
            pubsub.close()
            client.close()
            log.warning("worker bus: %s; subscribing again in %.1f s", error, self._delay)
            self._retry_at = time.monotonic() + self._delay
            self._delay = min(self._delay * 2, LONGEST_DELAY)
            return
        self._client, self._pubsub, self._delay = client, pubsub, FIRST_DELAY
        self._liveness = Liveness()
        log.info("worker bus: subscribed to %s", self._channel)

    def heard(self, timeout: float) -> Iterator[str]:
        """The announcements heard within ``timeout`` seconds (deaf: none, after the wait)."""
        pubsub = self._pubsub
        if pubsub is None:
            time.sleep(timeout)
            return
        deadline = time.monotonic() + timeout
        try:
            self._liveness.check(pubsub)
            while (left := deadline - time.monotonic()) > 0:
                message = pubsub.get_message(timeout=left)
                if message is None:
                    continue
                self._liveness.heard()
                if message["type"] == "message":
                    yield message["data"].decode()
        except redis.RedisError as error:
            log.warning("worker bus: %s; subscribing again", error)
            self.close()

    def check(self) -> None:
        """Nothing more to do: :meth:`heard` asks a quiet subscription (:class:`Liveness`)."""

    def close(self) -> None:
        pubsub, client, self._pubsub, self._client = self._pubsub, self._client, None, None
        if pubsub is not None:
            pubsub.close()
        if client is not None:
            client.close()


class BusListener(ListeningThread):
    """This process's subscription to the bus: started with the first stream or
    long-poll, as the PostgreSQL listener is. While it is not subscribed, ``listening``
    is clear (``/readyz`` says ``degraded``) and the hub is deaf: its streams and
    long-polls, woken once as the subscription is lost, look at the store every second
    (hub.py ``DEAF_POLL``) instead of waiting to be woken. A connection that goes silent
    without closing is noticed within about ten seconds (:class:`Liveness`)."""

    name = "yokai-bus"

    def __init__(
        self,
        url: str,
        hub: Hub,
        *,
        recent: RecentCommits | None = None,
        channel: str = CHANNEL,
        poll_seconds: float = 1.0,
        seal: BusSeal | None = None,
    ) -> None:
        super().__init__(poll_seconds)
        self._url = url
        self._hub = hub
        self._recent = recent
        self._channel = channel
        self._events_of = seal.events if seal is not None else commit_of

    def start(self) -> None:
        if self._thread is None:
            self._hub.deaf = True  # until subscribed: its waiters look at the store
        super().start()

    def _run(self) -> None:
        delay = FIRST_DELAY
        while not self._stopping.is_set():
            client = redis.Redis.from_url(
                self._url, socket_connect_timeout=2, socket_keepalive=True, health_check_interval=5
            )
            pubsub = client.pubsub()  # type: ignore[no-untyped-call]
            liveness = Liveness()
            try:
                pubsub.subscribe(self._channel)
                while not self._stopping.is_set():
                    liveness.check(pubsub)
                    message = pubsub.get_message(timeout=self._poll)
                    if message is None:
                        continue
                    liveness.heard()
                    if message["type"] == "subscribe":
                        delay = FIRST_DELAY
                        self._subscribed()
                    elif message["type"] == "message":
                        deliver(message["data"].decode(), self._hub, self._recent, self._events_of)
            except redis.RedisError as error:
                if not self._stopping.is_set():
                    log.warning("bus: %s; subscribing again in %.1f s", error, delay)
            except Exception:
                log.exception("bus: unexpected error; subscribing again in %.1f s", delay)
            finally:
                lost = self.listening.is_set()
                self.listening.clear()
                self._hub.deaf = True
                if lost:  # its waiters wait to be woken: wake them to poll the store
                    self._hub.publish_all()
                pubsub.close()
                client.close()
            if self._stopping.wait(delay):
                break
            delay = min(delay * 2, LONGEST_DELAY)

    def reachable(self) -> bool:
        """Whether the bus answers: subscribed, or else a PING answered within 0.5 s
        (the first stream of the process has not subscribed yet)."""
        if self.listening.is_set():
            return True
        client = redis.Redis.from_url(self._url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def _subscribed(self) -> None:
        self.connections += 1
        self.listening.set()
        self._hub.deaf = False
        # Anything may have been announced while nobody heard: look again.
        self._hub.publish_all()
