"""Issue 29 item 5: finding a game in the web client, in headless Chromium against a real
`yokai serve` (its embedded worker plays the bots).

A finished game is played again with "Rematch", which the other player joins from the
finished game's page. Every wait is Playwright's (expect, wait_for) with a deadline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import Served

pytestmark = pytest.mark.browser

WAIT = 30_000  # ms: the worker pairs within 2 s of a full set; bots move within a second
GAME_URL = re.compile(r"#/game/([0-9a-f-]{36})$")


def _expect() -> Any:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    return expect


def _console_error(errors: list[str], message: Any) -> None:
    """A script error, a CSP violation... Not a 403: a player opening a game they hold no
    seat in (or one they are only invited to) is refused its seat's view first."""
    if message.type == "error" and "status of 403" not in message.text:
        errors.append(message.text)


class Pages:
    """Browser contexts of one test (each its own localStorage: its own player), closed
    at the end."""

    def __init__(self, browser: Any, served: Served) -> None:
        self.browser = browser
        self.served = served
        self.contexts: list[Any] = []

    def open(self) -> Any:
        context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        self.contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: _console_error(errors, m))
        page.errors = errors
        page.goto(self.served.base + "/")
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def pages(browser: Any, served: Served) -> Iterator[Pages]:
    opened = Pages(browser, served)
    try:
        yield opened
    finally:
        opened.close()


def _become_player(page: Any, name: str) -> dict[str, Any]:
    expect = _expect()
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#me-name")).to_have_text(f"Playing as {name}")
    stored: dict[str, Any] = json.loads(page.evaluate("localStorage.getItem('yokai.player')"))
    return stored


def _new_player(served: Served, name: str) -> dict[str, Any]:
    made: dict[str, Any] = served.call("POST", "/v1/players", {"name": name})
    return made


def _game_id(page: Any, leaving: str | None = None) -> str:
    """The game whose table the page shows (once it has left game ``leaving``)."""
    expect = _expect()
    if leaving is not None:
        expect(page).not_to_have_url(re.compile(f"{leaving}$"), timeout=WAIT)
    expect(page).to_have_url(GAME_URL, timeout=WAIT)
    found = GAME_URL.search(page.url)
    assert found is not None
    return found.group(1)


def _seated(page: Any, seat: int, action: str | None = None) -> None:
    expect = _expect()
    game = page.locator(".game")
    expect(game).to_have_attribute("data-seat", str(seat), timeout=WAIT)
    if action is not None:
        expect(game).to_have_attribute("data-action", action, timeout=WAIT)


# --- rematch ---------------------------------------------------------------------------------


def test_a_finished_game_is_played_again_from_the_browser(pages: Pages, served: Served) -> None:
    expect = _expect()
    first, second = pages.open(), pages.open()
    mio = _become_player(first, "Mio")
    nao = _become_player(second, "Nao")
    oto = _new_player(served, "Oto")
    game_id = served.call("POST", "/v1/games", {"players": 3})["id"]
    for seat, who in enumerate((mio, nao, oto)):
        served.call("POST", f"/v1/games/{game_id}/seats/{seat}", {}, token=who["token"])
    first.goto(f"{served.base}/#/game/{game_id}")
    second.goto(f"{served.base}/#/game/{game_id}")
    _seated(first, 0, "pass")
    _seated(second, 1, "pass")
    # Oto resigns: the game is over at once.
    served.call("POST", f"/v1/games/{game_id}/resign", token=oto["token"])
    for page in (first, second):
        expect(page.locator("#final")).to_be_visible(timeout=WAIT)

    first.get_by_role("button", name="Rematch", exact=True).click()
    rematch = _game_id(first, leaving=game_id)
    # Mio asked with her player token: seated at once, one seat to the left.
    _seated(first, 1)
    assert served.call("GET", f"/v1/games/{game_id}")["rematch"] == rematch

    # Nao's finished page learns of it: one click to the new table, one to take the seat
    # kept for her.
    second.get_by_role("button", name="Join the rematch").click()
    assert _game_id(second, leaving=game_id) == rematch
    expect(second.locator("#invitation")).to_contain_text("seat 3")
    second.get_by_role("button", name="Accept").click()
    _seated(second, 2)
    # Oto accepts over HTTP: the new game starts, both browsers see their hands.
    served.call("POST", f"/v1/games/{rematch}/seats/0", {}, token=oto["token"])
    _seated(first, 1, "pass")
    _seated(second, 2, "pass")
    # Back on the finished game, the rematch is a link now, not a new request.
    first.goto(f"{served.base}/#/game/{game_id}")
    expect(first.get_by_role("button", name="Join the rematch")).to_have_attribute(
        "href", f"#/game/{rematch}", timeout=WAIT
    )
    expect(first.get_by_role("button", name="Rematch", exact=True)).to_have_count(0)
    assert first.errors == [] and second.errors == []
