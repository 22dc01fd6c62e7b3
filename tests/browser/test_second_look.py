"""What a new player tripped on (issue 48), in Chromium against a real `yokai serve`."""

from __future__ import annotations

import uuid
from typing import Any

from tests.browser.conftest import Served


def test_an_unknown_game_says_so_once(browser: Any, served: Served) -> None:
    """Its 404's title, without the same sentence again as its detail (item 9)."""
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{served.base}/#/game/{uuid.uuid4()}")
        problem = page.get_by_role("alert")
        expect(problem.locator(".title")).to_have_text("There is no such game")
        expect(problem).to_have_attribute("data-code", "game_not_found")
        expect(problem.locator(".detail")).to_have_count(0)
        assert page.get_by_text("There is no such game").count() == 1
    finally:
        context.close()
