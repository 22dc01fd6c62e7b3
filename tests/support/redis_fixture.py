"""The ``redis_server`` fixture (a plugin of tests/conftest.py): a redis-server of the
test module's own (tests/support/redis_server.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.redis_server import RedisServer, missing, running


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A redis-server for the test module (skipped where none can run, but under CI)."""
    if (reason := missing()) is not None:
        pytest.skip(reason)
    with running() as server:
        yield server
