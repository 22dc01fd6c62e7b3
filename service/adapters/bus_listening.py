"""The bus's subscribers (its publishing side: bus.py): each process's
:class:`BusListener`, which hands the commits to its streams and long-polls, and the
worker's :class:`JobNotes`; both notice a connection gone silent (:class:`Liveness`)."""

from __future__ import annotations

import logging
import time

import redis

from service.adapters.bus import CHANNEL, JOBS_CHANNEL, BusSeal
from service.adapters.listening_thread import ListeningThread
from service.adapters.postgres.listener import commit_of, deliver
from service.adapters.postgres.listening import FIRST_DELAY, LONGEST_DELAY
from service.application.live.hub import Hub
from service.application.live.recent import RecentCommits

log = logging.getLogger(__name__)


def subscriber(url: str) -> tuple[redis.Redis, redis.client.PubSub]:
    """A client for a subscription and its pub/sub (keepalives on, redis-py's health
    check every 5 s: :class:`Liveness` checks the answers)."""
    client = redis.Redis.from_url(
        url, socket_connect_timeout=2, socket_keepalive=True, health_check_interval=5
    )
    return client, client.pubsub()  # type: ignore[no-untyped-call]


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
        client, pubsub = subscriber(self._url)
        try:
            pubsub.subscribe(self._channel)  # type: ignore[no-untyped-call]
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

    def heard(self, timeout: float) -> list[str]:
        """The first announcements heard within ``timeout`` seconds (0: without waiting),
        with every one already received after them (deaf: none, after the wait)."""
        pubsub = self._pubsub
        if pubsub is None:
            time.sleep(timeout)
            return []
        deadline = time.monotonic() + timeout
        found: list[str] = []
        try:
            self._liveness.check(pubsub)
            while True:
                left = 0.0 if found else max(0.0, deadline - time.monotonic())
                message = pubsub.get_message(timeout=left)
                if message is None:
                    if found or time.monotonic() >= deadline:
                        return found
                    continue
                self._liveness.heard()
                if message["type"] == "message":
                    found.append(message["data"].decode())
        except redis.RedisError as error:
            log.warning("worker bus: %s; subscribing again", error)
            self.close()
            return found

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
            client, pubsub = subscriber(self._url)
            liveness = Liveness()
            try:
                pubsub.subscribe(self._channel)  # type: ignore[no-untyped-call]
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
