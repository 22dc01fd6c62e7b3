"""The installed package is complete (issue 14, part 3): a wheel built from the source
tree, installed outside it, runs `yokai openapi` without a database and `yokai serve`
against PostgreSQL (migrations and the gunicorn config ship inside the package)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import urllib.request
from pathlib import Path

import pytest

from tests.support.ports import free_port
from tests.support.postgres import new_database
from tests.support.processes import answers, running

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_list_is_every_package_of_the_source_tree() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {
        ".".join(p.relative_to(ROOT).parts)
        for p in (ROOT / "service").rglob("*")
        if p.is_dir() and p.name != "__pycache__" and any(p.glob("*.py"))
    }
    mapped = set(config["package-dir"])
    assert listed == found | {"service"} | mapped | {"service.migrations.versions"}
    assert config["package-dir"] == {
        "service.migrations": "migrations",
        "service.deploy": "deploy",
        "service.docs": "docs",
    }


def test_the_web_client_files_are_package_data() -> None:
    """Every file of service/web/ui matches a package-data pattern: a wheel serves the
    whole client."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = config["package-data"]["service.web"]
    web = ROOT / "service" / "web"
    files = [p for p in (web / "ui").rglob("*") if p.is_file()]
    assert files
    for path in files:
        relative = path.relative_to(web)
        assert any(relative.match(pattern) for pattern in patterns), relative


@pytest.mark.slow
def test_an_installed_wheel_serves_and_writes_its_contract(tmp_path: Path, server_url: str) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    (wheel,) = wheels.glob("*.whl")
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # The dependencies come from the test run's environment (no download); the project
    # itself only from the wheel: that environment's own copy is not on this path.
    (Path(site) / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DATABASE_URL")}
    where = subprocess.run(
        [python, "-c", "import service; print(service.__file__)"],
        cwd=elsewhere,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert where.startswith(str(venv)), where
    yokai = venv / "bin" / "yokai"
    spec = subprocess.run(
        [yokai, "openapi"], cwd=elsewhere, env=env, check=True, capture_output=True, text=True
    ).stdout
    assert spec == (ROOT / "openapi" / "openapi.yaml").read_text()

    url = new_database(server_url, "yokai_wheel")
    port = free_port()
    with running(
        [yokai, "serve", "--port", str(port)],
        tmp_path / "serve.log",
        ready=lambda: answers(f"http://127.0.0.1:{port}"),
        env={**env, "DATABASE_URL": url, "YOKAI_WORKERS": "1"},
        cwd=elsewhere,
        what="the wheel's yokai serve",
    ):
        # The web client and the documents it links to came with the wheel.
        for path, expected in (
            ("/", b'src="/ui/js/main.js"'),
            ("/ui/js/main.js", b"lobbyPage"),
            ("/ui/i18n/zh.json", b"suit.green"),
            ("/sw.js", b"notificationclick"),
            ("/manifest.webmanifest", b'"display": "standalone"'),
            ("/ui/icons/icon-192.png", b"\x89PNG"),
            ("/docs/fairness.md", b"Checking a game yourself"),
        ):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
                assert expected in r.read(), path
    assert not re.search(r"Traceback", (tmp_path / "serve.log").read_text())


def _pinned(lock: Path) -> dict[str, str]:
    """Each locked package's version, checking that every pin carries its hashes."""
    text = lock.read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9_.-]+)==([^ ;\n]+)", text, re.M))
    for name in pins:
        entry = re.search(
            rf"^{re.escape(name)}==[^\n]*\\\n(\s+--hash=sha256:[0-9a-f]{{64}}.*)", text, re.M
        )
        assert entry is not None, f"{lock.name}: {name} has no hash"
    return {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in pins.items()}


def test_the_lock_files_pin_every_dependency_with_hashes() -> None:
    """scripts/lock.sh wrote them from pyproject.toml: run it after changing a dependency."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = _pinned(ROOT / "requirements" / "runtime.lock")
    dev = _pinned(ROOT / "requirements" / "dev.lock")

    def name(requirement: str) -> str:
        found = re.match(r"[A-Za-z0-9_.-]+", requirement)
        assert found is not None
        return re.sub(r"[-_.]+", "-", found[0]).lower()

    for requirement in project["dependencies"]:
        assert name(requirement) in runtime, requirement
        assert name(requirement) in dev, requirement
    for requirement in project["optional-dependencies"]["dev"]:
        assert name(requirement) in dev, requirement
    assert {k: v for k, v in dev.items() if k in runtime} == runtime  # the same versions
