"""The Flask application factory."""

from __future__ import annotations

import logging
import math

from flask import Flask, Response, g, request
from werkzeug.middleware.proxy_fix import ProxyFix

from service.application.identity import Operator, PlayerHolder, SeatHolder
from service.bootstrap import Container, build
from service.settings import MAX_BODY_BYTES, Settings
from service.web import errors, games, live, ops, players, records, webhooks
from service.web.api import Api
from service.web.http import Services, check_body_size, principal, request_id
from service.web.ratelimit import RateLimiter

API_TITLE = "Yokai Septet server"
OPENAPI = "/v1/openapi.json"
API_VERSION = "1.0.0"


def _rate_key() -> str:
    """Seats and operators are limited by who they are; anyone else by address (so
    made-up tokens buy no extra requests)."""
    if request.headers.get("Authorization"):
        who = principal()
        if isinstance(who, SeatHolder | PlayerHolder | Operator):
            return who.scope
    return "ip:" + (request.remote_addr or "")


def create_app(settings: Settings | None = None, container: Container | None = None) -> Flask:
    settings = settings or Settings.from_env()
    logging.basicConfig(level=settings.log_level)
    app = Flask(__name__)
    app.config.update(
        # One byte over the limit is read, so check_body_size can tell "too large".
        MAX_CONTENT_LENGTH=MAX_BODY_BYTES + 1,
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/v1",
        OPENAPI_JSON_PATH="openapi.json",
    )
    if settings.trusted_proxies:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=settings.trusted_proxies, x_proto=settings.trusted_proxies
        )
    container = container or build(settings)
    app.extensions["yokai"] = Services(deps=container.deps, health=container.health)
    app.extensions["yokai_streams"] = live.OpenStreams(
        settings.streams_per_token, settings.streams_per_address, settings.keepalive_seconds
    )

    api = Api(
        app,
        spec_kwargs={
            "info": {
                "description": "REST game-state API for Yokai Septet, a trick-taking card game "
                "for 3 or 4 players. Errors are RFC 9457 problem details with a stable `code`."
            }
        },
    )
    api.spec.components.security_scheme(
        "bearer", {"type": "http", "scheme": "bearer", "description": "seat or operator token"}
    )
    app.extensions["yokai_api"] = api
    api.register_blueprint(games.blp)
    api.register_blueprint(players.blp)
    api.register_blueprint(live.blp)
    api.register_blueprint(ops.blp)
    api.register_blueprint(webhooks.blp)
    api.register_blueprint(records.blp)
    errors.register(app)

    limiter = RateLimiter(settings.rate_limit) if settings.rate_limit else None

    @app.before_request
    def _start() -> None:
        g.request_id = request_id()  # first: even a 429 has a request id
        check_body_size()
        # The probes stay reachable for orchestrators, and the contract for anyone; a path
        # that names no endpoint costs nothing to answer (404).
        if (
            limiter is None
            or request.endpoint is None
            or request.blueprint == ops.blp.name
            or request.path == OPENAPI
        ):
            return
        # Each endpoint has its own count, as flask-limiter's default limits had.
        verdict = g.rate = limiter.hit(f"{_rate_key()}|{request.endpoint}")
        if not verdict.allowed:
            raise errors.RateLimitedError(verdict.retry_after())

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers["X-Request-Id"] = g.get("request_id") or ""
        response.vary.add("Authorization")
        _cache_and_security_headers(response)
        verdict = g.get("rate")
        if verdict is not None:
            response.headers["X-RateLimit-Limit"] = str(verdict.limit)
            response.headers["X-RateLimit-Remaining"] = str(verdict.remaining)
            response.headers["X-RateLimit-Reset"] = str(math.ceil(verdict.reset_at))
        return response

    return app


# What anyone may see and a cache may keep, if it asks again first (ETag): the public
# view, the contract, the probes. Everything else depends on a token or changes state.
_SHAREABLE = frozenset({"games.get_game", "ops.healthz", "ops.readyz", "api-docs.openapi_json"})


def _cache_and_security_headers(response: Response) -> None:
    """Nothing a token opens is kept by a shared cache or a browser's history (a seat's
    hand, a feed, the inbox, a stream, the audit): ``private, no-store``. Public views
    are ``no-cache`` (kept, but revalidated with their ETag). No response is to be
    sniffed as another type or framed."""
    headers = response.headers
    if "Cache-Control" not in headers:
        shareable = request.endpoint in _SHAREABLE and request.method in ("GET", "HEAD")
        headers["Cache-Control"] = "no-cache" if shareable else "private, no-store"
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
    headers.setdefault("Referrer-Policy", "no-referrer")


def begin_shutdown(app: Flask) -> None:
    """The process is stopping (SIGTERM): open streams end now, so their clients
    reconnect (with Last-Event-ID) to a process that stays; waiting long-polls answer."""
    services: Services = app.extensions["yokai"]
    services.deps.changes.close()


def openapi_yaml() -> str:
    """The OpenAPI document as committed in openapi/openapi.yaml (no database needed)."""
    # The engine is created lazily and never connects here; no game is made, so the
    # fairness key only stands in (no key file is written).
    settings = Settings(
        database_url="postgresql://openapi@localhost/openapi",
        rate_limit="",
        fairness_key="00" * 32,
    )
    app = create_app(settings)
    with app.app_context():
        api: Api = app.extensions["yokai_api"]
        text: str = api.spec.to_yaml()
    return text
