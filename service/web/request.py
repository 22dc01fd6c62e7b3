"""What a view reads of its request: the services it runs on, who sends it (the bearer
token), a game id, the body's size, and a command's context (Idempotency-Key, If-Match,
request ids)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

from flask import Request, current_app, g, request
from flask.ctx import _AppCtxGlobals
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from service.application.commands import Context
from service.application.deps import Deps
from service.application.errors import GameNotFoundError, UnauthenticatedError
from service.application.identity.principals import Anonymous, PlayerHolder, Principal
from service.application.monitoring import Health, Stats
from service.settings import MAX_BODY_BYTES
from service.web.conditional import if_match
from service.web.errors import RequestProblemError

_VISIBLE_ASCII = re.compile(r"^[\x21-\x7e]{1,255}$")


_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


@dataclass(frozen=True)
class Services:
    deps: Deps
    health: Health
    stats: Stats | None = None
    # The web client's sign-in: (issuer, client id) pairs (YOKAI_OIDC_WEB_CLIENTS).
    web_clients: tuple[tuple[str, str], ...] = ()
    # Whether the message bus answers (YOKAI_REDIS_URL; None: there is none).
    bus_reachable: Callable[[], bool] | None = None


def services() -> Services:
    found: Services = current_app.extensions["yokai"]
    return found


def current() -> tuple[_AppCtxGlobals, Request]:
    """``g`` and the request themselves, not their proxies: a hook that reads many of
    their attributes pays the proxies' lookup (a handful of calls each) once."""
    found: tuple[_AppCtxGlobals, Request] = (
        g._get_current_object(),
        request._get_current_object(),  # type: ignore[attr-defined]
    )
    return found


def deps() -> Deps:
    return services().deps


def game_uuid(game_id: str) -> UUID:
    """Game ids are UUIDs; anything else names no game (404, never a 5xx)."""
    try:
        return UUID(game_id)
    except ValueError:
        raise GameNotFoundError(f"no game {game_id[:64]!r}") from None


def bearer_token(header: str | None) -> str | None:
    """The token of an Authorization header (None: no header)."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return ""  # present but unusable: an invalid token, not a missing one
    return token.strip()


def principal() -> Principal:
    """Who sends this request; in a request about a game, a player who holds a seat of
    it stands for that seat. Worked out once a request (the hooks and the view ask)."""
    state = g._get_current_object()
    found: Principal | None = vars(state).get("principal")
    if found is None:
        req = request._get_current_object()  # type: ignore[attr-defined]
        identity = deps().identity
        found = identity.identify(bearer_token(req.environ.get("HTTP_AUTHORIZATION")))
        game = (req.view_args or {}).get("game_id")
        if isinstance(found, PlayerHolder) and isinstance(game, str):
            with contextlib.suppress(ValueError):  # names no game: the view answers 404
                found = identity.in_game(found, UUID(game))
        state.principal = found
    return found


def check_body_size() -> None:
    """Read the body once: refuse one over the limit, chunked ones too (Werkzeug only
    truncates those), and one that cannot be read (a broken chunked encoding)."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    try:
        size = len(request.get_data(cache=True))
    except HTTPException:
        raise
    except Exception:  # the server's reader failed on the client's bytes: not our fault
        raise RequestProblemError(
            400, "malformed_body", "the request body could not be read"
        ) from None
    if size > MAX_BODY_BYTES:
        raise RequestEntityTooLarge()  # rendered like Werkzeug's own 413, in errors.py


def _request_fingerprint() -> str:
    """The fingerprint idempotency records held before they held outcomes (migration
    0002): method, path and canonical JSON body. Kept only to match those records."""
    body = request.get_data(cache=True)
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode()
    except (ValueError, RecursionError):
        canonical = body
    return hashlib.sha256(f"{request.method} {request.path}\n".encode() + canonical).hexdigest()


ANONYMOUS_KEY_MIN = 32
"""Characters an anonymous caller's Idempotency-Key needs: room for 128 random bits."""


def command_context(requires: str | None = None, *, answers_a_secret: bool = False) -> Context:
    """Who sends this command, its request id, Idempotency-Key and If-Match.

    ``requires`` names the token a command cannot do without ("a seat token"): a request
    without any is refused for that (401) before its headers are looked at.
    ``answers_a_secret``: the command's response holds a token (a join, a new player), so
    a retry under its key hands that token out again: without a token, the key must be
    too long to guess (ANONYMOUS_KEY_MIN).
    """
    who = principal()
    if requires is not None and isinstance(who, Anonymous):
        raise UnauthenticatedError(f"{requires} is required", code="missing_token")
    key = request.headers.get("Idempotency-Key")
    if key is not None and not _VISIBLE_ASCII.match(key):
        raise RequestProblemError(
            400, "invalid_idempotency_key", "Idempotency-Key must be 1-255 visible ASCII characters"
        )
    weak = key is not None and len(key) < ANONYMOUS_KEY_MIN
    if weak and answers_a_secret and isinstance(who, Anonymous):
        # Without a token, the key alone (and the address, which a NAT shares) keeps the
        # first response, a seat token among them, from whoever sends the key again.
        raise RequestProblemError(
            400,
            "weak_idempotency_key",
            f"without a token, an Idempotency-Key needs at least {ANONYMOUS_KEY_MIN} "
            "characters: use a random UUID",
        )
    return Context(
        principal=who,
        client=request.remote_addr or "",
        request_id=g.get("request_id"),
        client_request_id=g.get("client_request_id"),
        idempotency_key=key,
        expected=if_match(),
        request_fingerprint=_request_fingerprint() if key is not None else None,
    )


def request_id() -> str:
    """The request's id: made here, never the client's (which an audit record could not
    trust); the response's ``X-Request-Id``."""
    return uuid.uuid4().hex


def client_request_id() -> str | None:
    """The client's own ``X-Request-ID``, when it is one (kept beside the server's)."""
    given = request.headers.get("X-Request-Id", "")
    return given if _REQUEST_ID.match(given) else None
