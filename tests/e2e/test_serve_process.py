"""Through a real `yokai serve` process (gunicorn) on a socket."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support import processes
from tests.support.ports import free_port
from tests.support.postgres import new_database
from tests.support.processes import Started, answers
from tests.support.sse import SseStream

ROOT = Path(__file__).resolve().parents[2]
YOKAI = [sys.executable, "-m", "service.cli"]
SERVE_OPERATOR = "serve-operator-token-of-32-characters"
pytestmark = pytest.mark.slow


@dataclass
class Served:
    started: Started
    base: str

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self.started.process

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], Any]:
        req = urllib.request.Request(
            self.base + path, data=body, method=method, headers=headers or {}
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, dict(r.headers), json.loads(r.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), json.loads(err.read() or b"null")


def start(
    env: dict[str, str],
    cwd: Path | None,
    log: Path | None = None,
    *,
    seconds: float = 90,
    whole: bool = False,
) -> Served:
    """`yokai serve` run in ``cwd``, its output in ``log`` (else cwd/serve.log), once
    /readyz answers; ``env`` over this process's environment and two workers, or with
    ``whole``, all of it."""
    port = free_port()
    served = Served(
        processes.start(
            [*YOKAI, "serve", "--port", str(port)],
            log or (cwd / "serve.log" if cwd else None),
            env=env if whole else {**os.environ, "YOKAI_WORKERS": "2", **env},
            cwd=cwd,
            what="yokai serve",
        ),
        f"http://127.0.0.1:{port}",
    )
    try:
        served.started.wait_ready(lambda: answers(served.base), seconds)
    except BaseException:
        stop(served)
        raise
    return served


def stop(served: Served) -> int:
    return served.started.stop()


@pytest.fixture(scope="module")
def served(server_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`yokai serve` on a fresh database of the test server: it applies the migrations."""
    url = new_database(server_url, "yokai_serve")
    cwd = tmp_path_factory.mktemp("serve-cwd")
    running = start({"DATABASE_URL": url, "YOKAI_OPERATOR_TOKEN": SERVE_OPERATOR}, cwd)
    yield running
    assert stop(running) == 0


def test_serve_applies_migrations_and_is_ready(served: Served) -> None:
    status, _, body = served.request("GET", "/readyz")
    assert (status, body["status"]) == (200, "ok")
    assert served.request("GET", "/healthz")[0] == 200
    status, _, spec = served.request("GET", "/v1/openapi.json")
    assert status == 200
    assert "/v1/games" in spec["paths"]


def test_a_game_starts_over_the_socket(served: Served) -> None:
    json_headers = {"Content-Type": "application/json"}
    status, headers, game = served.request("POST", "/v1/games", b'{"players": 3}', json_headers)
    assert status == 201
    assert headers["Location"] == f"/v1/games/{game['id']}"
    tokens = []
    for seat in range(3):
        status, _, joined = served.request(
            "POST", f"/v1/games/{game['id']}/seats/{seat}", b'{"name": "x"}', json_headers
        )
        assert status == 201
        tokens.append(joined["token"])
    status, _, view = served.request(
        "GET", f"/v1/games/{game['id']}/view", headers={"Authorization": f"Bearer {tokens[1]}"}
    )
    assert status == 200
    assert view["status"] == "passing"
    assert len(view["hand"]) == 16


def test_serve_runs_a_worker_that_plays_a_four_bot_game_to_its_end(served: Served) -> None:
    """`yokai serve` alone is the complete service: its embedded worker plays the bots."""
    bots = [{"seat": s, "level": "basic"} for s in range(4)]
    body = json.dumps({"players": 4, "bots": bots}).encode()
    status, _, game = served.request(
        "POST", "/v1/games", body, {"Content-Type": "application/json"}
    )
    assert status == 201 and game["status"] == "passing"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = served.request("GET", f"/v1/games/{game['id']}")[2]
        if view["status"] == "finished":
            break
        time.sleep(0.2)
    assert view["status"] == "finished" and view["winner"]


def test_slow_clients_do_not_stop_a_normal_one_from_playing(served: Served) -> None:
    """Fifty clients send their headers a byte at a time (a slowloris); meanwhile a
    normal client creates a game, joins it and reads its view."""
    host, port = served.base.removeprefix("http://").split(":")
    slow = [socket.create_connection((host, int(port)), timeout=10) for _ in range(50)]
    try:
        for sock in slow:
            sock.sendall(b"GET /v1/games HTTP/1.1\r\nHost: x\r\n")
        headers = {"Content-Type": "application/json"}
        status, _, game = served.request("POST", "/v1/games", b'{"players": 3}', headers)
        assert status == 201
        for sock in slow:
            sock.sendall(b"X")  # still sending, a byte at a time
        tokens = [
            served.request("POST", f"/v1/games/{game['id']}/seats/{s}", b'{"name": "n"}', headers)
            for s in range(3)
        ]
        assert [t[0] for t in tokens] == [201, 201, 201]
        status, _, view = served.request(
            "GET",
            f"/v1/games/{game['id']}/view",
            headers={"Authorization": f"Bearer {tokens[0][2]['token']}"},
        )
        assert (status, view["status"]) == (200, "passing")
    finally:
        for sock in slow:
            sock.close()


