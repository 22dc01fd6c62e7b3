"""A relay and a subscriber of the bus for tests (service/application/live/relay.py): the
relay runs in a thread of the test's process until the block ends; the subscriber keeps
what it heard, in order."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import redis

from service.adapters.bus import CHANNEL, RedisAnnouncer
from service.adapters.postgres.engine import libpq_conninfo
from service.adapters.postgres.events import announcement
from service.adapters.postgres.relay import SqlCommitLog
from service.application.live.relay import Relay
from service.application.ports import StoredEvent
from tests.support.waiting import wait_for


class Heard:
    """A subscriber of the bus: the announcements it heard, in order."""

    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        self._client = redis.Redis.from_url(url, socket_timeout=5)
        self._pubsub = self._client.pubsub()  # type: ignore[no-untyped-call]
        self._pubsub.subscribe(channel)
        self.payloads: list[str] = []
        # Subscribed once Redis says so: what is published before that is not heard.
        wait_for(self._subscribed, "the subscription to the bus", 5, every=0)

    def _subscribed(self) -> bool:
        message = self._pubsub.get_message(timeout=0.1)
        return message is not None and message["type"] == "subscribe"

    def take(self) -> list[str]:
        while (message := self._pubsub.get_message(timeout=0.05)) is not None:
            if message["type"] == "message":
                self.payloads.append(message["data"].decode())
        return self.payloads

    def close(self) -> None:
        self._pubsub.close()
        self._client.close()


@contextmanager
def hearing(url: str, channel: str = CHANNEL) -> Iterator[Heard]:
    heard = Heard(url, channel)
    try:
        yield heard
    finally:
        heard.close()


@contextmanager
def relaying(
    database: str,
    redis_url: str,
    describe: Callable[[Sequence[StoredEvent]], str] = announcement,
) -> Iterator[Relay]:
    """A relay running in a thread of its own, stopped (its connection closed) after;
    ``describe``: what it publishes of each command (its head alone, unless told)."""
    announcer = RedisAnnouncer(redis_url, timeout=1.0)
    relay = Relay(
        SqlCommitLog(libpq_conninfo(database)),
        announcer,
        describe,
        poll_seconds=0.005,
        takeover_seconds=0.05,
    )
    thread = threading.Thread(target=relay.run, name="test-relay", daemon=True)
    thread.start()
    try:
        yield relay
    finally:
        relay.stop()
        thread.join(10)
        announcer.close()
        assert not thread.is_alive()
