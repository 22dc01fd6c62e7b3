"""The message bus between the relay and the nodes: Redis pub/sub (YOKAI_REDIS_URL).

The relay (service/application/live/relay.py) publishes each committed command's
announcement on :data:`CHANNEL`, in commit order, in the form the PostgreSQL listener
parses (service/adapters/postgres/events.py ``notification``). Pub/sub keeps nothing: a
subscriber that is away misses what was published meanwhile, and reads the store when it
is back, as a listener does after reconnecting to PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence

import redis

from service.application.live.relay import AnnounceError

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
