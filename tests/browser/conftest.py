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
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.serve import OPERATOR_TOKEN, serving

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "build" / "test-artifacts"
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


@dataclass
class Served:
    """A `yokai serve` process's address, and calls to it as an outside client."""

    base: str

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
    """`yokai serve` (one web worker and its embedded worker) on a fresh database."""
    folder = tmp_path_factory.mktemp("browser-serve")
    with serving(server_url, folder / "serve.log", folder, YOKAI_WORKERS="1") as base:
        yield Served(base)


@pytest.fixture
def artifacts() -> Path:
    """Where the tests leave their screenshots (build/ is ignored by git)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


# What axe-core (https://github.com/dequelabs/axe-core, bundled by the axe-playwright-python
# package of the dev extra) may find on a page: minor and moderate issues are reported, not
# failed; a serious or critical one fails the test.
AXE_FAILING = ("serious", "critical")


def assert_accessible(page: Any, where: str) -> None:
    """Run axe-core on the page as it is now: no serious or critical violation."""
    try:
        from axe_playwright_python.sync_playwright import Axe  # noqa: PLC0415 - dev extra
    except ImportError:
        _missing("axe-playwright-python is not installed")
    results = Axe().run(page)
    assert results.response["testEngine"]["name"] == "axe-core", results.response
    found = [
        f"{v['id']} ({v['impact']}): {v['help']}: "
        + "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:5])
        for v in results.response["violations"]
        if v["impact"] in AXE_FAILING
    ]
    assert not found, f"axe-core on {where}:\n" + "\n".join(found)
