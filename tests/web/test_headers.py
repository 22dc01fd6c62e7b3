"""The headers every answer gets (service/web/headers.py), made once: appended as they are
to an answer that sets none of them, the same headers in the same order as setting each
the way Werkzeug does; an answer's own Cache-Control and Vary stay.
tests/e2e/test_cache_headers.py asks the app for them."""

from __future__ import annotations

import pytest
from flask import Response

from service.web import headers
from service.web.ratelimit import Verdict

VERDICT = Verdict(True, 600, 597, 1_000_059.2)


def answer() -> Response:
    return Response(b"{}", status=200, mimetype="application/json", headers={"ETag": '"v3"'})


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("verdict", [VERDICT, None])
def test_appended_at_once_they_are_what_werkzeug_would_set(
    shared: bool, verdict: Verdict | None
) -> None:
    fast, each = answer(), answer()
    headers.add(fast, "0123abcd", shared, verdict)
    headers._set_each(each, "0123abcd", shared, verdict)
    assert list(fast.headers) == list(each.headers)
    assert fast.headers["Cache-Control"] == ("no-cache" if shared else "private, no-store")
    assert fast.headers["Vary"] == "Authorization"
    if verdict is not None:
        assert [fast.headers[f"X-RateLimit-{n}"] for n in ("Limit", "Remaining", "Reset")] == [
            "600",
            "597",
            "1000060",
        ]


def test_an_answers_own_cache_control_and_vary_stay() -> None:
    stream = answer()
    stream.headers["Cache-Control"] = "no-cache, no-transform"
    stream.headers["Vary"] = "Accept"
    headers.add(stream, "0123abcd", False, None)
    assert stream.headers["Cache-Control"] == "no-cache, no-transform"
    assert stream.headers["Vary"] == "Accept, Authorization"
    assert stream.headers["X-Request-Id"] == "0123abcd"
    assert stream.headers["Referrer-Policy"] == "no-referrer"


def test_only_public_reads_may_be_kept_by_a_shared_cache() -> None:
    assert headers.shareable("games.get_game", "GET")
    assert headers.shareable("ops.healthz", "HEAD")
    assert not headers.shareable("games.get_game", "POST")
    assert not headers.shareable("games.get_view", "GET")
    assert not headers.shareable(None, "GET")
