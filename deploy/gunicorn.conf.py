"""gunicorn settings for `yokai serve` (any setting can be overridden by GUNICORN_CMD_ARGS)."""

import multiprocessing
import os

workers = int(os.environ.get("YOKAI_WORKERS", str(multiprocessing.cpu_count())))
worker_class = "gthread"
threads = int(os.environ.get("YOKAI_THREADS", "4"))
timeout = 30
graceful_timeout = 20
keepalive = 5
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("YOKAI_LOG_LEVEL", "info").lower()
# Request line and headers stay small; bodies are capped at 64 KiB by the app itself.
limit_request_line = 8190
limit_request_fields = 100
