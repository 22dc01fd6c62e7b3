"""The processes `yokai serve` and `yokai worker` run: gunicorn and a worker beside it,
on one database (the settings' or an embedded one), with signals passed on; and the
worker loop of this process, its metrics served meanwhile."""

from __future__ import annotations

import http.client
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from types import FrameType

from service import bootstrap, logs, metrics
from service.bootstrap import Container
from service.metrics import MULTIPROC_ENV, WORKER_METRICS_PORT_ENV
from service.settings import ConfigurationError, Settings
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
    ends. Gunicorn's exit status: 0 when stopped by SIGTERM or Ctrl-C (SIGINT)."""
    try:
        return _serve(settings, host, port)
    except KeyboardInterrupt:  # Ctrl-C before gunicorn started: what was started is stopped
        return 0


def _serve(settings: Settings, host: str, port: int) -> int:
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
        # The children have a process group of their own: a terminal's Ctrl-C (SIGINT to
        # its foreground group) reaches this process only, which stops them as SIGTERM
        # does. Sent to gunicorn's gevent workers directly, it would end each with a
        # SystemExit traceback, and gunicorn without letting requests finish.
        child = subprocess.Popen(command, env=env, process_group=0)
        if settings.embedded_worker:
            # Its metrics are in this instance's folder: gunicorn's /metrics has them.
            worker_env = {k: v for k, v in env.items() if k != WORKER_METRICS_PORT_ENV}
            worker = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "worker"], env=worker_env, process_group=0
            )

        def forward(signum: int, _: FrameType | None) -> None:
            sent = signal.SIGTERM if signum == signal.SIGINT else signum
            child.send_signal(sent)
            if worker is not None and signum != signal.SIGHUP:
                worker.send_signal(sent)

        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, forward)
        threading.Thread(target=_announce, args=(host, port, child), daemon=True).start()
        return child.wait()
    finally:
        if worker is not None:
            _stop(worker)
        if embedded is not None:
            embedded.stop()
        if metrics_dir is not None:
            shutil.rmtree(metrics_dir, ignore_errors=True)


_WILDCARDS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1", "[::]": "::1"}


def _announce(host: str, port: int, gunicorn: subprocess.Popen[bytes]) -> None:
    """Once gunicorn answers /healthz, say where to open the service: a log line like
    every other (JSON where the logs are, on the logs' stream)."""
    local = _WILDCARDS.get(host, host).strip("[]")
    while gunicorn.poll() is None:
        connection = http.client.HTTPConnection(local, port, timeout=2)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                shown = f"[{local}]" if ":" in local else local
                where = f" (serving on {host or '*'}:{port})" if host in _WILDCARDS else ""
                log.info("open http://%s:%s/%s", shown, port, where)
                return
        except OSError:
            pass
        finally:
            connection.close()
        time.sleep(0.2)


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


def relay(settings: Settings) -> int:
    """Run the relay until SIGTERM/SIGINT (service/application/live/relay.py): one at a
    time per database, the others waiting to take over."""
    logs.configure(settings.log_level, settings.log_format)
    if not settings.redis_url:  # said before an embedded server is started for nothing
        raise ConfigurationError("YOKAI_REDIS_URL must be set: the relay announces there")
    on_database, embedded = bootstrap.database(settings)
    try:
        runner, announcer = bootstrap.relay(on_database)
        stopping = runner.stop

        def stop(signum: int, _: FrameType | None) -> None:
            log.info("relay: %s: stopping", signal.Signals(signum).name)
            stopping()

        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, stop)
        try:
            runner.run()
        finally:
            announcer.close()
        return 0
    finally:
        if embedded is not None:
            embedded.stop()


def _relay_beside(settings: Settings) -> Callable[[], None]:
    """Start a relay in a thread of this process; returns what stops it."""
    runner, announcer = bootstrap.relay(settings)
    thread = threading.Thread(target=runner.run, name="yokai-relay", daemon=True)
    thread.start()

    def stop() -> None:
        runner.stop()
        thread.join(10)
        announcer.close()

    return stop


def _work(settings: Settings, container: Container) -> int:
    exposition = None
    try:
        if settings.worker_metrics_port is not None:
            host, port = settings.worker_metrics_host, settings.worker_metrics_port
            exposition = metrics.serve(host, port, container.stats.read)
            log.info("worker metrics on %s:%d", host, port)
        runner, sender = bootstrap.worker(settings, container)
        # Where a relay announces the commits (YOKAI_REDIS_URL), every worker runs one:
        # one announces, the others wait to take over (service/application/live/relay.py).
        relaying = _relay_beside(settings) if settings.redis_url else None
        try:
            run_until_signalled(runner)
        finally:
            sender.close()  # after the worker: its attempts have ended and been recorded
            if relaying is not None:
                relaying()
        return 0
    finally:
        if exposition is not None:
            exposition.shutdown()
