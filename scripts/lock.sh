#!/usr/bin/env bash
# Rewrites the lock files from pyproject.toml: every package pinned, with the hashes of
# all its files (every platform), for Python 3.11. Run it after changing a dependency,
# and commit the result; scripts/test.sh, scripts/serve.sh and deploy/Dockerfile
# install from these files with --require-hashes.
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
"$python" -m venv "$tools"
"$tools/bin/python" -m pip install --quiet --disable-pip-version-check 'uv>=0.5'
compile=("$tools/bin/uv" pip compile pyproject.toml --universal --python-version 3.11
  --generate-hashes --no-header --quiet)
"${compile[@]}" -o requirements/runtime.lock
"${compile[@]}" --extra dev -o requirements/dev.lock
