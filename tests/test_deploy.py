"""The deployment files (issue 16), checked without a registry or a Docker daemon: the
Dockerfile by hadolint, every YAML file by yamllint, the compose file against the
Compose Specification's JSON schema (as check-jsonschema ships it) and its services
against the `yokai` commands that exist, the manifests against the Kubernetes schemas,
`yokai migrate` against PostgreSQL, and the kit's Redis (its arguments, its probe and the
URL the service is given) against a redis-server here."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import jsonschema
import kubernetes_validate
import pytest
import redis
import yaml
from sqlalchemy import create_engine

from service.adapters import migrate
from service.adapters.bus import CHANNEL, RedisAnnouncer
from service.adapters.postgres.engine import sqlalchemy_url
from service.application.live.relay import AnnounceError
from service.settings import Settings
from tests.support import processes
from tests.support import redis_server as redis_support
from tests.support.ports import free_port
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
    assert set(services) == {"db", "redis", "migrate", "api", "worker"}
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


REDIS_PASSWORD = "0123456789abcdef" * 4  # as `openssl rand -hex 32` makes one


def _interpolated(text: str, env: Mapping[str, str]) -> str:
    """``text`` as Compose interpolates it from ``env``: ``${NAME}``, ``${NAME:?error}``
    (an error when unset or empty), ``${NAME:-default}``, ``$NAME`` and ``$$``."""

    def value(match: re.Match[str]) -> str:
        if match[0] == "$$":
            return "$"
        name = match[1] or match[4]
        given = env.get(name, "")
        if match[2] in (":?", "?") and (name not in env or (match[2] == ":?" and not given)):
            raise KeyError(f"{name}: {match[3]}")
        if match[2] in (":-", "-") and (name not in env or (match[2] == ":-" and not given)):
            return match[3]
        return given

    return re.sub(r"\$\$|\$\{(\w+)(?:(:?[?-])([^}]*))?\}|\$(\w+)", value, text)


def _compose_variables() -> set[str]:
    return set(re.findall(r"\$\{(\w+)", (ROOT / "deploy" / "compose.yaml").read_text()))


def _compose_with(env: Mapping[str, str]) -> dict[str, Any]:
    text = _interpolated((ROOT / "deploy" / "compose.yaml").read_text(), env)
    compose: dict[str, Any] = yaml.safe_load(text)
    return compose


def _compose_env() -> dict[str, str]:
    """A value for each variable the compose file reads, Redis's password a known one."""
    env = {name: f"{name.lower()}-value" for name in _compose_variables()}
    return {**env, "YOKAI_REDIS_PASSWORD": REDIS_PASSWORD}


def test_the_compose_file_runs_redis_for_live_delivery_behind_a_password() -> None:
    """Redis keeps nothing, answers only its password (one variable, required) and is
    health checked; every yokai process is given one URL to it with that password, and
    the API and the worker start once it is healthy."""
    assert "YOKAI_REDIS_PASSWORD" in _compose_variables()
    without = {k: v for k, v in _compose_env().items() if k != "YOKAI_REDIS_PASSWORD"}
    with pytest.raises(KeyError, match="YOKAI_REDIS_PASSWORD"):
        _compose_with(without)
    services = _compose_with(_compose_env())["services"]
    redis_service = services["redis"]
    assert redis_service["image"].startswith("redis:7")
    command = redis_service["command"]
    assert command[0] == "redis-server"
    options = dict(zip(command[1::2], command[2::2], strict=True))
    assert options == {"--requirepass": REDIS_PASSWORD, "--save": "", "--appendonly": "no"}
    assert "volumes" not in redis_service and "ports" not in redis_service
    assert redis_service["healthcheck"]["test"][0] == "CMD-SHELL"
    assert redis_service["environment"]["REDISCLI_AUTH"] == REDIS_PASSWORD
    urls = {
        name: service["environment"].get("YOKAI_REDIS_URL")
        for name, service in services.items()
        if service.get("image") == "yokai:latest"
    }
    assert set(urls) == {"migrate", "api", "worker"}
    assert set(urls.values()) == {f"redis://:{REDIS_PASSWORD}@redis:6379/0"}
    assert Settings.from_env({"YOKAI_REDIS_URL": urls["api"]}).redis_url == urls["api"]
    for name in ("api", "worker"):
        assert services[name]["depends_on"]["redis"] == {"condition": "service_healthy"}, name


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
    images = set()
    for name, pod in _pods():
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        (container,) = pod["containers"]
        assert container["securityContext"]["readOnlyRootFilesystem"] is True, name
        assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
        assert container["resources"]["requests"] and container["resources"]["limits"], name
        images.add(container["image"])
        if container["image"] != "yokai":
            continue
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
    assert images == {"yokai", "redis:7"}
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
    env = _container_env(container, _secret())
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


