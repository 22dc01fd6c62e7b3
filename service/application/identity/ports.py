"""What identity needs from the outside world: seat credentials, players and operator
tokens in the store, and a verifier of OpenID Connect ID tokens."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol
from uuid import UUID

from service.application.errors import ForbiddenError, UnauthenticatedError


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """A player: one identity across games; suspended by an operator, or not."""

    id: UUID
    name: str
    created_at: datetime
    suspended_at: datetime | None = None
    suspended_reason: str | None = None
    erased_at: datetime | None = None  # docs/privacy.md


class PlayerSuspendedError(ForbiddenError):
    """The player is suspended: their tokens open nothing until an operator lifts it."""

    code = "player_suspended"

    def __init__(self) -> None:
        super().__init__("this player is suspended")


class CredentialGoneError(UnauthenticatedError):
    """A credential the unit of work was told to require no longer holds (checked by the
    store in the same round trip as the work it guards)."""

    def __init__(self) -> None:
        super().__init__("the bearer token is not valid")


class Credentials(Protocol):
    def add(self, game_id: UUID, seat: int, token_sha256: str, created_at: datetime) -> None:
        """Store a seat's token digest; :class:`AppendConflictError` if the seat has one
        (a racing join of the same seat: the caller decides again and finds it taken)."""
        ...

    def find(self, token_sha256: str) -> tuple[UUID, int] | None: ...

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        """Everything this unit of work reads or writes from now on holds only while this
        token still opens this seat: else :class:`CredentialGoneError`, and nothing of the
        unit of work is committed. (The store checks it with the work, not before.)"""
        ...


@dataclass(frozen=True, slots=True)
class PlayerToken:
    """One of a player's tokens (only its digest is stored): how it was made (``via``:
    ``created`` with the player, ``oidc`` by a sign-in, ``link`` by a link code), when,
    and when it was last used (coarsely: at most once a minute is written)."""

    id: UUID
    player_id: UUID
    via: str
    created_at: datetime
    token_sha256: str = field(repr=False)
    last_used_at: datetime | None = None


class Players(Protocol):
    def add(self, player: PlayerRecord, token: PlayerToken) -> None:
        """A new player and the token it was made with (queued)."""
        ...

    def get(self, player_id: UUID) -> PlayerRecord | None: ...

    def find(self, token_sha256: str) -> PlayerRecord | None:
        """The player this token (not revoked) is one of."""
        ...

    def rename(self, player_id: UUID, name: str) -> None:
        """(Queued.) Games keep the name each seat was joined under."""
        ...

    def suspend(self, player_id: UUID, at: datetime | None, reason: str | None) -> None:
        """(Queued.) Suspend the player (``at`` None: lift the suspension); every process
        hears of it (the streams the player's tokens opened end)."""
        ...

    def seat_in(self, game_id: UUID, player_id: UUID) -> int | None:
        """The seat the player holds in this game, if any."""
        ...

    def of_game(self, game_id: UUID) -> dict[int, UUID]:
        """The players holding seats of this game, by seat."""
        ...

    def bind(self, game_id: UUID, seat: int, player_id: UUID) -> None:
        """The player holds this seat (queued); at commit :class:`AlreadySeatedError` if
        the player holds another seat of the game, :class:`AppendConflictError` if the
        seat is held."""
        ...

    def require(self, token_sha256: str, game_id: UUID, seat: int) -> None:
        """As :meth:`Credentials.require`, for a seat a player holds with this token (one
        of the player's, not revoked); :class:`PlayerSuspendedError` while the player is
        suspended."""
        ...


class PlayerTokens(Protocol):
    def add(self, token: PlayerToken) -> None:
        """Another token of a player (queued)."""
        ...

    def get(self, token_id: UUID) -> PlayerToken | None:
        """The token, unless it was revoked."""
        ...

    def of(
        self, player_id: UUID, after: tuple[datetime, UUID] | None, limit: int
    ) -> list[PlayerToken]:
        """The player's tokens not revoked, newest first (created_at, id), strictly
        older than ``after``."""
        ...

    def revoke(self, token: PlayerToken, at: datetime) -> None:
        """(Queued.) The token opens nothing from this commit on, and every process
        hears of it (its open streams end)."""
        ...

    def touch(self, token_sha256: str, at: datetime) -> None:
        """The token was used at ``at`` (done at once; its callers write it at most once
        a minute a token)."""
        ...

    def require(self, token_sha256: str) -> None:
        """As :meth:`Credentials.require`, for a player's token: it holds while the token
        is not revoked (:class:`CredentialGoneError`) and its player not suspended
        (:class:`PlayerSuspendedError`)."""
        ...


@dataclass(frozen=True, slots=True)
class PlayerAuditEntry:
    """What was done to a player, by whom (an operator by name, the player), when, why."""

    player_id: UUID
    at: datetime
    action: str  # suspended, unsuspended, renamed, token_revoked, ban_lifted, erased,
    # report_dismissed, warned, muted (a report resolved: moderation/reports.py)
    actor_kind: str
    actor_id: str | None
    reason: str | None = None
    request_id: str | None = None
    id: int = 0  # given by the store


class PlayerAudit(Protocol):
    def add(self, entry: PlayerAuditEntry) -> None:
        """(Queued.)"""
        ...

    def page(self, player_id: UUID, after: int, limit: int) -> list[PlayerAuditEntry]:
        """The player's entries with ``id > after``, in the order their commits were
        made (those of one commit in any order among themselves)."""
        ...


class Identities(Protocol):
    """OpenID Connect identities, each (issuer, subject) one player's."""

    def find(self, issuer: str, subject: str) -> UUID | None:
        """The player this identity signs in."""
        ...

    def add(self, issuer: str, subject: str, player_id: UUID, at: datetime) -> None:
        """(Queued.) At commit :class:`DuplicateKeyError` when another sign-in linked the
        identity first (the command is decided again and finds it)."""
        ...


@dataclass(frozen=True, slots=True)
class LinkCode:
    """A code that signs its player in on another device: one use, until ``expires_at``
    (only its SHA-256 is stored)."""

    code_sha256: str = field(repr=False)
    player_id: UUID
    created_at: datetime
    expires_at: datetime


class LinkCodes(Protocol):
    def add(self, code: LinkCode) -> None:
        """(Queued.)"""
        ...

    def take(self, code_sha256: str, now: datetime) -> UUID | None:
        """The player of this code if it is unused and not expired at ``now``, then used
        (queued): a code is taken once, however many redeem it at once (the code is
        held until the unit of work ends)."""
        ...


class Operators(Protocol):
    def find(self, token_sha256: str) -> str | None:
        """The name of the operator whose token (not revoked) has this digest."""
        ...


@dataclass(frozen=True, slots=True)
class VerifiedIdentity:
    """Who an OpenID Connect ID token says signed in: the provider (``issuer``), its
    subject, and the name the token offers (its ``name`` or ``preferred_username``)."""

    issuer: str
    subject: str
    name: str | None = None


class IdTokenRefusedError(UnauthenticatedError):
    """An ID token that does not hold; the detail says which check failed, never the
    token."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail, code="invalid_id_token")


class ProviderUnavailableError(Exception):
    """An issuer's discovery document or keys could not be fetched (503
    ``provider_unavailable``): nothing else of the service is affected."""


@dataclass(frozen=True, slots=True)
class ProviderEndpoints:
    """Where a front end sends its user to sign in, and where it exchanges the code it
    gets back for an ID token (the issuer's discovery document says)."""

    issuer: str
    authorization_endpoint: str
    token_endpoint: str


class IdTokens(Protocol):
    def endpoints(self, issuer: str) -> ProviderEndpoints:
        """A configured issuer's endpoints, from its discovery document (fetched once):
        :class:`ProviderUnavailableError` when it cannot be had."""
        ...

    def verify(self, id_token: str) -> VerifiedIdentity:
        """The identity a signed ID token stands for, once every check holds:
        :class:`IdTokenRefusedError` when one fails, :class:`ProviderUnavailableError`
        when the issuer's keys cannot be had."""
        ...
