"""One pooled psycopg connection for a unit of work (pool.py), used so that a command
costs as few round trips to PostgreSQL as its work needs.

The connection stays in autocommit mode and BEGIN / COMMIT are sent as statements, so
they ride in the same round trip as the work (psycopg's own implicit BEGIN would cost a
round trip of its own). Statements that only guard or prepare the next one (a lock, a
credential check) are queued and sent with the next read, in one round trip; writes are
queued and sent at commit as one statement. A read-only query that needs no transaction
runs on its own (autocommit), without BEGIN or ROLLBACK.

Why not SQLAlchemy Core here: its per-statement compilation and execution bookkeeping
was the larger part of a command's Python time under load (docs/benchmarks.md,
"Decisions the figures made"); the schema (tables.py) and the migrations stay
SQLAlchemy's, and so does the pool of the few users of the engine outside units of work
(engine.py). Past 400 lines: the queueing of guards, locks and writes into as few round
trips as a command needs (and the one self-committing write, ``write_now``, with what
it announces on the bus) is one mechanism, kept whole.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

import psycopg
from psycopg import errors as pg_errors
from sqlalchemy import Engine, event, exc

from service.adapters.postgres.pool import Connections, went_away
from service.application.errors import AlreadySeatedError
from service.application.identity.ports import CredentialGoneError, PlayerSuspendedError
from service.application.ports import AppendConflictError, StoreUnavailableError
from service.application.seeks.ports import AlreadySeekingError
from service.application.write.ports import DuplicateKeyError

REQUIREMENT_FAILED = "YK001"  # raised by yokai_require() (migration 0003)
PLAYER_SUSPENDED = "YK002"  # raised by yokai_not_suspended() (migration 0010)
# Keys a command's writes take that another writer of the game's same seq would take
# first: a race for the game, whichever of them the statement happens to check first.
_CONFLICTS = {
    "events_pkey",
    "seat_credentials_pkey",
    "seat_players_pkey",
    "reputation_marks_pkey",
}
_DUPLICATES = {"idempotency_keys_pkey", "identities_pkey"}


@dataclass(frozen=True, slots=True)
class Statement:
    sql: str
    params: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class Notice:
    """An announcement sent if the writes commit: ``payload`` on ``channel``; with
    ``write`` (an index into the queued writes), only if that write wrote a row."""

    channel: str
    payload: str
    write: int | None = None


@dataclass
class Session:
    """A unit of work's connection: taken from the pool on first use."""

    pool: Connections
    snapshot: bool = False
    _conn: psycopg.Connection[Any] | None = None
    _in_transaction: bool = False
    _want_transaction: bool = False
    _checks: list[Statement] = field(default_factory=list)
    _locks: list[Statement] = field(default_factory=list)
    _writes: list[Statement] = field(default_factory=list)
    _write_games: list[UUID] = field(default_factory=list)
    _notices: list[Notice] = field(default_factory=list)
    _posted: list[tuple[str, str]] = field(default_factory=list)

    # -- building ------------------------------------------------------------------------

    def require(self, statement: Statement) -> None:
        """Send ``statement`` with every read and with the writes of this unit of work,
        in the same round trips; it raises (REQUIREMENT_FAILED) when what it checks does
        not hold, and then nothing of that read or write is given or done."""
        self._checks.append(statement)

    def hold(self, statement: Statement) -> None:
        """Send ``statement`` (a lock) before the next read, in the same round trip, in a
        transaction kept until commit."""
        self.begin()
        self._locks.append(statement)

    def begin(self) -> None:
        """From the next statement on, work in a transaction kept until commit (for locks,
        and rows read FOR UPDATE)."""
        self._want_transaction = True

    def write(self, statement: Statement, game_id: UUID | None = None) -> None:
        """Queue a write: sent with the other writes and COMMIT, all or nothing."""
        self._writes.append(statement)
        if game_id is not None:
            self._write_games.append(game_id)

    def commit_lazily(self) -> None:
        """Let this unit of work's commit return before its WAL reaches the disk
        (``synchronous_commit = off`` for this transaction only). Only for writes whose
        loss in a crash of the server costs nothing but doing them again: the worker's
        webhook records (a lost one is delivered again: at least once, as any
        unrecorded attempt is)."""
        self._checks.append(_LAZY_COMMIT)

    def notify(self, channel: str, payload: str, *, if_wrote: bool = False) -> None:
        """Announce ``payload`` on ``channel`` with the writes: sent only if they commit;
        ``if_wrote``: only if the write queued last wrote a row (it must say RETURNING).

        Sent by PostgreSQL (``pg_notify`` in the commit's statement), or, for the
        channels the pool's bus carries (YOKAI_REDIS_URL: pool.py ``Bus``), published
        there once the commit has returned: then no write transaction notifies."""
        self._notices.append(Notice(channel, payload, len(self._writes) - 1 if if_wrote else None))

    def take_checks(self) -> list[Statement]:
        """The queued checks, for a statement that runs them itself (one with writes of
        its own, which cannot be wrapped as :meth:`fetch` wraps a query)."""
        checks, self._checks = self._checks, []
        return checks

    def write_now(self, statement: Statement) -> list[tuple[Any, ...]]:
        """Run ``statement`` (which writes), committed with itself, and return its rows;
        in a transaction already (one a lock began), in it, committed with it. Never run
        twice: a connection lost on the way may have committed it (``maybe_committed``,
        for the caller to say)."""
        if self._in_transaction or self._want_transaction:
            return self.fetch(statement.sql, statement.params)
        if self._checks:  # pragma: no cover - a caller takes its checks into the statement
            raise RuntimeError("write_now: queued checks would not run")
        return self._run([statement], committing=True, rows_of=0)

    def on_the_bus(self, channel: str) -> bool:
        """Whether ``channel``'s announcements go on the pool's bus (YOKAI_REDIS_URL), not
        by ``pg_notify``."""
        bus = self.pool.bus
        return bus is not None and channel in bus.channels

    def post_committed(self, channel: str, payload: str) -> None:
        """Announce on the bus what a statement already sent wrote: now, when it ran
        outside a transaction (it committed with itself), else once the transaction
        commits. Only for a channel :meth:`on_the_bus` carries."""
        bus = self.pool.bus
        assert bus is not None and channel in bus.channels
        if self._in_transaction:
            self._posted.append((channel, payload))
        else:
            bus.publish([(channel, payload)])

    # -- running -------------------------------------------------------------------------

    def fetch(
        self,
        sql: str,
        params: Sequence[Any] = (),
        *,
        one_row: bool = False,
        order: str | None = None,
    ) -> list[tuple[Any, ...]]:
        """Run a query (after the queued locks and checks) and return its rows. A read
        outside a transaction whose connection broke is tried once more on a new one.

        ``one_row`` (the query gives at most one row) or ``order`` (the column its rows
        are ordered by): queued checks can then be parts of the query (one statement,
        prepared) instead of statements of their own before it.
        """
        opening, locks, checks = self._opening(), self._locks, self._checks
        self._locks = []
        query = Statement(sql, params)
        if (one_row or order) and checks and not (opening or locks):
            statements = [_guarded(checks, query, order)]
        else:
            statements = [*opening, *locks, *checks, query]
        try:
            rows = self._run(statements, committing=False)
        except StoreUnavailableError:
            if opening or self._want_transaction or self.snapshot:
                raise
            rows = self._run(statements, committing=False)
        return rows

    def commit(self) -> None:
        """Send the queued checks and writes as one statement (each a part of one WITH:
        all or nothing, without BEGIN and COMMIT), or, in a transaction a lock began,
        that statement and COMMIT in one round trip."""
        opening, locks = self._opening(), self._locks
        checks, writes, notices = self._checks, self._writes, self._notices
        self._locks, self._writes, self._notices = [], [], []
        bus = self.pool.bus
        carried = bus.channels if bus is not None else frozenset()
        posted = [n for n in notices if n.channel in carried]
        sent = [n for n in notices if n.channel not in carried]
        asked = [n.write for n in posted if n.write is not None]  # did it write a row?
        statements = [*opening, *locks]
        main = None
        if checks or writes:
            main = len(statements)
            statements.append(_one_statement(checks, writes, sent, asked))
        if self._in_transaction:
            statements.append(Statement("COMMIT"))
        rows: list[tuple[Any, ...]] = []
        if statements:
            rows = self._run(statements, committing=True, rows_of=main if asked else None)
        self._in_transaction = False
        self._write_games = []
        later, self._posted = self._posted, []
        if posted and main is not None:
            assert bus is not None  # only its channels are posted
            wrote = iter(rows[0][len(rows[0]) - len(asked) :] if asked else ())
            bus.publish([(n.channel, n.payload) for n in posted if n.write is None or next(wrote)])
        if later:
            assert bus is not None
            bus.publish(later)

    def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            status = conn.pgconn.transaction_status
            if status == psycopg.pq.TransactionStatus.INERROR:
                conn.rollback()
            elif self._in_transaction:
                # Nothing was written in it (writes go at commit): ending it with COMMIT
                # keeps the statements psycopg prepared, which a rollback drops.
                conn.execute("COMMIT")
        except BaseException:
            self.pool.discard(conn)
            raise
        finally:
            self._in_transaction = False
        self.pool.give(conn)

    # -- internals -----------------------------------------------------------------------

    def _opening(self) -> list[Statement]:
        if self._in_transaction:
            return []
        if self.snapshot:
            self._in_transaction = True
            return [Statement("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")]
        if self._want_transaction:
            self._in_transaction = True
            return [Statement("BEGIN")]
        return []

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None:
            self._conn = self.pool.take()
        return self._conn

    def _run(
        self, statements: list[Statement], *, committing: bool, rows_of: int | None = None
    ) -> list[tuple[Any, ...]]:
        """Send ``statements`` in one round trip; the rows of the last one (of the one
        at ``rows_of`` if given; a commit's otherwise none).

        One statement goes as itself (psycopg prepares the frequent ones). Several go as
        one query string, their parameters bound on this side, which the server runs in
        order, stopping at the first that fails. (psycopg's pipeline mode would keep the
        server-side binding, but it spins holding the GIL while it waits for results:
        under load that cost more than everything else a read does.)
        """
        try:
            conn = self._connection()
        except psycopg.OperationalError as error:  # no server to reach, or no connection free
            raise StoreUnavailableError(str(error), maybe_committed=False) from error
        try:
            kept: list[tuple[Any, ...]] = []
            if len(statements) == 1:
                cur: psycopg.Cursor[Any] = psycopg.RawCursor(conn)
                cur.execute(native(statements[0].sql), statements[0].params)
            else:
                cur = psycopg.ClientCursor(conn)
                sql = "; ".join(s.sql for s in statements)
                cur.execute(sql, [p for s in statements for p in s.params])
                index = 0
                while True:
                    if index == rows_of:
                        kept = cur.fetchall()
                    if not cur.nextset():
                        break
                    index += 1
                if rows_of is not None:
                    return kept
            if committing and rows_of is None:  # a commit gives no rows its caller reads
                return []
            return cur.fetchall() if cur.description else []
        except pg_errors.UniqueViolation as error:
            games = self._write_games
            self._abandon()
            constraint = error.diag.constraint_name or ""
            if constraint in _CONFLICTS and games:
                raise AppendConflictError(games[0]) from error
            if constraint in _DUPLICATES:
                raise DuplicateKeyError(constraint) from error
            if constraint == "seat_players_one_seat":
                raise AlreadySeatedError("this player holds a seat of this game") from error
            if constraint == "seeks_one_open":
                raise AlreadySeekingError("this player has an open seek") from error
            raise
        except psycopg.Error as error:
            if error.sqlstate == REQUIREMENT_FAILED:
                self._abandon()
                raise CredentialGoneError() from error  # the database says which in the cause
            if error.sqlstate == PLAYER_SUSPENDED:
                self._abandon()
                raise PlayerSuspendedError() from error
            if not (conn.closed or conn.broken):
                self._abandon()  # drops the connection if it dies rolling back
                if self._conn is not None:
                    raise
            else:
                self.pool.discard(conn)
                self._conn = None
                self._in_transaction = False
            # The connection is gone (or died as its transaction was rolled back, as
            # when the server shuts down under it): the store is unavailable.
            raise StoreUnavailableError(str(error), maybe_committed=committing) from error

    def _abandon(self) -> None:
        """After an error the transaction, if any, is over: roll it back. A connection
        that fails the rollback is dropped (its transaction ends with it)."""
        self._in_transaction = False
        self._checks, self._locks, self._writes = [], [], []
        self._write_games, self._notices, self._posted = [], [], []
        conn = self._conn
        if conn is not None and not conn.closed:
            try:
                conn.rollback()
            except psycopg.Error:
                self.pool.discard(conn)
                self._conn = None


