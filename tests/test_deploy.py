"""The deployment files (issue 16, first step), checked without a registry or a Docker
daemon: the Dockerfile by hadolint, the YAML by yamllint, the compose file's services
against the `yokai` commands that exist, and `yokai migrate` against PostgreSQL."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from sqlalchemy import create_engine

from service.adapters import migrate
from service.adapters.postgres.engine import sqlalchemy_url
from tests.support.postgres import new_database

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
YOKAI = [sys.executable, "-m", "service.cli"]


def test_the_dockerfile_passes_hadolint() -> None:
    result = subprocess.run(
        [BIN / "hadolint", ROOT / "deploy" / "Dockerfile"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_image_runs_yokai_as_a_user_without_privileges_and_checks_its_health() -> None:
    text = (ROOT / "deploy" / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["yokai"]' in text
    assert "USER 10001" in text
    assert "HEALTHCHECK" in text and "/healthz" in text


def test_the_deployment_yaml_passes_yamllint() -> None:
    files = sorted((ROOT / "deploy").rglob("*.yaml"))
    assert files
    result = subprocess.run(
        [BIN / "yamllint", "-c", ROOT / ".yamllint", "--strict", *files],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_compose_services_run_commands_that_exist() -> None:
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "migrate", "api", "worker"}
    assert services["db"]["image"].startswith("postgres:16")
    assert "healthcheck" in services["db"] and services["db"]["volumes"]
    for name in ("migrate", "api", "worker"):
        command = services[name]["command"]
        help_run = subprocess.run(
            [*YOKAI, command[0], "--help"], capture_output=True, text=True, check=False
        )
        assert help_run.returncode == 0, (name, help_run.stderr)
        assert services[name]["environment"]["DATABASE_URL"].startswith("postgresql://")
    assert services["api"]["environment"]["YOKAI_EMBEDDED_WORKER"] == "0"


def test_yokai_migrate_applies_the_migrations_and_exits(server_url: str) -> None:
    url = new_database(server_url, "yokai_migrate")
    env = {**os.environ, "DATABASE_URL": url}
    result = subprocess.run(
        [*YOKAI, "migrate"], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    engine = create_engine(sqlalchemy_url(url))
    try:
        assert migrate.current_revision(engine) == migrate.head_revision(url)
    finally:
        engine.dispose()
