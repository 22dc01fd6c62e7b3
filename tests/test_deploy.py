"""The deployment files (issue 16), checked without a registry or a Docker daemon: the
Dockerfile by hadolint, every YAML file by yamllint, the compose file against the
Compose Specification's JSON schema (as check-jsonschema ships it) and its services
against the `yokai` commands that exist, the manifests against the Kubernetes schemas,
and `yokai migrate` against PostgreSQL."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
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


def _yaml_files() -> list[Path]:
    """Every YAML file of the tree (not under a dot folder such as .venv), and .yamllint."""
    found = [
        p
        for pattern in ("*.yaml", "*.yml")
        for p in ROOT.rglob(pattern)
        if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
    ]
    return [*sorted(found), ROOT / ".yamllint"]


def test_every_yaml_file_passes_yamllint() -> None:
    files = _yaml_files()
    names = {p.relative_to(ROOT).as_posix() for p in files}
    assert {"deploy/compose.yaml", "openapi/openapi.yaml", ".yamllint"} <= names
    result = subprocess.run(
        [BIN / "yamllint", "-c", ROOT / ".yamllint", "--strict", *files],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _compose_schema() -> dict[str, Any]:
    """The Compose Specification's JSON schema, as the pinned check-jsonschema package
    vendors it (requirements/dev.lock), checked against the digest it ships beside it."""
    vendor = resources.files("check_jsonschema.builtin_schemas.vendor")
    raw = (vendor / "compose-spec.json").read_bytes()
    digest = (vendor / "sha256" / "compose-spec.sha256").read_text().strip()
    assert hashlib.sha256(raw).hexdigest() == digest
    schema: dict[str, Any] = json.loads(raw)
    assert schema["title"] == "Compose Specification"
    return schema


def _compose_errors(document: Any) -> list[str]:
    schema = _compose_schema()
    validator = jsonschema.validators.validator_for(schema)
    validator.check_schema(schema)
    checker = validator(schema, format_checker=validator.FORMAT_CHECKER)
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in checker.iter_errors(document)
    ]


def _compose() -> dict[str, Any]:
    compose: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    return compose


def test_the_compose_file_is_valid_against_the_compose_specification() -> None:
    assert _compose_errors(_compose()) == []


@pytest.mark.parametrize(
    ("where", "key", "bad"),
    [
        (("services", "api"), "restart", 5),  # a string
        (("services", "worker"), "healthcheck", {"test": ["CMD", "x"], "every": "5s"}),
        (("services", "db"), "image_name", "postgres:16"),  # no such key
        ((), "service", {}),  # a typo of a top-level key
    ],
)
def test_the_compose_schema_refuses_what_compose_would(
    where: tuple[str, ...], key: str, bad: object
) -> None:
    """The schema is not one that lets everything through."""
    compose = _compose()
    node = compose
    for part in where:
        node = node[part]
    node[key] = bad
    assert _compose_errors(compose)


def _check_alive(command: list[str], heartbeat: Path) -> int:
    """Run a probe's ``yokai worker --check-alive ...`` here, on ``heartbeat``."""
    assert command[:2] == ["yokai", "worker"], command
    env = {**os.environ, "YOKAI_WORKER_HEARTBEAT": str(heartbeat)}
    done = subprocess.run(
        [*YOKAI, *command[1:]], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode in (0, 1), done.stderr  # not a usage error (2)
    return done.returncode


def test_the_compose_health_checks_fit_each_service(tmp_path: Path) -> None:
    """The image checks /healthz; the migration serves nothing (its check is off) and the
    worker's check is its heartbeat: fresh passes, stale or missing fails."""
    services = _compose()["services"]
    assert "healthcheck" not in services["api"]  # the image's, on /healthz
    assert services["migrate"]["healthcheck"] == {"disable": True}
    check = services["worker"]["healthcheck"]["test"]
    assert check[0] == "CMD"
    heartbeat = tmp_path / "heartbeat"
    assert _check_alive(check[1:], heartbeat) == 1  # no heartbeat yet
    heartbeat.touch()
    assert _check_alive(check[1:], heartbeat) == 0
    old = time.time() - 3600
    os.utime(heartbeat, (old, old))
    assert _check_alive(check[1:], heartbeat) == 1


def test_the_worker_serves_its_metrics_on_the_compose_network() -> None:
    worker = _compose()["services"]["worker"]
    port = worker["environment"]["YOKAI_WORKER_METRICS_PORT"]
    assert worker["expose"] == [port]


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
        if container["args"][0] == "worker":
            probe = container["livenessProbe"]["exec"]["command"]
            assert probe[:3] == ["yokai", "worker", "--check-alive"], probe
        refs = [e.get("secretRef", {}).get("name") for e in container["envFrom"]]
        # The owner's credentials go to the migration Job only.
        assert ("yokai-migration-secrets" in refs) == (container["args"][0] == "migrate"), name
    assert commands == {"serve", "worker", "migrate"}
    for command in commands:
        help_run = subprocess.run(
            [*YOKAI, command, "--help"], capture_output=True, text=True, check=False
        )
        assert help_run.returncode == 0, (command, help_run.stderr)


def _worker_pod() -> dict[str, Any]:
    (pod,) = [p for _, p in _pods() if p["containers"][0]["args"] == ["worker"]]
    return pod


def test_the_worker_pod_is_probed_by_its_heartbeat_and_scraped_on_its_metrics_port(
    tmp_path: Path,
) -> None:
    (deployment,) = [d for n, d in _k8s_documents() if n == "worker-deployment.yaml"]
    pod = _worker_pod()
    (container,) = pod["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    # The heartbeat is written where the read-only root filesystem lets it be.
    mounts = [m["mountPath"] for m in container["volumeMounts"]]
    assert any(env["YOKAI_WORKER_HEARTBEAT"].startswith(m.rstrip("/") + "/") for m in mounts)
    probe = container["livenessProbe"]
    assert probe["timeoutSeconds"] >= 5  # the command starts a Python
    heartbeat = tmp_path / "heartbeat"
    assert _check_alive(probe["exec"]["command"], heartbeat) == 1
    heartbeat.touch()
    assert _check_alive(probe["exec"]["command"], heartbeat) == 0
    (port,) = container["ports"]
    assert str(port["containerPort"]) == env["YOKAI_WORKER_METRICS_PORT"]
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == env["YOKAI_WORKER_METRICS_PORT"]
    assert annotations["prometheus.io/path"] == "/metrics"
