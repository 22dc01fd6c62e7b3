#!/usr/bin/env bash
# Installs the project and its dev tools into .venv, then runs the whole suite:
# formatting, lint, types, import-layer contracts and the tests (on a real PostgreSQL:
# an embedded server unless TEST_DATABASE_URL is set). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'

.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
.venv/bin/pytest "$@"
