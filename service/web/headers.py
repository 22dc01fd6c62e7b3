"""The headers every answer gets: how caches may keep it, and what a browser may do with
it."""

from __future__ import annotations

from flask import Response, request

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


def cache_and_security_headers(response: Response) -> None:
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
