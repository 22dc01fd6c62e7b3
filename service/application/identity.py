"""Who is asking: a seat of one game, an operator, or anyone; and what each may do."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from uuid import UUID

from service.application.errors import ForbiddenError, UnauthenticatedError
from service.application.ports import UnitOfWorkFactory


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
    digest stored when the seat was joined."""

    def __init__(self, uow: UnitOfWorkFactory, operator_token: str | None) -> None:
        self._uow = uow
        self._operator_token = operator_token

    def identify(self, bearer: str | None) -> Principal:
        """The principal a bearer token stands for (no token: anyone)."""
        if bearer is None:
            return Anonymous()
        if self._operator_token is not None and hmac.compare_digest(
            bearer.encode(), self._operator_token.encode()
        ):
            return Operator()
        with self._uow(snapshot=True) as uow:
            found = uow.credentials.find(token_digest(bearer))
        if found is None:
            return BadToken()
        return SeatHolder(*found)


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
