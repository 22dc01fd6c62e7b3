"""Real `yokai worker` processes for end-to-end tests: a database of their own, an app on
it for the requests, and the workers a test starts, all stopped at the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from service.adapters import migrate
from service.application.deps import Deps
from service.settings import Settings
from tests.support.api import OPERATOR_TOKEN, Api
from tests.support.postgres import new_database, running_app

YOKAI = [sys.executable, "-m", "service.cli"]
LEASE_SECONDS = 2


@dataclass
class WorkerProcess:
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@dataclass
class Setup:
    url: str
    api: Api
    folder: Path
    started: list[WorkerProcess]
    deps: Deps  # the app's: to reach the store as the service does

    def worker(self, **env: str) -> WorkerProcess:
        log = self.folder / f"worker-{len(self.started)}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [*YOKAI, "worker"],
                env={
                    **os.environ,
                    "DATABASE_URL": self.url,
                    "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
                    "YOKAI_WORKER_LEASE_SECONDS": str(LEASE_SECONDS),
                    "YOKAI_WEBHOOK_ALLOW_PRIVATE": "1",  # the receivers are on 127.0.0.1
                    "YOKAI_WEBHOOK_FIRST_RETRY_SECONDS": "0.5",
                    "YOKAI_WEBHOOK_LEASE_SECONDS": "15",
                    **env,
                },
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        started = WorkerProcess(process, log)
        self.started.append(started)
        return started


@pytest.fixture
def setup(server_url: str, settings: Settings, tmp_path: Path) -> Iterator[Setup]:
    """A database of its own (so no other test's games are due), an app on it for the
    requests (webhooks to 127.0.0.1 allowed), and the workers the test starts, all
    stopped at the end."""
    url = new_database(server_url, "yokai_worker")
    migrate.upgrade(url)
    app_settings = replace(settings, database_url=url, webhook_allow_private=True)
    with running_app(app_settings) as app:
        made = Setup(url, app.api(), tmp_path, [], app.container.deps)
        try:
            yield made
        finally:
            for w in made.started:
                if w.process.poll() is None:
                    w.process.kill()
                w.process.wait(timeout=30)


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def stop(worker: WorkerProcess) -> int:
    worker.process.send_signal(signal.SIGTERM)
    return worker.process.wait(timeout=30)
