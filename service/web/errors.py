"""The one place where exceptions become RFC 9457 problem details."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any
from uuid import UUID

from flask import Flask, Response, g, jsonify, request
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from service.application.errors import (
    AlreadySeatedError,
    ApplicationError,
    BusyError,
    ConflictError,
    ForbiddenError,
    IdempotencyKeyReusedError,
    InvalidInputError,
    NotFoundError,
    SeatNotFoundError,
    StaleVersionError,
    TooManyError,
    UnauthenticatedError,
    UnavailableError,
)
from service.application.identity.ports import ProviderUnavailableError
from service.application.identity.sessions import IdentityInUseError
from service.application.ports import StoreUnavailableError
from service.rules import RuleViolationError, Violation
from service.settings import MAX_BODY_BYTES
from service.web.problems.catalogue import title

log = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"

# Rule violations that are about the content of the request rather than the game's state.
_UNPROCESSABLE = {
    Violation.INVALID_PASS,
    Violation.INVALID_OPTIONS,
    Violation.INVALID_DEAL,
    Violation.INVALID_CLIENT_SEED,
}
_RULE_STATUS = {
    Violation.UNKNOWN_SEAT: 404,
    Violation.SEAT_RESERVED: 403,
    Violation.PLAYERS_ONLY: 403,
}

_APP_STATUS: list[tuple[type[ApplicationError], int]] = [
    (NotFoundError, 404),
    (SeatNotFoundError, 404),
    (UnauthenticatedError, 401),
    (ForbiddenError, 403),
    (StaleVersionError, 412),
    (InvalidInputError, 422),
    (IdempotencyKeyReusedError, 422),
    (TooManyError, 429),
    (UnavailableError, 503),
    (BusyError, 409),
    (AlreadySeatedError, 409),
    (ConflictError, 409),
    (IdentityInUseError, 409),
]


def _store_unavailable(exc: StoreUnavailableError) -> Response:
    log.warning("store unavailable: %s", exc)
    detail = (
        "the database connection broke while the command was being committed: it may or "
        "may not have been done; retry it with the same Idempotency-Key, or read the game"
        if exc.maybe_committed
        else "the database is unavailable; the request changed nothing"
    )
    return problem(503, "store_unavailable", detail, headers={"Retry-After": "1"})


_HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "body_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
}


class RateLimitedError(Exception):
    """Too many requests from this seat, operator or address in the current window."""

    def __init__(
        self,
        retry_after: int,
        code: str = "rate_limited",
        detail: str = "too many requests",
    ) -> None:
        super().__init__(f"retry after {retry_after} s")
        self.retry_after = retry_after
        self.code = code
        self.detail = detail


class RequestProblemError(Exception):
    """A request the web layer refuses before any command: malformed JSON, bad headers,
    invalid fields."""

    def __init__(
        self, status: int, code: str, detail: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    errors: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
    extensions: dict[str, Any] | None = None,
) -> Response:
    body: dict[str, Any] = {
        "type": f"/problems/{code}",
        "title": title(code, status),
        "status": status,
        "detail": detail,
        "code": code,
    }
    body.update(_plain(extensions or {}))
    if errors:
        body["errors"] = errors
    request_id = g.get("request_id")
    if request_id:
        body["request_id"] = request_id
    g.problem_code = code  # for the request's log line (service/web/app.py)
    response = jsonify(body)
    response.status_code = status
    response.mimetype = PROBLEM_JSON
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _application_error(exc: ApplicationError) -> Response:
    status = next(code for kind, code in _APP_STATUS if isinstance(exc, kind))
    headers = {}
    detail = exc.detail
    if isinstance(exc, UnauthenticatedError):
        headers["WWW-Authenticate"] = 'Bearer realm="yokai"'
        if exc.code == "invalid_token":
            detail = _no_bearer_token() or detail
    if isinstance(exc, StaleVersionError):
        headers["ETag"] = f'"{exc.current}"'
    if isinstance(exc, TooManyError):
        headers["Retry-After"] = str(exc.retry_after)
    return problem(status, exc.code, detail, headers=headers, extensions=exc.extensions())


def _plain(value: Any) -> Any:
    """An extension member as JSON has it: times in ISO 8601, as everywhere else."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value.isoformat() if isinstance(value, datetime) else value


