"""The Flask application factory."""

from __future__ import annotations

import functools
import ipaddress
import re
import time
from collections.abc import Callable

from flask import Flask, Request, Response, request
from flask.ctx import _AppCtxGlobals
from werkzeug.middleware.proxy_fix import ProxyFix

from service import API_VERSION, logs, metrics
from service.application.identity.principals import (
    Anonymous,
    BadToken,
    Operator,
    PlayerHolder,
    SeatHolder,
)
from service.application.privacy import reveal
from service.application.privacy.ports import KeyVault
from service.bootstrap import Container, build, reapply_erasures
from service.settings import MAX_BODY_BYTES, Settings
from service.web import client, errors, headers
from service.web.api import Api
from service.web.chat import routes as chat
from service.web.games import routes as games
from service.web.games.feed_schemas import document_event_types
from service.web.live import routes as live
from service.web.live.holding import OpenStreams
from service.web.lobby import routes as lobby
from service.web.moderation import routes as moderation
from service.web.notify import routes as notify
from service.web.ops import routes as ops
from service.web.players import routes as players
from service.web.problems import routes as problems
from service.web.ratelimit import RateLimiter
from service.web.ratings import routes as ratings
from service.web.records import routes as records
from service.web.request import (
    Services,
    check_body_size,
    client_request_id,
    current,
    principal,
    request_id,
)
from service.web.reviews import routes as reviews
from service.web.seeks import routes as seeks
from service.web.sessions import routes as sessions
from service.web.sessions.schemas import EXACTLY_ONE_WAY
from service.web.social import routes as social
from service.web.webhooks import routes as webhooks

API_TITLE = "Yokai Septet server"
OPENAPI = "/v1/openapi.json"


_MINTING = frozenset(
    {"games.create_game", "games.join_seat", "players.create_player", "sessions.sign_in"}
)


def _rate_key() -> str:
    """Seats and operators are limited by who they are; anyone else by address (so
    made-up tokens buy no extra requests)."""
    _, req = current()
    if req.environ.get("HTTP_AUTHORIZATION"):
        who = principal()
        if isinstance(who, SeatHolder | PlayerHolder | Operator):
            return who.scope
    return "ip:" + (req.remote_addr or "")


