"""A real `yokai serve` (gunicorn, its embedded worker) on a database of its own, for the
tests that talk to the service as an outside client would; stopped at the end."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.ports import free_port
from tests.support.postgres import new_database
from tests.support.processes import answers, running

YOKAI = [sys.executable, "-m", "service.cli"]
OPERATOR_TOKEN = "served-operator-token-of-32-characters"


@contextmanager
def serving(
    server_url: str, log: Path, cwd: Path | None = None, /, database: str | None = None, **env: str
) -> Iterator[str]:
    """`yokai serve` on a new database of the test server (or on ``database``: a second
    node of one deployment), its output in ``log``, run in ``cwd``; yields its base URL
    once /readyz answers."""
    port = free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": database or new_database(server_url, "yokai_served"),
        "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
        "YOKAI_WORKERS": "2",
        **env,
    }
    base = f"http://127.0.0.1:{port}"
    with running(
        [*YOKAI, "serve", "--port", str(port)],
        log,
        ready=lambda: answers(base),
        seconds=90,
        env=environment,
        cwd=cwd,
        what="yokai serve",
    ):
        yield base
