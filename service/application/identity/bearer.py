"""Bearer tokens: how they are made and stored (their SHA-256), and how a request's
token is resolved to its principal, remembered per process."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from uuid import UUID

from service.application.identity.principals import (
    DEFAULT_OPERATOR,
    Anonymous,
    BadToken,
    Operator,
    PlayerHolder,
    Principal,
    SeatHolder,
)
from service.application.ports import Clock, UnitOfWorkFactory

TOUCH_SECONDS = 60.0
"""How often, at most, a process writes when a player's token was last used."""


class _Utc:
    def now(self) -> datetime:
        return datetime.now(UTC)


def new_token() -> str:
    """A seat's secret: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What is stored of a seat's token: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


OPERATOR_TOKEN_PREFIX = "yop_"
"""How tokens made by `yokai operator create` begin: only those are looked up as
operators in the store (every other token costs no lookup of that kind)."""


def new_operator_token() -> str:
    """An operator's secret, as `yokai operator create` makes it: 256 random bits."""
    return OPERATOR_TOKEN_PREFIX + secrets.token_urlsafe(32)


class Identity:
    """Resolves bearer tokens: the operators' tokens from the settings (by name) or the
    store (made by `yokai operator create`, looked up each time so a revocation holds at
    once), seat and player tokens by the digest stored when they were made.

    Seat and player tokens found are remembered per process, so a request costs no
    lookup of its own. That can never grant what the store would refuse: whatever a
    remembered token does is checked against its credential in the store, in the same
    round trip as the work (:func:`guard`), so a token that stops opening its seat, or a
    player's token revoked in any process, stops at once.

    When a player's token was last used is written at most once a minute a token and a
    process (TOUCH_SECONDS), not at every request.
    """

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        operators: Mapping[str, str] | str | None,
        capacity: int = 65536,
        *,
        clock: Clock | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        """``operators``: each operator token of the settings by its name (a lone token is
        the default operator's, YOKAI_OPERATOR_TOKEN)."""
        self._uow = uow
        named = {DEFAULT_OPERATOR: operators} if isinstance(operators, str) else operators
        self._operators = [(name, token.encode()) for name, token in (named or {}).items()]
        self._known: OrderedDict[str | tuple[UUID, UUID], SeatHolder | PlayerHolder | None] = (
            OrderedDict()
        )
        self._capacity = capacity
        self._lock = threading.Lock()
        self._touched: OrderedDict[str, float] = OrderedDict()
        self._clock: Clock = clock or _Utc()
        self._monotonic = monotonic

    def identify(self, bearer: str | None) -> Principal:
        """The principal a bearer token stands for (no token: anyone)."""
        if bearer is None:
            return Anonymous()
        digest = token_digest(bearer)
        # First: a token remembered is a seat's or a player's, never an operator's (those
        # of the settings are compared before one is remembered; those of the store,
        # with their prefix, are never remembered).
        known = self._recall(digest)
        if known is not None:
            self._touch(known)
            return known
        given = bearer.encode()
        found: str | None = None
        for name, token in self._operators:  # every one compared: no early exit
            if hmac.compare_digest(given, token):
                found = name
        if found is None and bearer.startswith(OPERATOR_TOKEN_PREFIX):
            with self._uow() as uow:
                found = uow.operators.find(digest)
            if found is None:
                return BadToken()
        if found is not None:
            return Operator(found)
        with self._uow() as uow:
            seat = uow.credentials.find(digest)
            player = uow.players.find(digest) if seat is None else None
            bound = uow.players.of_game(seat[0]).get(seat[1]) if seat is not None else None
        if seat is not None:
            holder: SeatHolder | PlayerHolder = SeatHolder(
                *seat, token_sha256=digest, seat_player=bound
            )
        elif player is not None:
            holder = PlayerHolder(player.id, digest)
        else:
            return BadToken()  # never remembered: made-up tokens must not fill the memory
        self._remember(digest, holder)
        self._touch(holder)
        return holder

    def in_game(self, principal: Principal, game_id: UUID) -> Principal:
        """For a request about one game: a player who holds a seat of it acts for that
        seat there, everywhere a seat token would (checked in the store like one)."""
        if not isinstance(principal, PlayerHolder):
            return principal
        key = (principal.player_id, game_id)
        known = self._recall(key)
        if isinstance(known, SeatHolder):
            return known
        with self._uow() as uow:
            seat = uow.players.seat_in(game_id, principal.player_id)
        if seat is None:
            return principal  # not remembered: the player may take a seat at any time
        holder = SeatHolder(game_id, seat, principal.token_sha256, principal.player_id)
        self._remember(key, holder)
        return holder

    def _touch(self, holder: SeatHolder | PlayerHolder) -> None:
        """Note when a player's token was used, at most once every TOUCH_SECONDS."""
        if not isinstance(holder, PlayerHolder):
            return
        now = self._monotonic()
        with self._lock:
            last = self._touched.get(holder.token_sha256)
            if last is not None and now - last < TOUCH_SECONDS:
                return
            self._touched[holder.token_sha256] = now
            while len(self._touched) > self._capacity:
                self._touched.popitem(last=False)
        with self._uow() as uow:
            uow.player_tokens.touch(holder.token_sha256, self._clock.now())

    def _recall(self, key: str | tuple[UUID, UUID]) -> SeatHolder | PlayerHolder | None:
        with self._lock:
            known = self._known.get(key)
            if known is not None:
                self._known.move_to_end(key)
            return known

    def _remember(self, key: str | tuple[UUID, UUID], holder: SeatHolder | PlayerHolder) -> None:
        with self._lock:
            self._known[key] = holder
            while len(self._known) > self._capacity:
                self._known.popitem(last=False)