_JSON = json.JSONEncoder(separators=(",", ":")).encode


def json_text(value: Any) -> str:
    """``value`` as JSON text, for a parameter the statement casts (``%s::jsonb``) or
    stores in a jsonb column: psycopg adapts a str in C, where its Jsonb adapter runs
    Python for each value; the server parses the same JSON text either way."""
    return _JSON(value)


_LAZY_COMMIT = Statement("SELECT set_config('synchronous_commit', 'off', true)")

_PLACEHOLDER = re.compile(r"%[s%]")


@functools.lru_cache(maxsize=1024)
def native(sql: str) -> str:
    """``sql`` with PostgreSQL's own placeholders ($1, $2 …) for psycopg's ``%s``.

    psycopg converts a query's ``%s`` on every execution unless the query is short (4 KB)
    with few parameters (50): a command's one statement is neither, and converting it
    cost a large share of a play's CPU (docs/benchmarks.md, "Decisions the figures made").
    Converted once here (cached by the query's text), it goes to a RawCursor as it is;
    psycopg still prepares the frequent ones. Only ``%s`` and ``%%`` are used here."""
    count = 0

    def placeholder(match: re.Match[str]) -> str:
        nonlocal count
        if match.group() == "%%":
            return "%"
        count += 1
        return f"${count}"

    converted = _PLACEHOLDER.sub(placeholder, sql)
    if "%" in _PLACEHOLDER.sub("", sql):
        raise ValueError(f"only %s placeholders are supported: {sql[:200]!r}")
    return converted


