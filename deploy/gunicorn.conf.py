"""gunicorn settings for `yokai serve` (any setting can be overridden by GUNICORN_CMD_ARGS).

Serving model: gevent workers (one per core). Game streams (SSE) and long-polls stay open
for minutes while they wait for commits; in a gevent worker each is a parked greenlet,
holding neither an OS thread nor a database connection (psycopg 3 waits cooperatively
once gevent has patched `select`; it is imported only after the patch, in the worker).
A thread per connection (gthread) would need a thread per open stream. Commands and views
are short and CPU-bound either way: the write path runs about as fast under gevent as
under gthread (docs/benchmarks.md, "gevent against threads").
"""

import multiprocessing
import os
import signal
import threading

from gunicorn import glogging

from service.logs import gunicorn_logconfig

workers = int(os.environ.get("YOKAI_WORKERS", str(multiprocessing.cpu_count())))
worker_class = os.environ.get("YOKAI_WORKER_CLASS", "gevent")
# Open connections per worker (streams included); gthread workers use threads instead.
worker_connections = int(os.environ.get("YOKAI_WORKER_CONNECTIONS", "2000"))
threads = int(os.environ.get("YOKAI_THREADS", "4"))
timeout = 30
graceful_timeout = 20
keepalive = 5
# The app logs one JSON line per request itself (service/logs.py); gunicorn's own lines
# go out in the same format, and its access log stays off.
accesslog = None
errorlog = "-"


class _NoAccessLog(glogging.Logger):
    """gunicorn's logger without its access log, which the app's own request line
    replaces (service/web/app.py). gunicorn counts a ``logconfig_dict`` as asking for
    an access log, and would build each request's log atoms only for its WARNING level
    to drop them: 3 % of a play's CPU (docs/benchmarks.md)."""

    def access(self, resp, req, environ, request_time):  # type: ignore[no-untyped-def]
        return


logger_class = _NoAccessLog
loglevel = os.environ.get("YOKAI_LOG_LEVEL", "info").lower()
logconfig_dict = gunicorn_logconfig(loglevel.upper(), os.environ.get("YOKAI_LOG_FORMAT", "auto"))
# No control socket: nothing here uses gunicornc, and its default place is a folder it
# makes in the home directory of whoever runs the service.
control_socket_disable = True
# Request line and headers stay small; bodies are capped at 64 KiB by the app itself.
limit_request_line = 8190
limit_request_fields = 100


def on_starting(server):  # type: ignore[no-untyped-def]
    """The workers' count as gunicorn settled it (GUNICORN_CMD_ARGS included), for the
    app: without a shared rate-limit storage each worker counts alone, and is allowed
    YOKAI_RATE_LIMIT divided by it (service/web/ratelimit.py)."""
    os.environ["YOKAI_WORKERS"] = str(server.cfg.workers)


def post_worker_init(worker):  # type: ignore[no-untyped-def]
    """On SIGTERM, end the worker's open streams first (their clients reconnect, with
    Last-Event-ID, to a worker that stays), then stop as gunicorn does: requests in
    flight finish within graceful_timeout."""
    # Imported here: the master process must not import the app (nor psycopg) before
    # the workers patch for gevent.
    from service.web.app import begin_shutdown  # noqa: PLC0415

    app = worker.wsgi
    previous = signal.getsignal(signal.SIGTERM)

    def on_term(signum, frame):  # type: ignore[no-untyped-def]
        # Not in the handler itself: closing takes locks. Under gevent the handler runs
        # in the event loop, where nothing may block (not even Thread.start()): a
        # greenlet of its own, as gunicorn's gevent worker does for SIGQUIT.
        if "Gevent" in type(worker).__name__:
            import gevent  # noqa: PLC0415 - only in gevent workers

            gevent.spawn(begin_shutdown, app)
        else:
            threading.Thread(target=begin_shutdown, args=(app,), daemon=True).start()
        if callable(previous):
            previous(signum, frame)

    signal.signal(signal.SIGTERM, on_term)


def child_exit(server, worker):  # type: ignore[no-untyped-def]
    """A worker is gone: its live gauges (open streams, connections) stop counting."""
    from service.metrics import process_exited  # noqa: PLC0415 - not in the master early

    process_exited(worker.pid)
