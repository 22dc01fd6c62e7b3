"""A real `yokai serve` (gunicorn, its embedded worker) on a database of its own, for the
tests that talk to the service as an outside client would; stopped at the end."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.postgres import new_database

YOKAI = [sys.executable, "-m", "service.cli"]
OPERATOR_TOKEN = "served-operator-token-of-32-characters"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def ready(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/readyz", timeout=5) as r:
            status: int = r.status
            return status == 200
    except OSError:
        return False


@contextmanager
def serving(server_url: str, log: Path, cwd: Path | None = None, /, **env: str) -> Iterator[str]:
    """`yokai serve` on a new database of the test server, its output in ``log`` (a
    file: a pipe nobody reads would fill up and stall it), run in ``cwd``; yields its
    base URL once /readyz answers."""
    port = free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": new_database(server_url, "yokai_served"),
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_WORKERS": "2",
        **env,
    }
    with log.open("wb") as out:
        serve = subprocess.Popen(
            [*YOKAI, "serve", "--port", str(port)],
            env=environment,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while not ready(base):
            if serve.poll() is not None:
                raise AssertionError(log.read_text(errors="replace"))
            if time.monotonic() > deadline:
                raise AssertionError("yokai serve did not become ready")
            time.sleep(0.3)
        yield base
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=60)
        finally:
            if serve.poll() is None:
                serve.kill()
