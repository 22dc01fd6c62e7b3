"""The service behind a real PgBouncer in transaction mode (docs/operations.md): whole
games play through it with prepared statements off, and commits still wake waiting
long-polls, whose LISTEN runs on a direct connection (PgBouncer cannot carry it)."""

from __future__ import annotations

import dataclasses
import os
import pwd
import random
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from service.settings import Settings
from tests.support import processes
from tests.support.api import Api
from tests.support.ports import free_port, listens
from tests.support.postgres import SUITE_APP_ROLE, running_app
from tests.support.processes import NotReadyError

pytestmark = pytest.mark.slow
PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"


def _runs_as() -> list[str]:
    """PgBouncer refuses to run as root: then as the embedded server's user."""
    if os.geteuid() != 0:
        return []
    for user in ("pgserver", "postgres", "nobody"):
        try:
            pwd.getpwnam(user)
        except KeyError:
            continue
        return ["runuser", "-u", user, "--"]
    raise AssertionError("no user to run pgbouncer as")


@pytest.fixture(scope="module")
def bouncer(app_database_url: str) -> Iterator[str]:
    """PgBouncer (Debian's package; scripts/test.sh installs it) in transaction mode
    in front of the suite's server; the service role's URL through it."""
    assert Path(PGBOUNCER).exists(), "pgbouncer is not installed (scripts/test.sh installs it)"
    direct = make_url(app_database_url)
    host = str(direct.query.get("host") or direct.host or "127.0.0.1")
    port = direct.port or 5432
    folder = Path(tempfile.mkdtemp(prefix="yokai-pgbouncer-"))
    folder.chmod(0o777)
    listen = free_port()
    (folder / "users.txt").write_text(f'"{SUITE_APP_ROLE}" ""\n')
    ini = folder / "pgbouncer.ini"
    ini.write_text(
        "[databases]\n"
        f"* = host={host} port={port}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {listen}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {folder}/users.txt\n"
        "pool_mode = transaction\ndefault_pool_size = 1\nmax_client_conn = 200\n"
        f"logfile = {folder}/pgbouncer.log\npidfile = {folder}/pgbouncer.pid\n"
    )
    for path in folder.iterdir():
        path.chmod(0o644)
    process = processes.start(
        [*_runs_as(), PGBOUNCER, str(ini)], folder / "pgbouncer.out", what="pgbouncer"
    )
    try:
        try:
            process.wait_ready(lambda: listens(listen), 20, every=0.05)
        except NotReadyError as error:
            log = folder / "pgbouncer.log"
            raise AssertionError(f"{error} {log.read_text() if log.exists() else ''}") from None
        yield direct.set(host="127.0.0.1", port=listen, query={}).render_as_string(
            hide_password=False
        )
    finally:
        process.stop(10)
        shutil.rmtree(folder, ignore_errors=True)


def _through(settings: Settings, bouncer: str, direct: str, *, prepared: bool) -> Settings:
    return dataclasses.replace(
        settings,
        database_url=bouncer,
        listen_database_url=direct,  # LISTEN on a direct connection
        db_prepared_statements=prepared,
    )


def _alternate(first: Api, second: Api, players: int, variant: str, seed: int) -> bool:
    """A whole game whose commands go to two processes in turn (both pools share
    PgBouncer's one server connection); whether it finished."""
    game = first.start(players, variant=variant)
    rng = random.Random(seed)
    apis = [first, second]
    for n in range(2000):
        api = apis[n % 2]
        if api.random_move(game, [api.view(game, s) for s in range(players)], rng) is None:
            break
    return bool(first.public(game.id)["status"] == "finished")


def test_whole_games_play_through_pgbouncer_and_commits_wake_long_polls(
    bouncer: str, app_database_url: str, settings: Settings
) -> None:
    through = _through(settings, bouncer, app_database_url, prepared=False)
    with running_app(through) as made, running_app(through) as other:
        api: Api = made.api()
        for players, variant in ((3, "standard"), (4, "seven_followers")):
            assert _alternate(api, other.api(), players, variant, players)
        # A long-poll waits for the next commit, heard by LISTEN beside PgBouncer.
        game = api.start(3)
        version = api.public(game.id)["version"]
        answered: list[int] = []

        def wait() -> None:
            r = made.api().get(
                f"/v1/games/{game.id}/events?after={version}&wait=20", **game.seat_headers(0)
            )
            answered.extend(e["seq"] for e in r.get_json()["events"])

        waiter = threading.Thread(target=wait)
        waiter.start()
        deadline = time.monotonic() + 10
        hub = made.container.deps.changes
        while not (made.container.listener.listening.is_set() and hub.waiters() > 0):
            assert time.monotonic() < deadline, "the long-poll did not start waiting"
            time.sleep(0.01)
        rng = random.Random(9)
        assert api.act_randomly(game, rng) is not None
        waiter.join(timeout=30)
        assert not waiter.is_alive()
        assert answered and answered[0] == version + 1


def test_prepared_statements_do_not_survive_transaction_pooling(
    bouncer: str, app_database_url: str, settings: Settings
) -> None:
    """Why YOKAI_DB_PREPARED_STATEMENTS=0 behind PgBouncer 1.18: two processes' prepared
    statements meet on one server connection ("_pg3_0" already exists), and requests fail."""
    through = _through(settings, bouncer, app_database_url, prepared=True)
    with (
        running_app(through) as made,
        running_app(through) as other,
        pytest.raises(AssertionError, match="internal_error"),
    ):
        _alternate(made.api(), other.api(), 3, "standard", 1)
