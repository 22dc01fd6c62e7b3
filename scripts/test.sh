#!/usr/bin/env bash
# Installs the project and its dev tools into .venv (the versions of requirements/dev.lock), then runs the whole suite:
# formatting, lint, types, import-layer contracts, the web client's JavaScript (its unit
# tests under node, its JSDoc types under tsc) and the tests (on a real PostgreSQL: an
# embedded server unless TEST_DATABASE_URL is set). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
# Debian's packages of the real servers some tests run, if missing: PgBouncer
# (tests/integration/test_pgbouncer.py) and Redis (the shared rate limits and the bus of
# many nodes: tests/e2e/test_shared_rate_limits.py, tests/integration/test_relay.py...).
apt_install() {
  echo "scripts/test.sh: installing Debian's $* (apt-get, as root; README.md says why)" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y -q "$@" >/dev/null || (apt-get update -q >/dev/null && apt-get install -y -q "$@" >/dev/null)
  else
    sudo apt-get install -y -q "$@" >/dev/null
  fi
}
if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  apt_install pgbouncer
fi
if ! command -v redis-server >/dev/null && [ ! -x /usr/bin/redis-server ]; then
  apt_install redis-server
fi
# Patroni, etcd and PostgreSQL (Debian's packages) for the failover test (tests/ha), as root.
if [ "$(id -u)" = 0 ]; then
  echo "scripts/test.sh: making sure Debian's patroni, etcd-server and postgresql are installed (for tests/ha)" >&2
  bash scripts/ha.sh install || echo "scripts/test.sh: could not install patroni, etcd-server, postgresql: tests/ha will not run" >&2
fi
# Chromium (Debian's package) for the browser tests (tests/browser), if missing. Without
# it they are skipped with how to install it, except under CI=true, where they fail.
if ! command -v chromium >/dev/null && [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "scripts/test.sh: installing Debian's chromium (apt-get, as root; README.md says why)" >&2
    apt-get install -y -q chromium >/dev/null \
      || (apt-get update -q >/dev/null && apt-get install -y -q chromium >/dev/null) \
      || echo "scripts/test.sh: could not install chromium: the browser tests will not run" >&2
  else
    echo "scripts/test.sh: chromium is missing (sudo apt-get install chromium): the browser tests will be skipped" >&2
  fi
fi

# Node.js and npm (Debian's packages), if missing, for the web client's JavaScript checks.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  apt_install nodejs npm
fi

# The locked versions, each file checked against its hash (scripts/lock.sh), then the
# project itself.
.venv/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes \
  -r requirements/dev.lock
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .

.venv/bin/ruff format --check .
.venv/bin/ruff check .
.venv/bin/mypy
.venv/bin/lint-imports --no-cache
# The web client (no build step: the browser loads service/web/ui/js as it is): the unit
# tests of its state modules under node's own test runner, then its JSDoc types checked
# by TypeScript, the version of package-lock.json (npm ci: checked against its hash).
node --test tests/js/
npm ci --no-audit --no-fund --loglevel=error
node_modules/.bin/tsc -p tsconfig.json
.venv/bin/pytest "$@"
