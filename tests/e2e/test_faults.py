"""Faults while clients play (issue 14, part 4), against a real `yokai serve` on a
PostgreSQL server of the test's own: a gunicorn worker killed with SIGKILL, then
PostgreSQL restarted at once (`pg_ctl restart -m immediate`). Afterwards every
acknowledged command's events are there, `seq` has no gap, the service answers again
without a restart, and `yokai verify --all` passes. How many requests failed during each
fault, and with what, is printed (run with -s); none of them is a 500: a database that
cannot be reached is a 503, a killed worker a cut connection.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
import pytest

from tests.support import processes
from tests.support.ports import free_port
from tests.support.postgres import new_database
from tests.support.processes import answers
from tests.support.waiting import wait_for

pytestmark = pytest.mark.slow

YOKAI = [sys.executable, "-m", "service.cli"]
OP = "fault-operator-token-of-32-characters"


def call(
    port: int, method: str, path: str, body: Any = None, token: str | None = None
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        conn.close()


class Players:
    """Clients playing games and recording every acknowledged command."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.acked: dict[str, int] = {}  # game -> highest version a command answered with
        self.seen: Counter[str] = Counter()  # what the clients got back
        self.stop = threading.Event()
        self.lock = threading.Lock()

    def snapshot(self) -> Counter[str]:
        with self.lock:
            return self.seen.copy()

    def _note(self, status: int | str, game: str | None = None, version: int | None = None) -> None:
        with self.lock:
            self.seen[str(status)] += 1
            if game is not None and version is not None:
                self.acked[game] = max(self.acked.get(game, 0), version)

    def play(self) -> None:
        while not self.stop.is_set():
            try:
                self._one_game()
            except (OSError, http.client.HTTPException, KeyError, TypeError) as error:
                self._note(type(error).__name__)

    def _one_game(self) -> None:
        status, game = call(self.port, "POST", "/v1/games", {"players": 3})
        self._note(status, game.get("id") if status == 201 else None, game.get("version"))
        if status != 201:
            return
        gid, tokens = game["id"], []
        for seat in range(3):
            status, joined = call(self.port, "POST", f"/v1/games/{gid}/seats/{seat}", {"name": "x"})
            self._note(status, gid if status == 201 else None, joined.get("version"))
            if status != 201:
                return
            tokens.append(joined["token"])
        for _ in range(200):
            if self.stop.is_set():
                return
            for token in tokens:
                status, view = call(self.port, "GET", f"/v1/games/{gid}/view", token=token)
                if status != 200:
                    self._note(status)
                    return
                if view["status"] == "finished":
                    return
                if not view["legal"]:
                    continue
                if view["action"] == "pass":
                    path, body = "pass", {"cards": view["legal"][:3]}
                else:
                    path, body = "play", {"card": view["legal"][0]}
                status, after = call(self.port, "POST", f"/v1/games/{gid}/{path}", body, token)
                self._note(status, gid if status == 200 else None, after.get("version"))
                break


@pytest.fixture
def own_server() -> Iterator[tuple[Any, str]]:
    import pgserver  # noqa: PLC0415 - only this test runs a server of its own

    folder = Path(tempfile.mkdtemp(prefix="yokai-fault-pg-"))
    server = pgserver.get_server(folder / "data", cleanup_mode="delete")  # type: ignore[attr-defined]
    try:
        yield server, str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


def test_acknowledged_commands_survive_a_killed_worker_and_a_database_restart(
    own_server: tuple[Any, str], tmp_path: Path
) -> None:
    server, uri = own_server
    url = new_database(uri, "yokai_fault")
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "YOKAI_OPERATOR_TOKEN": OP,
        "YOKAI_WORKERS": "2",
        "YOKAI_EMBEDDED_WORKER": "0",
        "YOKAI_RATE_LIMIT": "",
    }
    serve = processes.start(
        [*YOKAI, "serve", "--port", str(port)], tmp_path / "serve.log", env=env, what="yokai serve"
    )
    base = f"http://127.0.0.1:{port}"
    players = Players(port)
    clients = [threading.Thread(target=players.play, daemon=True) for _ in range(4)]
    try:
        wait_for(lambda: answers(base), "the service")
        for client in clients:
            client.start()
        wait_for(lambda: sum(players.seen.values()) > 200, "some play")
        gunicorn = psutil.Process(serve.process.pid).children(recursive=False)[0]
        worker = gunicorn.children()[0]
        # Each fault's window: from the fault until 100 more commands were done after it.
        before = players.snapshot()
        worker.send_signal(signal.SIGKILL)
        wait_for(lambda: players.seen["200"] > before["200"] + 100, "commands after the kill")
        killed = players.snapshot() - before
        before = players.snapshot()
        from pgserver._commands import (  # type: ignore[attr-defined]  # noqa: PLC0415
            pg_ctl,  # the test server's own binary, run as its user
        )

        pg_ctl(["-m", "immediate", "-w", "restart"], pgdata=server.pgdata, user=server.system_user)
        # The service reconnects by itself: commands are done again after the restart.
        wait_for(lambda: players.seen["200"] > before["200"] + 100, "commands after the restart")
        restarted = players.snapshot() - before
        players.stop.set()
        for client in clients:
            client.join(timeout=30)
        wait_for(lambda: answers(base), "the service again, not restarted")
        for fault, seen in (("worker SIGKILL", killed), ("PostgreSQL restart", restarted)):
            failed = failures(seen)
            print(
                f"\n{fault}: {sum(failed.values())} of {seen.total()} requests failed "
                f"until 100 commands were done again, by status: {dict(failed)}"
            )
            assert "500" not in failed, (fault, failed)
        print(f"the whole run, by status: {dict(players.seen)}")
        assert "500" not in players.seen, players.seen

        # Every acknowledged command's events are there, numbered without a gap.
        assert players.acked
        for gid, version in players.acked.items():
            status, feed = call(port, "GET", f"/v1/games/{gid}/audit?limit=1000", token=OP)
            assert status == 200, feed
            seqs = [e["seq"] for e in feed["events"]]
            assert seqs == list(range(1, len(seqs) + 1))
            assert feed["version"] == len(seqs) >= version
        verified = subprocess.run(
            [*YOKAI, "verify", "--all"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert verified.returncode == 0, verified.stdout + verified.stderr
        assert "Traceback" not in (tmp_path / "serve.log").read_text()
    finally:
        players.stop.set()
        serve.stop()


def failures(seen: Counter[str]) -> Counter[str]:
    """What did not succeed: statuses other than 2xx (a refusal such as 409 included) and
    the errors of requests that got no answer (a connection cut)."""
    return Counter({status: n for status, n in seen.items() if not status.startswith("2")})
