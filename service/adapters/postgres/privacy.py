"""The keys personal data is sealed under, in PostgreSQL (``privacy_keys``, migration
0014). A destroyed key keeps its row without its bytes: asked for again, the vault hands
out a key nobody keeps, so nothing sealed after an erasure is readable either.

A backup restored from before an erasure would bring a destroyed key back: the erasure
list kept outside the database (service/adapters/privacy/erasure_list.py) destroys it
again when the service starts (docs/privacy.md)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Collection, Mapping, MutableMapping
from datetime import date, datetime
from typing import ParamSpec, TypeVar
from uuid import UUID

from sqlalchemy import Engine, exc, text

from service.adapters.postgres.events import CHANNEL
from service.adapters.postgres.keycache import ALL_DAYS_BEFORE, KeyCache
from service.adapters.postgres.keycache import CHANNEL as KEYS_CHANNEL
from service.adapters.postgres.session import Session, Statement
from service.adapters.privacy.erasure_list import ErasureList
from service.application.live.hub import token_key
from service.application.ports import StoreUnavailableError

P = ParamSpec("P")
R = TypeVar("R")

_MAKE = (
    "INSERT INTO privacy_keys (subject, key, created_at) VALUES (:s, :k, now()) "
    "ON CONFLICT (subject) DO NOTHING"
)
_GET = "SELECT key FROM privacy_keys WHERE subject = :s"
_GET_MANY = "SELECT subject, key FROM privacy_keys WHERE subject = ANY(:s) AND key IS NOT NULL"
_DESTROY = (
    "UPDATE privacy_keys SET key = NULL, destroyed_at = now() "
    "WHERE subject = ANY(:s) AND key IS NOT NULL"
)
_TOMBSTONE = (
    "INSERT INTO privacy_keys (subject, key, created_at, destroyed_at) "
    "SELECT s, NULL, now(), now() FROM unnest(CAST(:s AS text[])) AS s "
    "ON CONFLICT (subject) DO NOTHING"
)
_ANNOUNCE = text("SELECT pg_notify(:c, :p)")  # sent if, and when, the transaction commits
_DESTROY_DAYS = (
    "UPDATE privacy_keys SET key = NULL, destroyed_at = now() "
    "WHERE subject LIKE 'd%' AND subject < :d AND key IS NOT NULL"
)


def _reachable(method: Callable[P, R]) -> Callable[P, R]:
    """A store that cannot be reached is StoreUnavailableError (503), as for commands."""

    @functools.wraps(method)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except (exc.OperationalError, exc.InterfaceError) as error:
            raise StoreUnavailableError(str(error), maybe_committed=False) from error

    return wrapped


class SqlKeyVault:
    """``erased``: the erasure list a player's subject is written to before its key is
    destroyed (None: no list, as in tests of the vault alone)."""

    def __init__(
        self,
        engine: Engine,
        erased: ErasureList | None = None,
        cache: KeyCache | None = None,
    ) -> None:
        self._engine = engine
        self._erased = erased
        self._cache = cache  # None: every lookup reads the store

    @_reachable
    def key(self, subject: str) -> bytes:
        with self._engine.begin() as conn:
            conn.execute(text(_MAKE), {"s": subject, "k": os.urandom(32)})
            key = conn.execute(text(_GET), {"s": subject}).scalar_one()
        # Destroyed: a key nobody keeps, so that what it seals is unreadable at once.
        return bytes(key) if key is not None else os.urandom(32)

    @_reachable
    def keys(self, subjects: Collection[str]) -> Mapping[str, bytes]:
        if not subjects:
            return {}
        if self._cache is None:
            return self._read(list(subjects))
        return self._cache.keys(subjects, self._read)

    def opened(self, subjects: Collection[str]) -> Mapping[str, MutableMapping[str, str]]:
        return {} if self._cache is None else self._cache.opened(subjects)

    def _read(self, subjects: list[str]) -> Mapping[str, bytes]:
        with self._engine.connect() as conn:
            rows = conn.execute(text(_GET_MANY), {"s": subjects}).all()
        return {str(s): bytes(k) for s, k in rows}

    @_reachable
    def destroy(self, subjects: Collection[str]) -> int:
        """Destroy the keys, and leave a tombstone for a subject that had none yet."""
        wanted = list(subjects)
        if self._erased is not None:
            self._erased.add([s for s in wanted if s.startswith("p")])
        with self._engine.begin() as conn:
            n = conn.execute(text(_DESTROY), {"s": wanted}).rowcount
            conn.execute(text(_TOMBSTONE), {"s": wanted})
            for i in range(0, len(wanted), 200):  # every process's key cache drops them
                conn.execute(_ANNOUNCE, {"c": KEYS_CHANNEL, "p": " ".join(wanted[i : i + 200])})
        if self._cache is not None:
            self._cache.drop(" ".join(wanted))  # this process's at once, not when it hears
        return int(n)

    @_reachable
    def destroy_days_before(self, day: date) -> int:
        bound = "d" + day.strftime("%Y%m%d")
        with self._engine.begin() as conn:
            n = conn.execute(text(_DESTROY_DAYS), {"d": bound}).rowcount
            conn.execute(_ANNOUNCE, {"c": KEYS_CHANNEL, "p": ALL_DAYS_BEFORE + bound})
        if self._cache is not None:
            self._cache.drop(ALL_DAYS_BEFORE + bound)
        return int(n)


class SqlErasures:
    """An erasure's rows, in the command's transaction. What it revokes is written at
    commit (the revoking token's own check still holds until then: a player erasing
    themself), so it reads first what it will revoke."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def erase(self, player_id: UUID, at: datetime) -> None:
        s = self._session
        for (digest,) in s.fetch(
            "SELECT token_sha256 FROM player_tokens WHERE player_id = %s AND revoked_at IS NULL",
            [player_id],
        ):
            s.notify(CHANNEL, token_key(str(digest)))  # its streams end
        s.write(Statement("UPDATE players SET erased_at = %s WHERE id = %s", (at, player_id)))
        s.write(
            Statement(
                "UPDATE player_tokens SET revoked_at = %s WHERE player_id = %s "
                "AND revoked_at IS NULL",
                (at, player_id),
            )
        )
        s.write(Statement("DELETE FROM identities WHERE player_id = %s", (player_id,)))
        s.write(Statement("DELETE FROM link_codes WHERE player_id = %s", (player_id,)))
        # When their last chat messages were written (the chat's rate limit).
        s.write(Statement("DELETE FROM chat_senders WHERE sender = %s", (f"p{player_id.hex}",)))
        # Turn notifications: their subscriptions, address, codes and waiting messages go
        # (sealed under the destroyed key, they could not be opened anyway).
        s.write(
            Statement(
                "DELETE FROM outbox WHERE kind IN ('push', 'mail') AND done_at IS NULL "
                "AND payload->>'player_id' = %s",
                (str(player_id),),
            )
        )
        # Reports about them go (nothing is left to moderate, and the operators' notes
        # are about them); reports they made stay, their reasons unreadable.
        for table in (
            "reports",
            "push_subscriptions",
            "email_codes",
            "notification_settings",
            "watchers",
            "reminded",
        ):
            s.write(Statement(f"DELETE FROM {table} WHERE player_id = %s", (player_id,)))
        s.write(
            Statement(
                "UPDATE seeks SET status = 'cancelled', ended_at = %s "
                "WHERE player_id = %s AND status = 'open'",
                (at, player_id),
            )
        )

    def games_of(self, player_id: UUID) -> list[tuple[UUID, int]]:
        rows = self._session.fetch(
            "SELECT game_id, seat FROM seat_players WHERE player_id = %s "
            "UNION SELECT game_id, seat FROM inbox WHERE player_id = %s ORDER BY 1, 2",
            [player_id, player_id],
        )
        return [(r[0], int(r[1])) for r in rows]

    def close_seat(self, game_id: UUID, seat: int, *, free: bool) -> None:
        s = self._session
        for (digest,) in s.fetch(
            "SELECT token_sha256 FROM seat_credentials WHERE game_id = %s AND seat = %s",
            [game_id, seat],
        ):
            s.notify(CHANNEL, token_key(str(digest)))
        where = (game_id, seat)
        s.write(Statement("DELETE FROM seat_credentials WHERE game_id = %s AND seat = %s", where))
        if free:
            s.write(Statement("DELETE FROM seat_players WHERE game_id = %s AND seat = %s", where))
            s.write(Statement("DELETE FROM inbox WHERE game_id = %s AND seat = %s", where))
