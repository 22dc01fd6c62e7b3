#!/usr/bin/env bash
# Installs the project into .venv and starts the service (`yokai serve`): migrations,
# then gunicorn. Without DATABASE_URL it runs an embedded PostgreSQL in the user's data
# folder (~/.local/share/yokai; YOKAI_DATA_DIR to choose another).
# Arguments go to `yokai serve` (e.g. --host 0.0.0.0 --port 8000).
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes \
  -r requirements/runtime.lock
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
exec .venv/bin/yokai serve "$@"
