"""Fixtures of the end-to-end tests (HTTP through the Flask test client)."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from tests.support.postgres import MakeApp


@pytest.fixture
def limited(make_app: MakeApp) -> FlaskClient:
    """A client of the suite's process with a rate limit of 3 requests a minute (a limiter
    of its own, so no other test's requests count)."""
    return make_app(shared=True, rate_limit="3 per minute").client()
