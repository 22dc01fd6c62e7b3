"""The one wrapper every command runs in: one transaction, retried when another writer
won a race, done once per Idempotency-Key.

A command's events, the projection rows they change and its outcome under the key commit
together. A writer that lost a race on the ``(game_id, seq)`` key decides again against
the new state (or, when it named the version it expected, is refused as stale). Twins
with the same key wait for each other on a lock, so the later one replays the outcome
of the first. A refusal that depends only on the command and the game is remembered
too, so the same command is refused the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar, cast
from uuid import UUID

from service.application.commands import ANY_VERSION, Command, Context
from service.application.deps import Deps
from service.application.errors import (
    BusyError,
    IdempotencyKeyReusedError,
    StaleVersionError,
)
from service.application.games.loading import current_version
from service.application.identity.principals import Anonymous, Principal, guard, require_valid
from service.application.ports import Actor, AppendConflictError, StoreUnavailableError, UnitOfWork
from service.application.results import Executed, GameResult, Result
from service.application.write import sealed
from service.application.write.ports import DuplicateKeyError, SealedRecord
from service.application.write.transaction import Transaction

C = TypeVar("C", bound=Command)
R = TypeVar("R", bound=Result)


@dataclass(frozen=True, slots=True)
class Registered(Generic[C, R]):
    """What runs a command of type ``C``: ``authorize`` says who acts when this principal
    sends it, or refuses (before anything is read, so a refused principal learns nothing
    of the command's key); ``handle`` does it (its command, who acts, the transaction it
    runs in) and gives its result."""

    authorize: Callable[[C, Principal], Actor]
    handle: Callable[[C, Actor, Transaction], R]


MAX_ATTEMPTS = 8
RECONNECTS = 1
"""A connection that broke before anything was sent is tried once more on a new one; a
store that cannot be reached at all is reported as such (not as a busy game)."""


class _DecideAgain(Exception):
    """A refusal decided on a cached state that may be behind the store."""


def run(deps: Deps, handler: Registered[C, R], command: C, ctx: Context) -> Executed[R]:
    require_valid(ctx.principal)  # every command refuses a token that matches nothing
    actor = handler.authorize(command, ctx.principal)
    key = _Key.of(command, ctx)
    fresh = False  # first, decide on the cached state if there is one
    unreachable = 0
    for _ in range(MAX_ATTEMPTS):
        try:
            with deps.uow() as uow:
                guard(uow, ctx.principal)
                if key is not None and (stored := key.stored(uow)) is not None:
                    # The key is bound to this command (its fingerprint): the outcome
                    # stored is this command's result.
                    return Executed(cast(R, stored), None)
                digest = key.digest if key else None
                tx = Transaction(uow, deps, ctx, deps.clock.now(), digest, fresh=fresh)
                try:
                    result = handler.handle(command, actor, tx)
                except (*sealed.REFUSALS, StaleVersionError) as exc:
                    if tx.optimistic:
                        raise _DecideAgain from exc
                    # Refusals come from deciding, before anything is appended; should a
                    # handler refuse after writing, nothing of it may commit.
                    if key is not None and not tx.written and isinstance(exc, sealed.REFUSALS):
                        key.remember(uow, sealed.seal_refusal, exc, tx.now)
                        uow.commit()
                    raise
                tx.flush()
                if key is not None:
                    key.remember(uow, sealed.seal_result, result, tx.now)
                uow.commit()
            for written, loaded in tx.written.items():
                deps.cache.put(written, loaded)
                deps.recent.committed(written, tx.appended.get(written, ()), loaded)
            game = tx.written.get(result.game_id) if isinstance(result, GameResult) else None
            return Executed(result, game)
        except _DecideAgain:
            fresh = True
            continue
        except AppendConflictError as conflict:
            if ctx.expected is not None and ANY_VERSION not in ctx.expected:
                raise StaleVersionError(
                    "the game moved on while this command was decided",
                    _current_version(deps, conflict.game_id),
                ) from None
            fresh = True
            continue  # decide again against the new state
        except DuplicateKeyError:
            continue  # a twin stored its outcome first: replay it
        except StoreUnavailableError as broken:
            if broken.maybe_committed:
                raise  # done or not: only the store knows; the client asks again
            unreachable += 1
            if unreachable > RECONNECTS:
                raise  # the store is down, not busy: 503, and nothing was done
            continue  # nothing was sent to be committed: try on a new connection
    raise BusyError("too many concurrent commands on this game; retry")


@dataclass(frozen=True, slots=True)
class _Key:
    """An Idempotency-Key as the store knows it: scoped, digested, bound to one command."""

    raw: str
    scope: str
    digest: str
    fingerprint: str
    request_fingerprint: str | None

    @classmethod
    def of(cls, command: Command, ctx: Context) -> _Key | None:
        if ctx.idempotency_key is None:
            return None
        raw = ctx.idempotency_key
        return cls(
            raw,
            _scope(ctx),
            sealed.digest(raw),
            sealed.fingerprint(command),
            ctx.request_fingerprint,
        )

    def stored(self, uow: UnitOfWork) -> Result | None:
        """The outcome stored under this key (a refusal is raised again), else None.
        Holds the key until the transaction ends: a twin waits here, then replays."""
        uow.idempotency.lock(self.scope, self.digest)
        record = uow.idempotency.get(self.scope, self.digest)
        if record is None:
            return None
        # Records from before outcomes were stored fingerprint the request instead.
        expected = self.fingerprint if record.legacy_status is None else self.request_fingerprint
        if record.fingerprint != expected:
            raise IdempotencyKeyReusedError("this Idempotency-Key was used for a different request")
        return sealed.unseal(self.raw, self.scope, record)

    def remember(
        self,
        uow: UnitOfWork,
        seal: Callable[[str, str, str, Any], SealedRecord],
        outcome: Any,
        now: datetime,
    ) -> None:
        uow.idempotency.add(
            self.scope, self.digest, seal(self.raw, self.scope, self.fingerprint, outcome), now
        )


def _scope(ctx: Context) -> str:
    """Whose idempotency keys a command's key is among: a seat's, the operators', or one
    anonymous client's (by address, so one client cannot replay another's join)."""
    if isinstance(ctx.principal, Anonymous):
        return f"anonymous:{ctx.client}"
    return ctx.principal.scope


def _current_version(deps: Deps, game_id: UUID) -> int:
    with deps.uow(snapshot=True) as uow:
        return current_version(uow, game_id)
