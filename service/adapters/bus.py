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

import logging
from collections.abc import Sequence

import redis

from service.adapters.listening_thread import ListeningThread
from service.adapters.postgres.listener import deliver
from service.adapters.postgres.listening import FIRST_DELAY, LONGEST_DELAY
from service.application.live.hub import Hub
from service.application.live.recent import RecentCommits
from service.application.live.relay import AnnounceError

log = logging.getLogger(__name__)


CHANNEL = "yokai:commits"


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


class BusListener(ListeningThread):
    """This process's subscription to the bus: started with the first stream or
    long-poll, as the PostgreSQL listener is. While it is not subscribed, ``listening``
    is clear (``/readyz`` says ``degraded``) and the hub is deaf: its streams and
    long-polls, woken once as the subscription is lost, look at the store every second
    (hub.py ``DEAF_POLL``) instead of waiting to be woken. A connection that goes silent
    without closing is not noticed until TCP gives up (keepalives on): a known gap."""

    name = "yokai-bus"

    def __init__(
        self,
        url: str,
        hub: Hub,
        *,
        recent: RecentCommits | None = None,
        channel: str = CHANNEL,
        poll_seconds: float = 1.0,
    ) -> None:
        super().__init__(poll_seconds)
        self._url = url
        self._hub = hub
        self._recent = recent
        self._channel = channel

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
            try:
                pubsub.subscribe(self._channel)
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=self._poll)
                    if message is None:
                        continue
                    if message["type"] == "subscribe":
                        delay = FIRST_DELAY
                        self._subscribed()
                    elif message["type"] == "message":
                        deliver(message["data"].decode(), self._hub, self._recent)
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
