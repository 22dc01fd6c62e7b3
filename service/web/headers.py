"""The headers every answer gets: its request id, how caches may keep it, what a browser
may do with it, and where the request stands against its rate limit.

Nothing a token opens is kept by a shared cache or a browser's history (a seat's hand, a
feed, the inbox, a stream, the audit): ``private, no-store``. Public views are
``no-cache`` (kept, but revalidated with their ETag). No response is to be sniffed as
another type or framed. Every answer varies with the Authorization header.

They are the same for almost every answer, so they are made once: an answer that sets
none of them itself (nearly all) gets them appended as they are, in one step; one that
does (a stream's own Cache-Control) gets each set as Werkzeug sets it, keeping its own.
The headers on the wire are the same either way, in the same order.
"""

from __future__ import annotations

import math

from flask import Response

from service.web.ratelimit import Verdict

# What anyone may see and a cache may keep, if it asks again first (ETag): the public
# view, the contract, the probes, the problem types' pages. Everything else depends on a
# token or changes state.
_SHAREABLE = frozenset(
    {
        "games.get_game",
        "ops.healthz",
        "ops.readyz",
        "api-docs.openapi_json",
        "problems.problem_page",
    }
)

_SECURITY = (
    ("X-Content-Type-Options", "nosniff"),
    ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"),
    ("Referrer-Policy", "no-referrer"),
)
_SHARED = (("Vary", "Authorization"), ("Cache-Control", "no-cache"), *_SECURITY)
_PRIVATE = (("Vary", "Authorization"), ("Cache-Control", "private, no-store"), *_SECURITY)
_RATE = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
_SET_HERE = frozenset(
    name.lower() for name, _ in (("X-Request-Id", ""), *_PRIVATE, *((n, "") for n in _RATE))
)


def shareable(endpoint: str | None, method: str) -> bool:
    """Whether a shared cache may keep the answer (revalidating it first)."""
    return endpoint in _SHAREABLE and method in ("GET", "HEAD")


def add(response: Response, request_id: str, shared: bool, verdict: Verdict | None) -> None:
    """Give ``response`` its request id, cache, security and rate-limit headers (the
    module's docstring says which). ``shared``: see :func:`shareable`; ``verdict``: the
    request's count against its rate limit, if it was counted."""
    listed = response.headers._list  # Werkzeug's own list of the headers, in order
    for name, _ in listed:
        if name.lower() in _SET_HERE:
            _set_each(response, request_id, shared, verdict)
            return
    listed.append(("X-Request-Id", request_id))
    listed.extend(_SHARED if shared else _PRIVATE)
    if verdict is not None:
        listed.extend(zip(_RATE, _rate(verdict), strict=True))


def _rate(verdict: Verdict) -> tuple[str, str, str]:
    return str(verdict.limit), str(verdict.remaining), str(math.ceil(verdict.reset_at))


def _set_each(response: Response, request_id: str, shared: bool, verdict: Verdict | None) -> None:
    """As :func:`add`, for an answer that set some of them itself: what it set stays
    (its Cache-Control, its own Vary values beside Authorization)."""
    headers = response.headers
    headers["X-Request-Id"] = request_id
    response.vary.add("Authorization")
    if "Cache-Control" not in headers:
        headers["Cache-Control"] = "no-cache" if shared else "private, no-store"
    for name, value in _SECURITY:
        headers.setdefault(name, value)
    if verdict is not None:
        for name, value in zip(_RATE, _rate(verdict), strict=True):
            headers[name] = value