def _no_bearer_token() -> str | None:
    """Why the Authorization header holds no bearer token at all (another scheme, no
    token after the scheme), or None: such a header counts as an invalid token
    (service/web/request.py), and the client is told how to send one."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return None
    why = "no token after Bearer" if scheme.lower() == "bearer" else "not a Bearer token"
    return f"the Authorization header holds {why}: use Authorization: Bearer <token>"


def _rule_violation(exc: RuleViolationError) -> Response:
    status = 422 if exc.code in _UNPROCESSABLE else _RULE_STATUS.get(exc.code, 409)
    return problem(status, exc.code.value, exc.detail)


def _request_problem(exc: RequestProblemError) -> Response:
    return problem(exc.status, exc.code, exc.detail, errors=exc.errors)


def _unknown(path: str) -> tuple[str, str] | None:
    """The code and detail of a 404 for an id that is no UUID (`/v1/games/<id>…`,
    `/v1/webhooks/<id>…`, `/v1/seeks/<id>`): the route's converter refused it, but to the
    client it names a game (or webhook, seek) that does not exist, as a UUID nobody made
    does."""
    parts = path.split("/")
    if len(parts) < 4 or parts[1] != "v1" or parts[2] not in _UNKNOWN or not parts[3]:
        return None
    try:
        UUID(parts[3])
    except ValueError:
        code, what = _UNKNOWN[parts[2]]
        return code, f"no {what} {parts[3][:64]!r}"
    return None  # a well-formed id on a path no route has: not found, as any other path


_UNKNOWN = {
    "games": ("game_not_found", "game"),
    "webhooks": ("webhook_not_found", "webhook"),
    "players": ("player_not_found", "player"),
    "seeks": ("seek_not_found", "seek"),
}


def _http_exception(exc: HTTPException) -> Response:
    status = exc.code or 500
    if status >= 500:
        return _internal(exc)
    code = _HTTP_CODES.get(status, "http_error")
    detail = exc.description or exc.name
    path = request.path[:_PATH_SHOWN]
    if status == 404:
        unknown = _unknown(request.path)
        code, detail = unknown or ("not_found", f"nothing is at {path}: {_SEE_API}")
    if status == 413:
        detail = f"the request body is larger than {MAX_BODY_BYTES} bytes"
    headers = {}
    if isinstance(exc, MethodNotAllowed):
        allowed = sorted(exc.valid_methods or ())
        if allowed:
            headers["Allow"] = ", ".join(allowed)
        detail = f"{path} does not take {request.method[:16]}" + (
            f": it allows {', '.join(allowed)}" if allowed else ""
        )
    return problem(status, code, detail, headers=headers)


_PATH_SHOWN = 200
"""How much of a path a detail repeats."""

_SEE_API = "the API's paths are in /v1/openapi.json"


def _rate_limited(exc: RateLimitedError) -> Response:
    detail = f"{exc.detail}; retry after {exc.retry_after} s"
    return problem(429, exc.code, detail, headers={"Retry-After": str(exc.retry_after)})


def _internal(exc: BaseException) -> Response:
    log.exception("unhandled error", exc_info=exc)
    return problem(500, "internal_error", "the server failed; the request changed nothing")


def _provider_unavailable(exc: ProviderUnavailableError) -> Response:
    log.warning("OpenID provider unavailable: %s", exc)
    detail = "the identity provider's keys could not be fetched; retry later"
    return problem(503, "provider_unavailable", detail, headers={"Retry-After": "5"})


def register(app: Flask) -> None:
    app.register_error_handler(RateLimitedError, _rate_limited)
    app.register_error_handler(StoreUnavailableError, _store_unavailable)
    app.register_error_handler(ProviderUnavailableError, _provider_unavailable)
    app.register_error_handler(ApplicationError, _application_error)
    app.register_error_handler(RuleViolationError, _rule_violation)
    app.register_error_handler(RequestProblemError, _request_problem)
    app.register_error_handler(HTTPException, _http_exception)
    app.register_error_handler(Exception, _internal)