def _guarded(checks: list[Statement], query: Statement, order: str | None) -> Statement:
    """A query that gives its rows only once the checks pass (a check that fails fails
    the statement), in ``order`` again after the wrapping."""
    parts = ", ".join(f"c{i} AS ({s.sql})" for i, s in enumerate(checks))
    passed = " + ".join(f"(SELECT count(*) FROM c{i})" for i in range(len(checks)))
    sql = f"WITH {parts} SELECT q.* FROM ({query.sql}) AS q WHERE {passed} > 0"
    if order is not None:
        sql += f" ORDER BY q.{order}"
    return Statement(sql, [p for s in [*checks, query] for p in s.params])


def _one_statement(
    checks: list[Statement],
    writes: list[Statement],
    notices: Sequence[Notice] = (),
    asked: Sequence[int] = (),
) -> Statement:
    """Checks and writes as the parts of one statement. Data-modifying parts of a WITH
    always run; the checks run because the final SELECT reads them, and a check that
    fails fails the whole statement. Notices are ``pg_notify`` calls of the final
    SELECT: PostgreSQL sends them when (and only if) the transaction commits; one that
    depends on a write is called once if that write gave a row. The final SELECT ends
    with a column for each write ``asked``: whether it wrote a row."""
    if not checks and not notices and not asked and len(writes) == 1:
        return writes[0]
    parts: list[str] = []
    params: list[Any] = []
    for i, s in enumerate(checks):
        parts.append(f"c{i} AS ({s.sql})")
        params.extend(s.params)
    for i, s in enumerate(writes):
        parts.append(f"w{i} AS ({s.sql})")
        params.extend(s.params)
    read = ", ".join(
        [f"(SELECT count(*) FROM c{i})" for i in range(len(checks))]
        + [
            "pg_notify(%s, %s)"
            if n.write is None
            else f"(SELECT pg_notify(%s, %s) FROM w{n.write} LIMIT 1)"
            for n in notices
        ]
        + [f"EXISTS (SELECT FROM w{i})" for i in asked]
    )
    for notice in notices:
        params.extend((notice.channel, notice.payload))
    return Statement(f"WITH {', '.join(parts)} SELECT {read or '1'}", params)


def check_connections_on_checkout(engine: Engine) -> None:
    """Without a round trip: a pooled connection whose server went away is replaced
    before anyone uses it (pool.py ``went_away``; SQLAlchemy's pessimistic disconnect
    handling, without pre-ping's extra SELECT 1 on every checkout)."""

    @event.listens_for(engine, "checkout")
    def _checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        conn = dbapi_connection
        if not isinstance(conn, psycopg.Connection):  # pragma: no cover - psycopg only
            return
        if went_away(conn):
            raise exc.DisconnectionError("the connection is closed or its server went away")
