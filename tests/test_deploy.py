"""The deployment files (issue 16, first step), checked without a registry or a Docker
daemon: the Dockerfile by hadolint, the YAML by yamllint, the compose file's services
against the `yokai` commands that exist, and `yokai migrate` against PostgreSQL."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import kubernetes_validate
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


K8S = ROOT / "deploy" / "k8s"
K8S_VERSION = "1.30.0"  # the oldest Kubernetes the manifests are meant for


def _k8s_documents() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            found.append((path.name, doc))
    return found


def test_every_kubernetes_manifest_is_valid_for_its_kind() -> None:
    documents = _k8s_documents()
    kinds = {doc["kind"] for _, doc in documents}
    assert {
        "Deployment",
        "Job",
        "Service",
        "HorizontalPodAutoscaler",
        "PodDisruptionBudget",
        "ConfigMap",
        "Secret",
    } <= kinds
    for name, doc in documents:
        try:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            raise AssertionError(f"{name}: {exc.message} at {list(exc.path)}") from None


def test_the_kustomization_holds_every_manifest_but_the_secret_example() -> None:
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == files - {"secret.example.yaml"}
    kubectl = shutil.which("kubectl")
    if kubectl is not None:  # where kubectl is installed, the base also builds
        built = subprocess.run(
            [kubectl, "kustomize", str(K8S)], capture_output=True, text=True, check=False
        )
        assert built.returncode == 0, built.stderr
        assert len(list(yaml.safe_load_all(built.stdout))) == len(listed)


def _pods() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name, doc in _k8s_documents():
        if doc["kind"] in ("Deployment", "Job"):
            out.append((name, doc["spec"]["template"]["spec"]))
    return out


def test_the_pods_run_yokai_commands_without_privileges() -> None:
    graceful = int(
        re.search(
            r"^graceful_timeout = (\d+)", (ROOT / "deploy" / "gunicorn.conf.py").read_text(), re.M
        )[1]  # type: ignore[index]
    )
    commands = set()
    for name, pod in _pods():
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        (container,) = pod["containers"]
        assert container["securityContext"]["readOnlyRootFilesystem"] is True, name
        assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
        assert container["resources"]["requests"] and container["resources"]["limits"], name
        commands.add(container["args"][0])
        if container["args"][0] == "serve":
            assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
            assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
            assert pod["terminationGracePeriodSeconds"] > graceful
        refs = [e.get("secretRef", {}).get("name") for e in container["envFrom"]]
        # The owner's credentials go to the migration Job only.
        assert ("yokai-migration-secrets" in refs) == (container["args"][0] == "migrate"), name
    assert commands == {"serve", "worker", "migrate"}
    for command in commands:
        help_run = subprocess.run(
            [*YOKAI, command, "--help"], capture_output=True, text=True, check=False
        )
        assert help_run.returncode == 0, (command, help_run.stderr)
