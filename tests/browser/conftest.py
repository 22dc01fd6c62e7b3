"""The web client in a real browser: Debian's Chromium, headless, driven by Playwright
for Python (its own driver; it never downloads a browser), against a real `yokai serve`
process whose embedded worker plays the bots.

Without Chromium (or Playwright) the tests are skipped with how to install it, except
under CI=true, where a missing browser is a failure: CI must run them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.postgres import new_database

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "build" / "test-artifacts"
OPERATOR_TOKEN = "browser-operator-token-of-32-characters"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Chromium's own calls home are refused on machines without the internet.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INSTALL_HINT = (
    "the browser tests need Debian's Chromium: `apt-get install chromium` "
    "(bash scripts/test.sh installs it when run as root) and Playwright for Python "
    "(the dev extra)"
)


def _chromium() -> str | None:
    for candidate in (os.environ.get("YOKAI_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("chromium")


def _missing(reason: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}: {INSTALL_HINT}")
    pytest.skip(f"{reason}: {INSTALL_HINT}")


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = _chromium()
    if path is None:
        _missing("Chromium is not installed")
    assert path is not None
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415 - optional
    except ImportError:
        _missing("Playwright is not installed")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Served:
    """A `yokai serve` process and its address."""

    process: subprocess.Popen[bytes]
    base: str
    log: Path

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def operator(self, path: str) -> Any:
        return self.call("GET", path, token=OPERATOR_TOKEN)


@pytest.fixture(scope="module")
def served(server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`yokai serve` (one web worker and its embedded worker) on a fresh database; its
    output goes to a file (a pipe nobody reads would fill up and stall it)."""
    folder = tmp_path_factory.mktemp("browser-serve")
    log = folder / "serve.log"
    port = _free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            env={
                **os.environ,
                "DATABASE_URL": new_database(server_url, "yokai_browser"),
                "YOKAI_OPERATOR_TOKEN": OPERATOR_TOKEN,
                "YOKAI_WORKERS": "1",
            },
            cwd=folder,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    running = Served(process, f"http://127.0.0.1:{port}", log)
    try:
        deadline = time.monotonic() + 120
        while True:
            if process.poll() is not None:
                raise AssertionError(f"yokai serve exited:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(running.base + "/readyz", timeout=5) as r:
                    if r.status == 200:
                        break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"yokai serve did not become ready:\n{log.read_text()}")
            time.sleep(0.3)
        yield running
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.fixture
def artifacts() -> Path:
    """Where the tests leave their screenshots (build/ is ignored by git)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
