"""Real `yokai worker` processes for end-to-end tests: a database of their own, an app on
it for the requests, and the workers a test starts, all stopped at the end."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from service.adapters import migrate
from service.application.deps import Deps
from service.settings import Settings
from tests.support.api import OPERATOR_TOKEN, Api
from tests.support.postgres import new_database, running_app
from tests.support.processes import Started, start

YOKAI = [sys.executable, "-m", "service.cli"]
LEASE_SECONDS = 2


@dataclass
class Setup:
    url: str
    api: Api
    folder: Path
    started: list[Started]
    deps: Deps  # the app's: to reach the store as the service does

    def yokai(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`yokai <args>` run to its end on the database (a rebuild, say): its exit code
        and output."""
        env = {**os.environ, "DATABASE_URL": self.url}
        return subprocess.run(
            [*YOKAI, *args], env=env, capture_output=True, text=True, timeout=120, check=False
        )

    def worker(self, **env: str) -> Started:
        started = start(
            [*YOKAI, "worker"],
            self.folder / f"worker-{len(self.started)}.log",
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
            what="yokai worker",
        )
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
