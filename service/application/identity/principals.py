"""Who is asking: a seat of one game, an operator, or anyone; and what each may do."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from service.application.errors import ForbiddenError, UnauthenticatedError
from service.application.ports import Actor, ActorKind, UnitOfWork


@dataclass(frozen=True, slots=True)
class Anonymous:
    @property
    def scope(self) -> str:
        # Idempotency keys of anonymous callers are further scoped by the client's address.
        return "anonymous"


DEFAULT_OPERATOR = "operator"
"""The name of the operator token of ``YOKAI_OPERATOR_TOKEN``."""
CLI_OPERATOR = "cli"
"""The operator the audit names for what `yokai import` does (no token's name)."""


@dataclass(frozen=True, slots=True)
class Operator:
    """An operator, by the name of the token it used (the audit records it)."""

    name: str = DEFAULT_OPERATOR

    @property
    def scope(self) -> str:
        return "operator" if self.name == DEFAULT_OPERATOR else f"operator:{self.name}"


@dataclass(frozen=True, slots=True)
class SeatHolder:
    """Who acts for a seat: with the seat's own token, or a player's for the seat they
    hold (``player_id``)."""

    game_id: UUID
    seat: int
    # The digest of the token it was identified by, when it came from a token: what
    # every use of it is checked against in the store (see Identity).
    token_sha256: str | None = field(default=None, compare=False)
    player_id: UUID | None = field(default=None, compare=False)
    # The player the seat is bound to, when a seat token of theirs acts (found once, when
    # the token is identified): what is recorded of the request is sealed under their key.
    seat_player: UUID | None = field(default=None, compare=False)

    @property
    def scope(self) -> str:
        return f"seat:{self.game_id}:{self.seat}"


@dataclass(frozen=True, slots=True)
class PlayerHolder:
    """A player, by their player token, where no seat of theirs is concerned."""

    player_id: UUID
    token_sha256: str = field(compare=False)

    @property
    def scope(self) -> str:
        return f"player:{self.player_id}"


@dataclass(frozen=True, slots=True)
class BadToken:
    """A bearer token that matches nothing."""

    @property
    def scope(self) -> str:
        return "invalid"


Principal = Anonymous | Operator | SeatHolder | PlayerHolder | BadToken


def guard(uow: UnitOfWork, principal: Principal) -> None:
    """Make what ``uow`` reads or writes hold only while the principal's token still
    opens its seat, or (a player's token) is not revoked; nothing to check for anyone
    else (operators' tokens from the store are looked up at each request)."""
    if isinstance(principal, SeatHolder) and principal.token_sha256 is not None:
        if principal.player_id is not None:
            uow.players.require(principal.token_sha256, principal.game_id, principal.seat)
        else:
            uow.credentials.require(principal.token_sha256, principal.game_id, principal.seat)
    elif isinstance(principal, PlayerHolder):
        uow.player_tokens.require(principal.token_sha256)


def actor_of(principal: Principal, seat: int | None = None, game_id: UUID | None = None) -> Actor:
    """Who exactly sends a command about ``game_id`` (for ``seat``, if any), as its
    events record it: an operator by its token's name, a player by their id, a seat by
    its token (and, when it is a seat of another game, which one), else anonymous."""
    match principal:
        case Operator(name=name):
            return Actor(ActorKind.OPERATOR, seat, name)
        case SeatHolder(player_id=player_id) if player_id is not None:
            return Actor(ActorKind.PLAYER, seat, str(player_id))
        case PlayerHolder(player_id=player_id):
            return Actor(ActorKind.PLAYER, seat, str(player_id))
        case SeatHolder(game_id=own_game, seat=own_seat):
            if own_game == game_id:
                return Actor(ActorKind.SEAT, seat)
            return Actor(ActorKind.SEAT, seat, f"{own_game}/{own_seat}")
    return Actor(ActorKind.ANONYMOUS, seat)


def seat_of(game_id: UUID, principal: Principal) -> int:
    """The seat a principal holds in this game, or why it may not act for one."""
    match principal:
        case SeatHolder(gid, seat) if gid == game_id:
            return seat
        case SeatHolder():
            raise ForbiddenError("this token belongs to another game")
        case PlayerHolder():
            raise ForbiddenError("this player holds no seat in this game")
        case Operator():
            raise ForbiddenError("this action needs a seat token")
        case BadToken():
            raise UnauthenticatedError("the bearer token is not valid")
    raise UnauthenticatedError("a seat token is required", code="missing_token")


def require_player(principal: Principal) -> PlayerHolder:
    match principal:
        case PlayerHolder():
            return principal
        case SeatHolder(player_id=player_id, token_sha256=digest) if (
            player_id is not None and digest is not None
        ):
            return PlayerHolder(player_id, digest)
        case Anonymous():
            raise UnauthenticatedError("a player token is required", code="missing_token")
        case BadToken():
            raise UnauthenticatedError("the bearer token is not valid")
    raise ForbiddenError("this needs a player token")


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
