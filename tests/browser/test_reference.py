"""The API reference page (/reference, issue 48): the vendored RapiDoc renders the
service's own OpenAPI document in Chromium, under the page's Content-Security-Policy,
reached from the client's navigation, with nothing fetched from elsewhere; axe-core
clean, as every page is."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.browser.conftest import Served, assert_accessible


def test_the_reference_renders_the_contract_from_this_origin_only(
    browser: Any, served: Served, artifacts: Path
) -> None:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    asked: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda request: asked.append(request.url))
    try:
        page.goto(served.base + "/")
        link = page.locator("#nav-api")
        expect(link).to_have_text("API")
        link.click()
        expect(page).to_have_url(served.base + "/reference")
        # RapiDoc renders into its shadow root; Playwright's locators pierce it.
        expect(page.get_by_text("/v1/games/{game_id}/play").first).to_be_visible(timeout=20_000)
        expect(page.get_by_text("Yokai Septet").first).to_be_visible()
        page.screenshot(path=str(artifacts / "reference.png"))
        # The import's media type <select>, named by ui/js/reference.js once rendered.
        media = page.locator("api-request[path='/v1/games/import'] select").first
        expect(media).to_have_attribute("aria-label", "Media type", timeout=10_000)
        assert_accessible(page, "/reference")
        assert errors == []  # no script error, nothing refused by the page's CSP
        origin = urlsplit(served.base).netloc
        elsewhere = [u for u in asked if urlsplit(u).scheme in ("http", "https")]
        assert [u for u in elsewhere if urlsplit(u).netloc != origin] == []
    finally:
        context.close()