def create_app(settings: Settings | None = None, container: Container | None = None) -> Flask:
    settings = settings or Settings.from_env()
    logs.configure(settings.log_level, settings.log_format)
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
    reapply_erasures(container)
    app.extensions["yokai"] = Services(
        deps=container.deps,
        health=container.health,
        stats=container.stats,
        web_clients=settings.oidc_web_clients,
        bus_reachable=container.bus.reachable if container.bus is not None else None,
    )
    app.extensions["yokai_metrics_allow"] = [
        ipaddress.ip_network(n.strip(), strict=False)
        for n in settings.metrics_allow.split(",")
        if n.strip()
    ]
    app.extensions["yokai_streams"] = OpenStreams(
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
    api.register_blueprint(notify.blp)
    api.register_blueprint(records.blp)
    api.register_blueprint(reviews.blp)
    api.register_blueprint(chat.blp)
    api.register_blueprint(sessions.blp)
    api.register_blueprint(lobby.blp)
    api.register_blueprint(seeks.blp)
    api.register_blueprint(ratings.blp)
    api.register_blueprint(moderation.blp)
    api.register_blueprint(social.blp)
    api.register_blueprint(problems.blp)
    api.spec.components.schemas["SignIn"].update(EXACTLY_ONE_WAY)
    document_event_types(api.spec)
    app.register_blueprint(client.blp)  # the web client: not API, not in the contract
    errors.register(app)

    limiter = None
    if settings.rate_limit:
        limiter = RateLimiter(
            settings.rate_limit, settings.rate_limit_storage, workers=settings.workers
        )

    # Stricter limits of their own, on whether or not the general limit is on: sign-ins
    # per address (a link code is 50 bits: guessing one is slow), link codes per player.
    strict: dict[str, tuple[RateLimiter, Callable[[], str]]] = {}
    if settings.sign_in_limit:
        signing = RateLimiter(
            settings.sign_in_limit, settings.rate_limit_storage, workers=settings.workers
        )
        strict["sessions.sign_in"] = (signing, lambda: "ip:" + (request.remote_addr or ""))
    if settings.link_code_limit:
        coding = RateLimiter(
            settings.link_code_limit, settings.rate_limit_storage, workers=settings.workers
        )
        strict["players.create_link_code"] = (coding, _rate_key)

    # Never limited: the probes stay reachable for orchestrators, the contract and the
    # web client's files for anyone; a path that names no endpoint costs nothing to
    # answer (404).
    unlimited = {
        rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.rule == OPENAPI
        or rule.endpoint.rpartition(".")[0] in (ops.blp.name, client.blp.name)
    }

    pool_gauges = metrics.watch_pool(container.stats.pool)

    @app.before_request
    def _start() -> None:
        state, req = current()
        state.request_id = request_id()  # first: even a 429 has a request id
        state.client_request_id = client_request_id()
        state.started = time.perf_counter()
        check_body_size()
        endpoint = req.endpoint
        if endpoint in strict:
            special, key_of = strict[endpoint]
            found = special.hit(f"{key_of()}|{endpoint}")
            if found is not None and not found.allowed:
                raise errors.RateLimitedError(found.retry_after())
        if limiter is None or endpoint is None or endpoint in unlimited:
            return
        # Each endpoint has its own count, as flask-limiter's default limits had.
        key = _rate_key()
        verdict = state.rate = limiter.hit(f"{key}|{endpoint}")
        if verdict is not None and not verdict.allowed:  # None: not counted (fails open)
            raise errors.RateLimitedError(verdict.retry_after())
        if endpoint in _MINTING and not key.startswith("ip:"):
            # What makes tokens also counts against the address: tokens made from one
            # address cannot buy it more games, seats or players.
            by_address = limiter.hit(f"ip:{req.remote_addr or ''}|{endpoint}")
            if by_address is not None and not by_address.allowed:
                raise errors.RateLimitedError(by_address.retry_after())

    @app.after_request
    def _finish(response: Response) -> Response:
        state, req = current()
        rule = req.url_rule
        endpoint = rule.endpoint if rule is not None else None
        shared = headers.shareable(endpoint, req.method)
        headers.add(
            response, getattr(state, "request_id", ""), shared, getattr(state, "rate", None)
        )
        _reveal(response, container.deps.vault)
        route = route_label(rule.rule) if rule is not None else None
        started = getattr(state, "started", None)
        took = None if started is None else time.perf_counter() - started
        problem = getattr(state, "problem_code", None)
        _log_request(response, state, req, route, took, problem)
        metrics.request_answered(req.method, route, response.status_code, took, problem)
        pool_gauges()
        return response

    return app


def _reveal(response: Response, vault: KeyVault | None) -> None:
    """Open the personal data the body holds sealed (docs/privacy.md), with the keys
    that exist now: the one place every non-streamed answer passes (streams open theirs
    message by message)."""
    if vault is None or response.is_streamed or response.direct_passthrough:
        return
    body = response.get_data()
    if reveal.MARK not in body:
        return
    if response.mimetype == "text/plain":
        response.set_data(reveal.text_bytes(vault, body))
    else:
        response.set_data(reveal.json_bytes(vault, body))


def _actor(state: _AppCtxGlobals, req: Request) -> str:
    """Who sent the request, as far as it was worked out (never resolved here: that
    could cost a query): a principal's kind, else whether a token was sent."""
    who = getattr(state, "principal", None)
    if who is not None:
        return _ACTORS.get(type(who), "other")
    return "token" if req.environ.get("HTTP_AUTHORIZATION") else "anonymous"


_ACTORS: dict[type, str] = {
    Anonymous: "anonymous",
    SeatHolder: "seat",
    PlayerHolder: "player",
    Operator: "operator",
    BadToken: "bad_token",
}


def _log_request(
    response: Response,
    state: _AppCtxGlobals,
    req: Request,
    route: str | None,
    took: float | None,
    problem: str | None,
) -> None:
    """One line per request (service/logs.py): nothing of its body, query or token."""
    game = (req.view_args or {}).get("game_id")
    logs.request(
        {
            "request_id": getattr(state, "request_id", None),
            "client_request_id": getattr(state, "client_request_id", None),
            "method": req.method,
            "route": route,
            "status": response.status_code,
            "duration_ms": None if took is None else round(took * 1000, 2),
            "game_id": game if isinstance(game, str) and _UUID.match(game) else None,
            "actor": _actor(state, req),
            "problem": problem,
        }
    )


_UUID = re.compile(r"^[0-9a-fA-F-]{36}$")
_ID_CONVERTER = re.compile(r"<id:([^<>]+)>")


@functools.cache  # as many as the app has routes
def route_label(rule: str) -> str:
    """A route as logs and metrics name it: `/v1/games/<game_id>/play`, as before ids
    had a converter of their own (service/web/api.py: IdConverter)."""
    return _ID_CONVERTER.sub(r"<\1>", rule)


def begin_shutdown(app: Flask) -> None:
    """The process is stopping (SIGTERM): open streams end now, so their clients
    reconnect (with Last-Event-ID) to a process that stays; waiting long-polls answer."""
    services: Services = app.extensions["yokai"]
    services.deps.changes.close()


def openapi_yaml() -> str:
    """The OpenAPI document as committed in openapi/openapi.yaml (no database needed)."""
    # The engine is created lazily and never connects here; no game is made, so the
    # fairness and chain keys only stand in (no key file is written).
    settings = Settings(
        database_url="postgresql://openapi@localhost/openapi",
        rate_limit="",
        fairness_key="00" * 32,
        chain_key="00" * 32,
    )
    app = create_app(settings)
    with app.app_context():
        api: Api = app.extensions["yokai_api"]
        text: str = api.spec.to_yaml()
    return text
