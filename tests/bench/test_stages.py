"""bench/stages.py, the budget table's classifier: hand-written py-spy stacks (no py-spy
needed) land in the stages a reader of the table expects, and the table adds up."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench import stages

# The frames every request's stack starts with, as py-spy writes them.
SERVER = [
    "<module> (gunicorn:8)",
    "GeventWorker.run (gunicorn/workers/ggevent.py:96)",
    "AsyncWorker.handle (gunicorn/workers/base_async.py:98)",
    "AsyncWorker.handle_request (gunicorn/workers/base_async.py:321)",
]
FLASK = [
    *SERVER,
    "Flask.wsgi_app (flask/app.py:1511)",
    "Flask.full_dispatch_request (flask/app.py:917)",
]
ROUTE = [
    *FLASK,
    "decorator.<locals>.wrapper (flask_smorest/response.py:197)",
    "play_card (service/web/games/routes.py:291)",
    "execute (service/application/write/registry.py:110)",
    "run (service/application/write/idempotency.py:68)",
]
FINISH = [
    *FLASK,
    "Flask.process_response (flask/app.py:1319)",
    "create_app.<locals>._finish (service/web/app.py:194)",
]
PRINCIPAL = [
    *FLASK,
    "Flask.preprocess_request (flask/app.py:1291)",
    "create_app.<locals>._start (service/web/app.py:171)",
    "_rate_key (service/web/app.py:60)",
    "principal (service/web/request.py:73)",
    "Identity.identify (service/application/identity/bearer.py:115)",
]
QUERY = [
    "Cursor.execute (psycopg/cursor.py:97)",
    "BaseCursor._execute_gen (psycopg/_cursor_base.py:206)",
]
ENCODE = ["dumps (json/__init__.py:231)", "JSONEncoder.encode (json/encoder.py:200)"]


@pytest.mark.parametrize(
    ("frames", "stage"),
    [
        # The sockets, polls and the hub: a greenlet switched out, not work on a core.
        (
            [
                *SERVER,
                "write (gunicorn/util.py:348)",
                "SocketMixin.send (gevent/_socketcommon.py:716)",
            ],
            None,
        ),
        (["Hub.run (gevent/hub.py:647)"], None),
        (
            [
                *ROUTE,
                *QUERY,
                "wait_poll (psycopg/waiting.py:526)",
                "poll.poll (gevent/select.py:348)",
            ],
            None,
        ),
        # libpq's send of a statement: psycopg's frame is the innermost py-spy sees.
        (
            [*ROUTE, *QUERY, "BaseCursor._send_query_prepared (psycopg/_cursor_base.py:602)"],
            None,
        ),
        ([*ROUTE, *QUERY, "BaseCursor._execute_send (psycopg/_cursor_base.py:449)"], None),
        # psycopg's own work before the send stays the store's.
        ([*ROUTE, *QUERY, "PostgresRawQuery.dump (psycopg/_queries.py:471)"], stages.STORE),
        # The server's and the framework's own work.
        ([*SERVER, "Request.parse (gunicorn/http/message.py:548)"], stages.SERVER),
        ([*FLASK, "Flask.make_response (flask/app.py:1200)"], stages.FRAMEWORK),
        (
            [*ROUTE[:-3], "parse (webargs/core.py:400)", "Schema.load (marshmallow/schema.py:700)"],
            stages.FRAMEWORK,
        ),
        # The store, whoever asks: the command, identity.
        (
            [*ROUTE, "SqlUnitOfWork.commit (service/adapters/postgres/unit_of_work.py:91)", *QUERY],
            stages.STORE,
        ),
        ([*PRINCIPAL, *QUERY], stages.STORE),
        ([*PRINCIPAL, "token_digest (service/application/identity/bearer.py:43)"], stages.IDENTITY),
        # The rate limit's own counting; its key is the principal's (above).
        (
            [
                *PRINCIPAL[:-2],
                "RateLimiter.hit (service/web/ratelimit.py:152)",
                "LocalCounters.incr (service/web/ratelimit.py:59)",
            ],
            stages.RATE_LIMIT,
        ),
        # The command's steps, and what it calls.
        (ROUTE, stages.COMMAND),
        (
            [
                *ROUTE,
                "Transaction.apply (service/application/write/transaction.py:169)",
                "decide (service/rules/engine.py:40)",
            ],
            stages.RULES_ENGINE,
        ),
        (
            [
                *ROUTE,
                "Transaction._write (service/application/write/transaction.py:209)",
                "link (service/application/integrity/chain.py:170)",
                "HMAC.digest (hmac.py:160)",
            ],
            stages.HASH_CHAIN,
        ),
        # Sealing the request's address and opening names both end in the same cipher.
        (
            [
                *ROUTE,
                "Transaction.origin (service/application/write/transaction.py:145)",
                "Sealer.request (service/application/privacy/sealer.py:50)",
                "seal (service/application/privacy/sealing.py:61)",
                "AESGCM.encrypt (cryptography/hazmat/primitives/ciphers/aead.py:1)",
            ],
            stages.SEALING,
        ),
        (
            [
                *FINISH[:-1],
                "create_app.<locals>._finish (service/web/app.py:190)",
                "_reveal (service/web/app.py:210)",
                "json_bytes (service/application/privacy/reveal.py:16)",
                "Revealer.json (service/application/privacy/sealing.py:107)",
                "_open (service/application/privacy/sealing.py:70)",
            ],
            stages.OPENING_NAMES,
        ),
        # The answer: the view (with the rules it asks) and its JSON.
        (
            [
                *ROUTE,
                "seat_view_at (service/application/games/queries/views.py:66)",
                "StateCache.get (service/application/games/cache.py:42)",
            ],
            stages.ANSWER,
        ),
        (
            [
                *ROUTE,
                "seat_view_at (service/application/games/queries/views.py:66)",
                "seat_view (service/rules/views.py:12)",
            ],
            stages.RULES_ENGINE,
        ),
        (
            [
                *ROUTE,
                "view_response (service/web/render.py:78)",
                "jsonify (flask/json/__init__.py:170)",
                *ENCODE,
            ],
            stages.ANSWER,
        ),
        # What _finish does itself is headers; what it calls for the log line and the
        # metrics is theirs, with all they call (JSON, the pool's statistics).
        ([*FINISH, "Headers.set (werkzeug/datastructures/headers.py:418)"], stages.HEADERS),
        (
            [
                *FINISH,
                "_log_request (service/web/app.py:255)",
                "Logger.info (logging/__init__.py:1489)",
                "JsonFormatter.format (pythonjsonlogger/core.py:300)",
                *ENCODE,
            ],
            stages.LOG_LINE,
        ),
        (
            [
                *FINISH,
                "_count_request (service/web/app.py:296)",
                "SqlStats.pool (service/adapters/postgres/stats.py:20)",
                "QueuePool.checkedout (sqlalchemy/pool/impl.py:200)",
            ],
            stages.METRICS,
        ),
        # Service code no rule names, and code of nobody's.
        (
            [
                *FLASK,
                "create_app.<locals>._start (service/web/app.py:152)",
                "request_id (service/web/request.py:156)",
                "uuid4 (uuid.py:723)",
            ],
            stages.OTHER_SERVICE,
        ),
        (["ABCMeta.__instancecheck__ (<frozen abc>:119)"], stages.OTHER),
    ],
)
def test_a_sample_lands_in_its_stage(frames: list[str], stage: str | None) -> None:
    assert stages.classify(frames) == stage


def test_whole_file_names_classify_as_short_ones() -> None:
    """py-spy --full-filenames writes whole paths."""
    frames = [
        "Flask.wsgi_app (/venv/lib/python3.11/site-packages/flask/app.py:1511)",
        "execute (/work/repo/service/application/write/registry.py:110)",
        "Cursor.execute (/venv/lib/python3.11/site-packages/psycopg/cursor.py:97)",
    ]
    assert stages.classify(frames) == stages.STORE
    assert stages.classify(frames[:2]) == stages.COMMAND
    send = "SocketMixin.send (/venv/lib/python3.11/site-packages/gevent/_socketcommon.py:716)"
    assert stages.classify([*frames[:1], send]) is None


def _raw(*samples: tuple[list[str], int]) -> str:
    return "".join(f"{';'.join(frames)} {count}\n" for frames, count in samples)


def test_the_table_spreads_the_web_workers_cpu_by_their_samples(tmp_path: Path) -> None:
    (tmp_path / "play.101.txt").write_text(
        _raw(
            ([*ROUTE, *QUERY], 30),
            ([*SERVER, "Request.parse (gunicorn/http/message.py:548)"], 10),
            (["Hub.run (gevent/hub.py:647)"], 50),
        )
    )
    (tmp_path / "play.102.txt").write_text(_raw((ROUTE, 10)) + "\n")
    # Per request: 2 ms in the web workers, 1 ms in PostgreSQL, nothing elsewhere.
    used = {"web": 0.2, "worker": 0.0, "postgres": 0.1, "bench": 0.0, "load": 0.0}
    stages.save(tmp_path, "play", used, 100)
    assert json.loads((tmp_path / "play.cpu.json").read_text())["requests"] == 100

    lines = stages.report(tmp_path, "play")
    assert lines[0] == (
        "stages (py-spy on 2 web workers: 100 samples, 50 waiting left out, 50 on a core)"
    )
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1:] for line in lines[3:]}
    assert rows[stages.STORE] == ["60.0%", "1,200", "40.0% |"]
    assert rows[stages.SERVER] == ["20.0%", "400", "13.3% |"]
    assert rows[stages.COMMAND] == ["20.0%", "400", "13.3% |"]
    assert rows["**web workers, in all**"] == ["100.0%", "2,000", "66.7% |"]
    assert rows["PostgreSQL"] == ["-", "1,000", "33.3% |"]
    assert rows["**all parts**"] == ["", "3,000", "100.0% |"]
    assert "the load (wrk)" not in rows  # parts that used nothing are left out
    assert stages.report(tmp_path, "view") == []  # a phase not recorded has no table


def test_two_runs_side_by_side(tmp_path: Path) -> None:
    before, after = tmp_path / "before", tmp_path / "after"
    before.mkdir()
    after.mkdir()
    # Before: 3 ms in the web workers, half of it the store. After: 2 ms, all the command.
    (before / "play.1.txt").write_text(
        _raw(([*ROUTE, *QUERY], 5), ([*SERVER, "Request.parse (gunicorn/http/message.py:548)"], 5))
    )
    stages.save(before, "play", {"web": 0.3, "postgres": 0.1}, 100)
    (after / "play.1.txt").write_text(_raw((ROUTE, 5)))
    stages.save(after, "play", {"web": 0.2, "postgres": 0.1}, 100)

    lines = stages.side_by_side(before, after, "play")
    assert lines[:2] == ["| stage | µs before | µs after | change |", "|---|---|---|---|"]
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")[1:] for line in lines[2:]}
    assert rows[stages.COMMAND] == ["0", "2,000", "new |"]
    assert rows[stages.STORE] == ["1,500", "0", "-100% |"]
    assert rows["**web workers, in all**"] == ["3,000", "2,000", "-33% |"]
    assert rows["PostgreSQL"] == ["1,000", "1,000", "+0% |"]
    assert rows["**all parts**"] == ["4,000", "3,000", "-25% |"]
    assert "the load (wrk)" not in rows  # nothing in either run
    assert next(iter(rows)) == stages.COMMAND  # in the after run's order
    assert stages.side_by_side(before, after, "view") == []


def test_an_earlier_runs_files_are_cleared(tmp_path: Path) -> None:
    for name in ("play.7.txt", "play.7.log", "play.cpu.json", "events.8.txt", "notes.txt"):
        (tmp_path / name).write_text("")
    stages.clear(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def _fake_py_spy(tmp_path: Path, script: str) -> str:
    path = tmp_path / "py-spy"
    path.write_text(f"#!{sys.executable}\n{script}")
    path.chmod(0o755)
    return str(path)


def test_a_py_spy_that_cannot_attach_is_reported_and_the_phase_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    binary = _fake_py_spy(
        tmp_path, "print('Error: Operation not permitted (os error 1)')\nraise SystemExit(1)\n"
    )
    ran = []
    with stages.recording(tmp_path / "out", "play", [4242], binary):
        ran.append(True)
    assert ran == [True]
    out = capsys.readouterr().out
    assert "could not attach to web worker 4242: Error: Operation not permitted" in out
    assert stages.report(tmp_path / "out", "play") == []


def test_a_recording_stops_py_spy_when_the_phase_ends(tmp_path: Path) -> None:
    # As py-spy does on Ctrl-C: the stacks are written when it is told to stop.
    binary = _fake_py_spy(
        tmp_path,
        "import signal, sys\n"
        "out = sys.argv[sys.argv.index('-o') + 1]\n"
        "def stop(*_):\n"
        "    open(out, 'w').write('Hub.run (gevent/hub.py:647) 3\\n')\n"
        "    sys.exit(0)\n"
        "signal.signal(signal.SIGINT, stop)\n"
        "print('py-spy> Sampling process 250 times a second.', flush=True)\n"
        "while True:\n"
        "    signal.pause()\n",
    )
    with stages.recording(tmp_path, "view", [7, 8], binary):
        assert not list(tmp_path.glob("view.*.txt"))
    assert sorted(p.name for p in tmp_path.glob("view.*.txt")) == ["view.7.txt", "view.8.txt"]
    profile = stages.Profile.read(tmp_path.glob("view.*.txt"))
    assert (profile.waiting, profile.on_core) == (6, 0)
