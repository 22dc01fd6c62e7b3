"""The Flask application factory."""

from __future__ import annotations

import logging

from flask import Flask, Response, g, request
from flask_limiter import Limiter
from werkzeug.middleware.proxy_fix import ProxyFix

from service.application.identity import Operator, SeatHolder
from service.bootstrap import Container, build
from service.settings import MAX_BODY_BYTES, Settings
from service.web import errors, games, ops
from service.web.api import Api
from service.web.http import Services, check_body_size, principal, request_id

API_TITLE = "Yokai Septet server"
API_VERSION = "1.0.0"


def _rate_key() -> str:
    """Seats and operators are limited by who they are; anyone else by address (so
    made-up tokens buy no extra requests)."""
    if request.headers.get("Authorization"):
        who = principal()
        if isinstance(who, SeatHolder | Operator):
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
    api.register_blueprint(ops.blp)
    errors.register(app)

    # Registered before the rate limiter's, so that even a 429 has a request id.
    @app.before_request
    def _start() -> None:
        g.request_id = request_id()
        check_body_size()

    if settings.rate_limit:
        limiter = Limiter(
            _rate_key,
            app=app,
            default_limits=[settings.rate_limit],
            storage_uri="memory://",
            headers_enabled=True,
        )
        limiter.exempt(ops.blp)
        limiter.request_filter(lambda: request.path == "/v1/openapi.json")

    @app.after_request
    def _finish(response: Response) -> Response:
        response.headers["X-Request-Id"] = g.get("request_id") or ""
        response.vary.add("Authorization")
        return response

    return app


def openapi_yaml() -> str:
    """The OpenAPI document as committed in openapi/openapi.yaml (no database needed)."""
    # The engine is created lazily and never connects here.
    app = create_app(Settings(database_url="postgresql://openapi@localhost/openapi", rate_limit=""))
    with app.app_context():
        api: Api = app.extensions["yokai_api"]
        text: str = api.spec.to_yaml()
    return text