def test_bad_input_over_the_socket_is_answered_not_crashed(served: Served) -> None:
    headers = {"Content-Type": "application/json"}
    assert served.request("POST", "/v1/games", b"{not json", headers)[0] == 400
    assert served.request("POST", "/v1/games", b'{"players": 4, "x": 1}', headers)[0] == 422
    big = b'{"players": 4, "pad": "' + b"x" * (70 * 1024) + b'"}'
    assert served.request("POST", "/v1/games", big, headers)[0] == 413
    assert served.request("GET", "/v1/games/not-a-uuid")[0] == 404


def test_a_chunked_body_over_the_limit_is_refused_not_cut_short(served: Served) -> None:
    host, port = served.base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    body = b'{"players": 4}' + b" " * (100 * 1024)  # valid JSON if cut at any length
    conn.request(
        "POST",
        "/v1/games",
        body=iter([body[i : i + 8192] for i in range(0, len(body), 8192)]),
        headers={"Content-Type": "application/json"},
        encode_chunked=True,
    )
    response = conn.getresponse()
    payload = json.loads(response.read())
    conn.close()
    assert response.status == 413
    assert payload["code"] == "body_too_large"


def test_a_broken_chunked_encoding_is_a_client_error(served: Served) -> None:
    host, port = served.base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + b"z" * 9000 + b"\r\n\r\n"
        )
        status_line = sock.makefile("rb").readline()
    assert status_line.split()[1] == b"400"


def test_the_readme_curl_session_works_verbatim(served: Served) -> None:
    readme = (ROOT / "README.md").read_text()
    block = re.search(
        r"<!-- curl-session:start -->\n```bash\n(.*?)```\n<!-- curl-session:end -->", readme, re.S
    )
    assert block is not None, "the README lost its curl session"
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.group(1)],
        env={**os.environ, "API": served.base},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    last_trick = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(last_trick["cards"]) == 4
    assert last_trick["winner"] in range(4)


