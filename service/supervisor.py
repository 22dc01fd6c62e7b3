"""The processes `yokai serve` and `yokai worker` run: gunicorn and a worker beside it,
on one database (the settings' or an embedded one), with signals passed on; and the
worker loop of this process, its metrics served meanwhile."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path
from types import FrameType

from service import bootstrap, logs, metrics
from service.bootstrap import Container
from service.metrics import MULTIPROC_ENV, WORKER_METRICS_PORT_ENV
from service.settings import Settings
from service.worker import run_until_signalled

log = logging.getLogger("yokai.cli")


def _gunicorn_conf() -> Path:
    """deploy/gunicorn.conf.py: inside the installed package (``service.deploy``), else
    beside the source tree's service/."""
    try:
        return Path(str(resources.files("service.deploy") / "gunicorn.conf.py"))
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[1] / "deploy" / "gunicorn.conf.py"


GUNICORN_CONF = _gunicorn_conf()


def _children_env(settings: Settings) -> dict[str, str]:
    """The environment of the processes `serve` starts: the same database, chain key
    and anchors as this one."""
    env = {**os.environ, "DATABASE_URL": bootstrap.database_url(settings)}
    if settings.chain_key_file is not None and not settings.chain_key:
        env["YOKAI_CHAIN_KEY_FILE"] = str(settings.chain_key_file)
    if settings.anchor_dir is not None:
        env["YOKAI_ANCHOR_DIR"] = str(settings.anchor_dir)
    return env


def serve(settings: Settings, host: str, port: int) -> int:
    """Migrate, then run gunicorn and (unless YOKAI_EMBEDDED_WORKER=0) one `yokai worker`
    beside it; signals are passed on to both, and the worker is stopped when gunicorn
    ends. Gunicorn's exit status."""
    logs.configure(settings.log_level, settings.log_format)
    settings, embedded = bootstrap.database(settings)
    worker: subprocess.Popen[bytes] | None = None
    # One folder of metrics for this instance's processes (service/metrics.py), fresh:
    # files of processes of an earlier run would count again.
    own_metrics = not os.environ.get(MULTIPROC_ENV)
    metrics_dir = tempfile.mkdtemp(prefix="yokai-metrics-") if own_metrics else None
    try:
        bootstrap.check(settings)  # a clear error now, not a worker that fails to boot
        bootstrap.migrated(settings, grant=False)
        env = _children_env(settings)
        if metrics_dir is not None:
            env[MULTIPROC_ENV] = metrics_dir
        command = [sys.executable, "-m", "gunicorn", "--bind", f"{host}:{port}"]
        if GUNICORN_CONF.exists():
            command += ["--config", str(GUNICORN_CONF)]
        command.append("service.web.wsgi:app")
        child = subprocess.Popen(command, env=env)
        if settings.embedded_worker:
            # Its metrics are in this instance's folder: gunicorn's /metrics has them.
            worker_env = {k: v for k, v in env.items() if k != WORKER_METRICS_PORT_ENV}
            worker = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker"], env=worker_env
            )

        def forward(signum: int, _: FrameType | None) -> None:
            child.send_signal(signum)
            if worker is not None and signum != signal.SIGHUP:
                worker.send_signal(signum)

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, forward)
        return child.wait()
    finally:
        if worker is not None:
            _stop(worker)
        if embedded is not None:
            embedded.stop()
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)


def _stop(process: subprocess.Popen[bytes], grace: float = 30.0) -> None:
    """SIGTERM (the job in hand finishes), then SIGKILL if it is not over by ``grace``."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def work(settings: Settings) -> int:
    """Run the worker until SIGTERM/SIGINT (see service/worker.py); with
    YOKAI_WORKER_METRICS_PORT, serve its metrics there meanwhile."""
    logs.configure(settings.log_level, settings.log_format)
    with bootstrap.built(settings) as (on_database, container):
        return _work(on_database, container)


def _work(settings: Settings, container: Container) -> int:
    exposition = None
    try:
        if settings.worker_metrics_port is not None:
            host, port = settings.worker_metrics_host, settings.worker_metrics_port
            exposition = metrics.serve(host, port, container.stats.read)
            log.info("worker metrics on %s:%d", host, port)
        runner, sender = bootstrap.worker(settings, container)
        try:
            run_until_signalled(runner)
        finally:
            sender.close()  # after the worker: its attempts have ended and been recorded
        return 0
    finally:
        if exposition is not None:
            exposition.shutdown()
