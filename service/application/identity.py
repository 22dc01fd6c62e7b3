"""Who is asking: a seat of one game, an operator, or anyone; and what each may do."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from uuid import UUID

from service.application.errors import ForbiddenError, UnauthenticatedError
from service.application.ports import UnitOfWork, UnitOfWorkFactory


@dataclass(frozen=True, slots=True)
class Anonymous:
    @property
    def scope(self) -> str:
        # Idempotency keys of anonymous callers are further scoped by the client's address.
        return "anonymous"


@dataclass(frozen=True, slots=True)
class Operator:
    @property
    def scope(self) -> str:
        return "operator"


@dataclass(frozen=True, slots=True)
class SeatHolder:
    game_id: UUID
    seat: int
    # The digest of the token it was identified by, when it came from a token: what
    # every use of it is checked against in the store (see Identity).
    token_sha256: str | None = field(default=None, compare=False)

    @property
    def scope(self) -> str:
        return f"seat:{self.game_id}:{self.seat}"


@dataclass(frozen=True, slots=True)
class BadToken:
    """A bearer token that matches nothing."""

    @property
    def scope(self) -> str:
        return "invalid"


Principal = Anonymous | Operator | SeatHolder | BadToken


def new_token() -> str:
    """A seat's secret: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What is stored of a seat's token: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


class Identity:
    """Resolves bearer tokens: the operators' token from the settings, seat tokens by the
    digest stored when the seat was joined.

    Seat tokens found are remembered per process, so a request costs no lookup of its
    own. That can never grant what the store would refuse: whatever a remembered seat
    does is checked against its credential in the store, in the same round trip as the
    work (:func:`guard`), so a token that stops opening its seat stops at once.
    """

    def __init__(
        self, uow: UnitOfWorkFactory, operator_token: str | None, capacity: int = 65536
    ) -> None:
        self._uow = uow
        self._operator_token = operator_token
        self._seats: OrderedDict[str, SeatHolder] = OrderedDict()
        self._capacity = capacity
        self._lock = threading.Lock()

    def identify(self, bearer: str | None) -> Principal:
        """The principal a bearer token stands for (no token: anyone)."""
        if bearer is None:
            return Anonymous()
        if self._operator_token is not None and hmac.compare_digest(
            bearer.encode(), self._operator_token.encode()
        ):
            return Operator()
        digest = token_digest(bearer)
        with self._lock:
            known = self._seats.get(digest)
            if known is not None:
                self._seats.move_to_end(digest)
                return known
        with self._uow() as uow:
            found = uow.credentials.find(digest)
        if found is None:
            return BadToken()  # never remembered: made-up tokens must not fill the memory
        holder = SeatHolder(*found, token_sha256=digest)
        with self._lock:
            self._seats[digest] = holder
            while len(self._seats) > self._capacity:
                self._seats.popitem(last=False)
        return holder


def guard(uow: UnitOfWork, principal: Principal) -> None:
    """Make what ``uow`` reads or writes hold only while the principal's token still
    opens its seat (nothing to check for anyone else)."""
    if isinstance(principal, SeatHolder) and principal.token_sha256 is not None:
        uow.credentials.require(principal.token_sha256, principal.game_id, principal.seat)


def seat_of(game_id: UUID, principal: Principal) -> int:
    """The seat a principal holds in this game, or why it may not act for one."""
    match principal:
        case SeatHolder(gid, seat) if gid == game_id:
            return seat
        case SeatHolder():
            raise ForbiddenError("this token belongs to another game")
        case Operator():
            raise ForbiddenError("this action needs a seat token")
        case BadToken():
            raise UnauthenticatedError("the bearer token is not valid")
    raise UnauthenticatedError("a seat token is required", code="missing_token")


def require_operator(principal: Principal) -> None:
    match principal:
        case Operator():
            return
        case Anonymous():
            raise UnauthenticatedError("an operator token is required", code="missing_token")
        case BadToken():
            raise UnauthenticatedError("the bearer token is not valid")
    raise ForbiddenError("operators only")


def require_valid(principal: Principal) -> None:
    """Anyone may do this, but a token that matches nothing is refused, not ignored."""
    if isinstance(principal, BadToken):
        raise UnauthenticatedError("the bearer token is not valid")