def test_the_readme_game_against_three_bots_works_verbatim(served: Served) -> None:
    """The README's session against three bots, up to the live stream (read here for a
    few seconds): the seat's view has its deadline, and the bots move on their own."""
    readme = (ROOT / "README.md").read_text()
    helper = re.search(r"^j\(\) \{.*\}$", readme, re.M)
    block = re.search(
        r"<!-- bots-session:start -->\n```bash\n(.*?)```\n<!-- bots-session:end -->", readme, re.S
    )
    assert helper is not None and block is not None, "the README lost its bots session"
    script = helper.group(0) + "\n" + block.group(1).replace("curl -sN", "timeout 5 curl -sN")
    result = subprocess.run(
        ["bash", "-uo", "pipefail", "-c", script],
        env={**os.environ, "API": served.base},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 124, result.stderr  # the stream was cut by `timeout`
    legal, deadline = json.loads(result.stdout.splitlines()[0])
    assert len(legal) == 12 and deadline is not None
    # The stream's first view: every seat passed (the bots by themselves), play is on.
    view = json.loads(next(x for x in result.stdout.splitlines() if x.startswith("data: "))[6:])
    assert view["status"] == "playing"
    assert [s["bot"] for s in view["seats"]] == [None, "basic", "basic", "basic"]


def test_serve_without_database_url_runs_an_embedded_server(tmp_path: Path) -> None:
    """The embedded default: its own PostgreSQL, and a chain key and anchors kept in the
    data folder (made on the first start), which a later `yokai verify` finds."""
    unset = ("DATABASE_URL", "YOKAI_CHAIN_KEY", "YOKAI_CHAIN_KEY_FILE", "YOKAI_ANCHOR_DIR")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    data = tmp_path / "data"
    env.update({"YOKAI_DATA_DIR": str(data), "YOKAI_WORKERS": "1", "YOKAI_ANCHOR_SECONDS": "1"})
    log = tmp_path / "serve.log"
    served = start(env, None, log, seconds=120, whole=True)
    try:
        assert (data / "pgdata" / "PG_VERSION").exists()
        status, _, created = served.request(
            "POST", "/v1/games", b'{"players": 4}', {"Content-Type": "application/json"}
        )
        assert status == 201
        # The embedded worker anchors the new game's head within a period or two.
        deadline = time.monotonic() + 60
        while not any(created["id"] in p.read_text() for p in (data / "anchors").glob("*.jsonl")):
            assert time.monotonic() < deadline, "the game was never anchored"
            time.sleep(0.2)
    finally:
        code = stop(served)
    assert code == 0
    # One line says the server was made and started, not each of pgserver's commands
    # (initdb, pg_ctl) with its whole output: that is logged only when one fails.
    output = log.read_text()
    assert "embedded PostgreSQL made and started in" in output
    assert '"level": "INFO", "logger": "pgserver"' not in output, output
    assert "Running commandline" not in output and "/initdb" not in output, output
    # The embedded PostgreSQL was stopped on exit.
    assert not (data / "pgdata" / "postmaster.pid").exists()
    assert (data / "chain.key").stat().st_mode & 0o777 == 0o600

    verified = subprocess.run(
        [*YOKAI, "verify", "--all", "--anchors", str(data / "anchors")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert f"game {created['id']}: intact (1 events; anchored at version 1)" in verified.stdout


def test_serve_says_where_to_open_it_and_ctrl_c_stops_it_quietly(
    server_url: str, tmp_path: Path
) -> None:
    """As in a terminal: once it answers, `yokai serve` prints where to open it (on
    stderr); Ctrl-C, a SIGINT to the terminal's whole foreground process group (here the
    new session's), stops it with exit status 0 and no traceback of any process."""
    port = free_port()
    out_path, err_path = tmp_path / "stdout", tmp_path / "stderr"
    env = {
        **os.environ,
        "DATABASE_URL": new_database(server_url, "yokai_ctrl_c"),
        "YOKAI_WORKERS": "2",
    }
    with out_path.open("wb") as out, err_path.open("wb") as err:
        process = subprocess.Popen(
            [*YOKAI, "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=out,
            stderr=err,
            start_new_session=True,
        )
    line = f"open http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 90
        while line not in err_path.read_text():
            assert process.poll() is None, err_path.read_text()
            assert time.monotonic() < deadline, "serve never said where to open it"
            time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as r:
            assert r.status == 200  # the web client is where the line says
        os.killpg(process.pid, signal.SIGINT)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:  # it passes SIGTERM on to its children
            process.terminate()
            try:
                process.wait(timeout=60)
            finally:
                process.kill()
    errors = err_path.read_text()
    assert errors.count(line) == 1
    assert "Traceback" not in errors and "SystemExit" not in errors, errors
    assert out_path.read_text() == ""  # standard output stays for what scripts read


def _sse_stream(served: Served, path: str, headers: dict[str, str] | None = None) -> SseStream:
    return SseStream(served.base.removeprefix("http://"), path, headers, timeout=30)


def _started_game(served: Served, players: int = 3) -> tuple[str, list[str]]:
    json_headers = {"Content-Type": "application/json"}
    body = json.dumps({"players": players}).encode()
    game = served.request("POST", "/v1/games", body, json_headers)[2]["id"]
    tokens = [
        served.request("POST", f"/v1/games/{game}/seats/{s}", b'{"name": "x"}', json_headers)[2][
            "token"
        ]
        for s in range(players)
    ]
    return game, tokens


def test_streams_on_every_gunicorn_worker_get_each_commit(served: Served) -> None:
    """Four streams spread over the gevent workers by the kernel; a command through any
    worker reaches all of them (the commit's notification, heard by each worker)."""
    game, tokens = _started_game(served)
    streams = [_sse_stream(served, f"/v1/games/{game}/stream") for _ in range(4)]
    try:
        first = [s.until("view")[-1].id for s in streams]
        version = first[0] or 0
        auth = {"Authorization": f"Bearer {tokens[0]}", "Content-Type": "application/json"}
        view = served.request("GET", f"/v1/games/{game}/view", headers=auth)[2]
        status = served.request(
            "POST",
            f"/v1/games/{game}/pass",
            json.dumps({"cards": view["legal"][:3]}).encode(),
            auth,
        )[0]
        assert status == 200
        for stream in streams:
            got = stream.until("view", version + 1)
            assert [(m.event, m.id) for m in got] == [
                ("game_event", version + 1),
                ("view", version + 1),
            ]
    finally:
        for stream in streams:
            stream.close()


def test_sigterm_ends_open_streams_cleanly(server_url: str, tmp_path: Path) -> None:
    """On SIGTERM the workers end their streams themselves, with a proper end of the
    response, so clients reconnect at once to a server that stays; then it exits 0.
    (gunicorn alone would hold them to its graceful timeout, set far beyond the
    streams' read deadline here, and then kill them.)"""
    url = new_database(server_url, "yokai_sigterm")
    env = {"DATABASE_URL": url, "GUNICORN_CMD_ARGS": "--graceful-timeout 300"}
    running = start(env, tmp_path)
    try:
        game, _ = _started_game(running)
        streams = [_sse_stream(running, f"/v1/games/{game}/stream") for _ in range(3)]
        for stream in streams:
            assert stream.until("view")
        running.process.send_signal(signal.SIGTERM)
        for stream in streams:
            # Ends within the read deadline (30 s), with the body's last chunk (a cut
            # body raises IncompleteRead).
            assert stream.next() is None
            stream.close()
        assert running.process.wait(timeout=60) == 0
        log = running.started.output()
        assert "Traceback" not in log, log  # the workers ended their streams, not crashed
        assert "Exception in worker process" not in log, log
    finally:
        stop(running)
