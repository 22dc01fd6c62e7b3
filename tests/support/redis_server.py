"""A redis-server of a test's own (Debian's, which scripts/test.sh installs): on a free
port, without persistence, started and stopped by the test, and restartable on the same
port (a Redis that goes away and comes back). The ``redis_server`` fixture
(tests/support/redis_fixture.py, a plugin of tests/conftest.py) gives each test module
one. Part of the harness that bench/ shares with the tests: it imports no pytest."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tests.support import processes
from tests.support.ports import free_port
from tests.support.processes import Started

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


class RedisServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="yokai-redis-"))
        self.started: Started | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.started = processes.start(
            [
                REDIS,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            self.folder / "redis.log",
            what="redis-server",
        )
        client = redis.Redis.from_url(self.url, socket_timeout=1)
        try:
            self.started.wait_ready(lambda: _pings(client), 20, every=0.05)
        finally:
            client.close()

    def stop(self) -> None:
        started, self.started = self.started, None
        if started is not None:
            started.stop(10)


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.RedisError:
        return False


def missing() -> str | None:
    """Why no redis-server can run here (None: it can). Under CI that is a failure, not a
    reason to skip: the project's scripts install it."""
    if Path(REDIS).exists():
        return None
    reason = "redis-server is not installed (scripts/test.sh installs it)"
    if os.environ.get("CI"):
        raise AssertionError(reason)
    return reason


@contextmanager
def running() -> Iterator[RedisServer]:
    """A started server, stopped and its folder removed afterwards."""
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)
