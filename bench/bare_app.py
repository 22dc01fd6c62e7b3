"""The yardsticks, run under the same gunicorn config as the service
(``gunicorn -c deploy/gunicorn.conf.py bench.bare_app:app``, or ``:ceiling``):

- ``app``, the bare endpoint: reads the JSON body of a command and answers with a small
  JSON document; it touches no database.
- ``ceiling``, the write ceiling: a play's durable write and nothing else, in one
  statement and one round trip: lock the game's row, append two events rows, update the
  game's row; committed as the statement ends, synchronously (PostgreSQL's default, as
  the service's commands commit). Its tables are copies of the service's ``games`` and
  ``events`` (columns, defaults, checks, indexes, the events' foreign key to their game)
  in a schema of their own, made by :func:`prepare_ceiling` in the service's database,
  with a row for each of the service's games; the events carry the values of a play's
  (a card and a seat as data, a request id, the hash chain's two hashes and key id, a
  sealed client address), so the rows are of a play's size. It reads
  ``BENCH_CEILING_URL``. What it does not do, the service does on top: the rules, the
  hash chain, idempotency, the projections, notifications, identity, the answer.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import psycopg
from flask import Flask, jsonify, request
from flask.typing import ResponseReturnValue

app = Flask(__name__)


@app.route("/readyz")
def ready() -> ResponseReturnValue:
    return jsonify({"status": "ok"})


@app.route("/<path:path>", methods=["GET", "POST"])
def anything(path: str) -> ResponseReturnValue:
    body: Any = request.get_json(silent=True) if request.method == "POST" else None
    return jsonify({"path": path, "received": body is not None, "version": 1})


# --- the write ceiling ----------------------------------------------------------------

SCHEMA = "write_ceiling"
URL_VARIABLE = "BENCH_CEILING_URL"

_TABLES = f"""
DROP SCHEMA IF EXISTS {SCHEMA} CASCADE;
CREATE SCHEMA {SCHEMA};
CREATE TABLE {SCHEMA}.games (LIKE games INCLUDING ALL);
CREATE TABLE {SCHEMA}.events (LIKE events INCLUDING ALL,
    FOREIGN KEY (game_id) REFERENCES {SCHEMA}.games (id));
INSERT INTO {SCHEMA}.games SELECT * FROM games;
"""

# A play's two events, each with the values a play's event row holds.
_EVENT = "(%s::int, %s, %s::jsonb, %s::timestamptz, %s::smallint, %s, %s, %s, %s, %s)"
_WRITE = (
    f"WITH game AS (SELECT id, version FROM {SCHEMA}.games WHERE id = %s FOR UPDATE), "
    f"appended AS (INSERT INTO {SCHEMA}.events (game_id, seq, type, schema_version, data, "
    "recorded_at, actor_kind, actor_seat, request_id, prev_hash, hash, chain_key, "
    "client_address) SELECT game.id, game.version + e.n, e.type, 1, e.data, e.at, 'seat', "
    "e.seat, e.request_id, e.prev_hash, e.hash, e.chain_key, e.client_address "
    f"FROM game, (VALUES {_EVENT}, {_EVENT}) AS e(n, type, data, at, seat, request_id, "
    "prev_hash, hash, chain_key, client_address)) "
    f"UPDATE {SCHEMA}.games AS g SET version = game.version + 2, updated_at = %s "
    "FROM game WHERE g.id = game.id RETURNING g.version"
)
_HASH = "6d1f" * 16
_SEALED_ADDRESS = "pd1.x.d20261127." + "zUyE-9f21N4Cb0lLukEpuXxfeD2EASsSDIeHOpcB_-EQzU5euQ"
_KEY_ID = "37bcb7a2"


def prepare_ceiling(url: str) -> None:
    """Make the write ceiling's tables afresh, beside the service's (on ``url``, the
    service's database, as a role that may create a schema), with its games' rows."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(_TABLES)


# One connection per request in flight, kept for the next (a gevent worker runs one
# request per greenlet; list operations do not yield, so this needs no lock).
_idle: list[psycopg.Connection[Any]] = []


@contextmanager
def _connection() -> Iterator[psycopg.Connection[Any]]:
    if _idle:
        conn = _idle.pop()
    else:
        # Autocommit: the one statement is its own transaction, with no BEGIN round trip;
        # prepared on first use, as the service's statements are.
        conn = psycopg.connect(os.environ[URL_VARIABLE], autocommit=True, prepare_threshold=0)
    try:
        yield conn
    except BaseException:
        conn.close()
        raise
    _idle.append(conn)


ceiling = Flask(__name__)
ceiling.add_url_rule("/readyz", view_func=ready)


@ceiling.route("/v1/games/<game_id>/<any(play, pass):command>", methods=["POST"])
def write(game_id: str, command: str) -> ResponseReturnValue:
    body: Any = request.get_json(silent=True) or {}
    data = f'{{"card": "{body.get("card", "")}", "seat": 1}}'
    now = datetime.now(UTC)
    request_id = uuid.uuid4().hex
    event = ("CardPlayed", data, now, 1, request_id, _HASH, _HASH, _KEY_ID, _SEALED_ADDRESS)
    with _connection() as conn:
        row = conn.execute(_WRITE, (game_id, 1, *event, 2, *event, now)).fetchone()
    if row is None:
        return jsonify({"status": 404, "title": "no such game"}), 404
    return jsonify({"version": row[0], "command": command})
