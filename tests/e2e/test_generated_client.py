"""A client generated from the contract alone plays whole games against the real service:
openapi-python-client generates it from openapi/openapi.yaml (offline, into a temporary
folder), `mypy --strict` checks tests/client/play_game.py against it (every field a
response always has is required, a nullable enum one type), and the script plays a
standard three- and four-player game and a Seven Followers one against `yokai serve`.

Alone: `.venv/bin/pytest tests/e2e/test_generated_client.py -s`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.serve import serving

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "openapi" / "openapi.yaml"
SCRIPT = ROOT / "tests" / "client" / "play_game.py"
PACKAGE = "yokai_septet_server_client"  # from the contract's title


def run(command: list[str], cwd: Path, **env: str) -> str:
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    return output


def test_a_client_generated_from_the_contract_type_checks_and_plays(
    server_url: str, tmp_path: Path
) -> None:
    generated = tmp_path / "generated"
    config = tmp_path / "generator.yaml"
    config.write_text("post_hooks: []\n")  # no formatter from PATH: the same output anywhere
    warnings = run(
        [
            *(sys.executable, "-m", "openapi_python_client", "generate", "--path", str(SPEC)),
            *("--meta", "none", "--config", str(config)),
            *("--output-path", str(generated / PACKAGE)),
        ],
        cwd=tmp_path,
    )
    # What it cannot generate (text bodies, NDJSON): the rest of the contract it can.
    print("\nopenapi-python-client:", *[w for w in warnings.splitlines() if "WARNING" in w])
    assert (generated / PACKAGE / "api" / "games" / "play_card.py").exists()

    # Run where no project configuration applies: the script alone, strictly.
    run(
        [
            *(sys.executable, "-m", "mypy", "--strict", "--follow-imports", "silent"),
            *("--cache-dir", str(tmp_path / "mypy"), str(SCRIPT)),
        ],
        cwd=tmp_path,
        MYPYPATH=str(generated),
    )

    # Each command reads every seat's view: more than the default limit allows a seat.
    with serving(server_url, tmp_path / "serve.log", YOKAI_RATE_LIMIT="") as base:
        for players, variant in ((3, "standard"), (4, "standard"), (4, "seven_followers")):
            output = run(
                [sys.executable, str(SCRIPT), base, str(players), variant],
                cwd=tmp_path,
                PYTHONPATH=str(generated),
            )
            print(f"{players} players, {variant}:\n{output}")
            assert output.splitlines()[-1].startswith("finished: ")
