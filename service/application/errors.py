"""Application errors. The web layer maps each ``code`` to a problem-details response."""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """Base: ``code`` is stable and machine-readable; ``detail`` is for people."""

    code = "error"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail

    def extensions(self) -> dict[str, Any]:
        """Members the problem document carries besides the standard ones (docs/api.md
        names each code's)."""
        return {}


class NotFoundError(ApplicationError):
    """What the request names does not exist (or is not the caller's to see): 404."""

    code = "not_found"


class GameNotFoundError(NotFoundError):
    code = "game_not_found"


class SeatNotFoundError(ApplicationError):
    code = "unknown_seat"


class UnauthenticatedError(ApplicationError):
    """No token, or a token that opens nothing here."""

    def __init__(self, detail: str, code: str = "invalid_token") -> None:
        super().__init__(detail)
        self.code = code


class ForbiddenError(ApplicationError):
    """A valid token that does not allow this."""

    code = "forbidden"


class SeatLeftError(ForbiddenError):
    """The seat's player left: a bot plays it, and the seat's tokens no longer act."""

    code = "seat_left"


class StaleVersionError(ApplicationError):
    """The caller expected a version the game has moved past."""

    code = "stale_version"

    def __init__(self, detail: str, current: int) -> None:
        super().__init__(detail)
        self.current = current


class InvalidInputError(ApplicationError):
    """Well-formed input with content the game cannot accept (422)."""

    def __init__(self, detail: str, code: str) -> None:
        super().__init__(detail)
        self.code = code


class TooManyError(ApplicationError):
    """More of something than a period allows (429, with Retry-After)."""

    def __init__(self, detail: str, code: str, retry_after: int) -> None:
        super().__init__(detail)
        self.code = code
        self.retry_after = retry_after


class UnavailableError(ApplicationError):
    """What the command needs is not configured on this server (503)."""

    def __init__(self, detail: str, code: str) -> None:
        super().__init__(detail)
        self.code = code


class IdempotencyKeyReusedError(ApplicationError):
    code = "idempotency_key_reused"


class BusyError(ApplicationError):
    """Too many writers raced on one game; the client may retry."""

    code = "concurrent_update"


class ConflictError(ApplicationError):
    """What the command names is in a state that does not allow it (409)."""


class AlreadySeatedError(ApplicationError):
    """A player holds a seat of this game already (one seat per player per game)."""

    code = "already_seated"