def _secret() -> dict[str, str]:
    """The yokai-secrets of secret.example.yaml, Redis's password a known one."""
    (secret,) = [d for n, d in _k8s_documents() if d["metadata"]["name"] == "yokai-secrets"]
    assert "YOKAI_REDIS_PASSWORD" in secret["stringData"]
    return {**secret["stringData"], "YOKAI_REDIS_PASSWORD": REDIS_PASSWORD}


def _expanded(text: str, env: Mapping[str, str]) -> str:
    """``$(NAME)`` as Kubernetes expands it in env values and args (``$$`` escapes; an
    undefined name stays as it is)."""
    return re.sub(
        r"\$\$|\$\((\w+)\)",
        lambda m: "$" if m[0] == "$$" else env.get(m[1], m[0]),
        text,
    )


def _container_env(container: dict[str, Any], secret: Mapping[str, str]) -> dict[str, str]:
    """A container's ``env`` as its process gets it: each value expanded from the entries
    before it, each secretKeyRef read from yokai-secrets (``secret``)."""
    env: dict[str, str] = {}
    for entry in container.get("env", []):
        if "valueFrom" in entry:
            ref = entry["valueFrom"]["secretKeyRef"]
            assert ref["name"] == "yokai-secrets", entry
            env[entry["name"]] = secret[ref["key"]]
        else:
            env[entry["name"]] = _expanded(entry["value"], env)
    return env


def _deployment(name: str) -> dict[str, Any]:
    (deployment,) = [
        d
        for _, d in _k8s_documents()
        if d["kind"] == "Deployment" and d["metadata"]["name"] == name
    ]
    return deployment


