"""In-memory stand-ins for the ports of service.application.ports, for handler tests that
need no database.

One :class:`Database` holds the committed rows; each :class:`FakeUnitOfWork` is one
transaction on it, with the semantics of the PostgreSQL adapters
(service/adapters/postgres), which the contract suite (tests/contract) checks on both:

- reads are done at once and see what is committed (READ COMMITTED), never the unit of
  work's own queued writes; a snapshot unit of work sees the database as it was at its
  first read, and may not write (:class:`TransactionError`);
- writes are queued and done together at commit, as PostgreSQL runs the adapters' one
  statement: each write sees the rows as committed before the commit (an update does not
  see a row the same commit adds), keys are checked as rows go in, foreign keys once
  every row is in. A taken ``(game_id, seq)`` or seat raises :class:`AppendConflictError`,
  a taken idempotency key :class:`DuplicateKeyError`, a player's second seat of a game
  :class:`AlreadySeatedError`; the others (a duplicate game, player, endpoint or token, a
  foreign key) raise :class:`IntegrityViolation`. A commit that fails does nothing, and
  its unit of work is over: anything but leaving it raises :class:`TransactionError`;
- a credential the unit of work requires (Credentials.require, Players.require) is
  checked with each later read and at commit, as the adapters send the check with the work;
- claims, expiry and forgetting (``wakeups.claim``, ``webhooks.claim``, ``webhooks.forget``,
  ``idempotency.expire``) are done at once, outside the unit of work's transaction;
- an idempotency key a unit of work locked is held until it ends: another unit of work
  that would wait for it raises :class:`WouldBlockError` (with one thread, waiting would
  never end).

:meth:`Database.interpose` runs a "concurrent writer" just before a unit of work makes
its first append, so a test can make another transaction win the race.

One module per store (``events``, ``games``, ``inbox``, ``lobby``, ...), beside the rows
(``tables``), the database, the unit of work and the test's clock, dealer and ``make_deps``;
this package gives the names the tests import.
"""

from tests.application.fakes.clock import FixedClock
from tests.application.fakes.database import Database
from tests.application.fakes.dealer import DealerScriptExhaustedError, ScriptedDealer
from tests.application.fakes.deps import CHAIN_KEYS, OPERATOR_TOKEN, make_deps
from tests.application.fakes.tables import IntegrityViolation, TransactionError, WouldBlockError
from tests.application.fakes.unit_of_work import FakeUnitOfWork

__all__ = [
    "CHAIN_KEYS",
    "OPERATOR_TOKEN",
    "Database",
    "DealerScriptExhaustedError",
    "FakeUnitOfWork",
    "FixedClock",
    "IntegrityViolation",
    "ScriptedDealer",
    "TransactionError",
    "WouldBlockError",
    "make_deps",
]