def _redis_k8s_service() -> dict[str, Any]:
    """The Service in front of the Redis pod (by its selector and target port)."""
    pod = _deployment("yokai-redis")["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    (service,) = [
        d
        for _, d in _k8s_documents()
        if d["kind"] == "Service"
        and d["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    ]
    (port,) = service["spec"]["ports"]
    assert ports[port["targetPort"]] == 6379
    return service


def test_the_kubernetes_redis_keeps_nothing_and_is_probed() -> None:
    """One Redis at a time (two would split the pods between them), nothing kept, only its
    own password from the Secret, and a readiness and a liveness probe."""
    deployment = _deployment("yokai-redis")
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"] == {"type": "Recreate"}
    pod = deployment["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert "envFrom" not in container  # no other secret of the service reaches it
    env = _container_env(container, _secret())
    args = [_expanded(a, env) for a in container["args"]]
    assert args[0] == "redis-server"
    options = dict(zip(args[1::2], args[2::2], strict=True))
    assert options == {"--requirepass": REDIS_PASSWORD, "--save": "", "--appendonly": "no"}
    assert env["REDISCLI_AUTH"] == REDIS_PASSWORD
    volumes = {v["name"]: v for v in pod["volumes"]}
    for mount in container["volumeMounts"]:  # none that would outlive the pod
        assert set(volumes[mount["name"]]) == {"name", "emptyDir"}, mount
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["exec"]["command"][:2] == ["sh", "-c"], probe
    assert _redis_k8s_service()["metadata"]["name"] == "yokai-redis"


def test_the_api_and_the_worker_pods_reach_redis_with_its_password() -> None:
    """The same URL in both (every process needs the same one), to the Redis Service,
    with the password of the Secret, which only the Secret holds."""
    service = _redis_k8s_service()
    secret = _secret()
    urls = {}
    for name in ("yokai-api", "yokai-worker"):
        (container,) = _deployment(name)["spec"]["template"]["spec"]["containers"]
        urls[name] = _container_env(container, secret)["YOKAI_REDIS_URL"]
    (url,) = set(urls.values())
    (port,) = service["spec"]["ports"]
    assert url == f"redis://:{REDIS_PASSWORD}@{service['metadata']['name']}:{port['port']}/0"
    assert Settings.from_env({"YOKAI_REDIS_URL": url}).redis_url == url
    (configmap,) = [d for _, d in _k8s_documents() if d["kind"] == "ConfigMap"]
    assert not any("REDIS_URL" in key for key in configmap["data"])


class RedisKit(NamedTuple):
    """What a kit runs Redis with and gives the service: the server's arguments (after
    ``redis-server``), its probe's shell command and environment, the service's URL and
    the host and port it names."""

    arguments: list[str]
    probe: str
    probe_env: dict[str, str]
    url: str
    host: str


def _compose_redis_kit() -> RedisKit:
    services = _compose_with(_compose_env())["services"]
    kind, probe = services["redis"]["healthcheck"]["test"]
    assert kind == "CMD-SHELL"
    return RedisKit(
        services["redis"]["command"][1:],
        probe,
        dict(services["redis"]["environment"]),
        services["worker"]["environment"]["YOKAI_REDIS_URL"],
        "redis:6379",
    )


def _k8s_redis_kit() -> RedisKit:
    secret = _secret()
    (container,) = _deployment("yokai-redis")["spec"]["template"]["spec"]["containers"]
    env = _container_env(container, secret)
    sh, dash_c, probe = container["livenessProbe"]["exec"]["command"]
    assert [sh, dash_c] == ["sh", "-c"]
    assert container["readinessProbe"]["exec"]["command"][2] == probe
    (worker,) = _deployment("yokai-worker")["spec"]["template"]["spec"]["containers"]
    service = _redis_k8s_service()
    return RedisKit(
        [_expanded(a, env) for a in container["args"][1:]],
        probe,
        env,
        _container_env(worker, secret)["YOKAI_REDIS_URL"],
        f"{service['metadata']['name']}:{service['spec']['ports'][0]['port']}",
    )


def _probe(kit: RedisKit, port: int, env: Mapping[str, str]) -> int:
    """The kit's probe, here, against 127.0.0.1:``port``."""
    assert kit.probe.count("redis-cli ") == 1, kit.probe
    command = kit.probe.replace("redis-cli ", f"redis-cli -p {port} ")
    clean = {k: v for k, v in os.environ.items() if k != "REDISCLI_AUTH"}
    done = subprocess.run(
        ["sh", "-c", command], env={**clean, **env}, capture_output=True, text=True, check=False
    )
    return done.returncode


@pytest.mark.parametrize("kit", [_compose_redis_kit, _k8s_redis_kit], ids=["compose", "k8s"])
def test_the_kits_redis_takes_the_services_url_and_passes_its_probe(
    kit: Callable[[], RedisKit], tmp_path: Path
) -> None:
    """Run here as each kit runs it: the announcer the relay uses publishes with the
    URL the service is given, a client without the password is refused, nothing is
    saved, and the probe passes with the password and fails without it or the server."""
    if (reason := redis_support.missing()) is not None:
        pytest.skip(reason)
    if shutil.which("redis-cli") is None:
        pytest.skip("redis-cli is not installed (scripts/test.sh installs it)")
    redis_kit: RedisKit = kit()
    port = free_port()
    assert f"@{redis_kit.host}/" in redis_kit.url
    url = redis_kit.url.replace(f"@{redis_kit.host}/", f"@127.0.0.1:{port}/")
    assert urlsplit(url).password == REDIS_PASSWORD
    started = processes.start(
        [
            redis_support.REDIS,
            *redis_kit.arguments,
            *("--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path)),
        ],
        tmp_path / "redis.log",
        what="redis-server",
    )
    client = redis.Redis.from_url(url, socket_timeout=2)
    try:
        started.wait_ready(lambda: _probe(redis_kit, port, redis_kit.probe_env) == 0, 20, 0.05)
        assert _probe(redis_kit, port, {**redis_kit.probe_env, "REDISCLI_AUTH": "wrong"}) != 0
        assert _probe(redis_kit, port, {}) != 0
        anonymous = redis.Redis(port=port, socket_timeout=2)
        with pytest.raises(redis.AuthenticationError):
            anonymous.ping()
        anonymous.close()
        assert client.config_get("save") == {"save": ""}
        assert client.config_get("appendonly") == {"appendonly": "no"}
        subscription = client.pubsub()  # type: ignore[no-untyped-call]
        subscription.subscribe(CHANNEL)
        assert subscription.get_message(timeout=2)["type"] == "subscribe"
        announcer = RedisAnnouncer(url)
        try:
            announcer.announce(["g 1 2 1"])
        finally:
            announcer.close()
        message = subscription.get_message(timeout=2)
        assert message is not None and message["data"] == b"g 1 2 1"
        subscription.close()
        wrong = RedisAnnouncer(url.replace(REDIS_PASSWORD, "wrong"))
        with pytest.raises(AnnounceError):
            wrong.announce(["g 1 3 2"])
        wrong.close()
    finally:
        client.close()
        started.stop(10)
    assert _probe(redis_kit, port, redis_kit.probe_env) != 0  # no server: no PONG
