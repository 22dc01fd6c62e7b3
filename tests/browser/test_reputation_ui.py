"""Issue 44: reputation and bans in the web client, in headless Chromium against a real
`yokai serve`.

A player the browser holds resigns a rated game (over HTTP): their profile shows the
reputation (65: 75 - 10) and the ban with until when and why; "Play now" is refused with
the ban's until and why; the operators' console shows the ban on the player's page and
lifts it with its button (the audit then has `ban_lifted`), after which the profile says
not banned. Every wait is Playwright's (expect) with a deadline; nothing is timed.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Served
from tests.browser.test_ratings_ui import Pages, _expect, _player, _rated_game, pages
from tests.support.serve import OPERATOR_TOKEN

__all__ = ["pages"]  # the fixture

pytestmark = pytest.mark.browser

WAIT = 30_000  # ms


def test_a_banned_player_sees_why_and_until_when_and_an_operator_lifts_it(
    pages: Pages, served: Served
) -> None:
    expect = _expect()
    mio, ren, aiko = (_player(served, n) for n in ("Mio Rep", "Ren Rep", "Aiko Rep"))
    game_id = _rated_game(served, [mio, ren, aiko])
    served.call("POST", f"/v1/games/{game_id}/resign", {}, token=mio["token"])
    banned = served.call("GET", f"/v1/players/{mio['id']}")
    assert banned["ban"]["reason"] == "resigned"

    page: Any = pages.open(mio)
    page.goto(f"{served.base}/#/players/{mio['id']}")
    expect(page.locator('#reputation [data-reputation="score"] dd')).to_have_text(
        "65", timeout=WAIT
    )
    expect(page.locator('#reputation [data-reputation="abandoned"] dd')).to_have_text("1")
    ban = page.locator("#reputation .ban")
    expect(ban).to_have_attribute("data-reason", "resigned")
    expect(ban).to_have_attribute("data-until", banned["banned_until"])
    expect(ban).to_contain_text("resigned a rated or quick-play game")

    page.goto(f"{served.base}/#/")
    page.get_by_role("button", name="Play now").click()
    refused = page.locator('.problem[data-code="player_banned"]')
    expect(refused).to_be_visible(timeout=WAIT)
    expect(refused.locator(".ban")).to_have_attribute("data-until", banned["banned_until"])
    expect(refused.locator(".ban")).to_contain_text("Banned from quick play and rated games")

    ops: Any = pages.open()
    ops.goto(f"{served.base}/#/ops/players/{mio['id']}")
    ops.get_by_label("Operator token").fill(OPERATOR_TOKEN)
    ops.get_by_role("button", name="Enter").click()
    shown = ops.locator("#ops-player-ban .ban")
    expect(shown).to_have_attribute("data-reason", "resigned", timeout=WAIT)
    ops.get_by_role("button", name="Lift the ban").click()
    expect(ops.locator("#ops-player-ban")).to_have_text("Not banned.", timeout=WAIT)
    expect(ops.locator('#player-audit li[data-action="ban_lifted"]')).to_have_count(1)
    expect(ops.get_by_role("button", name="Lift the ban")).to_be_disabled()
    assert served.call("GET", f"/v1/players/{mio['id']}")["banned_until"] is None

    page.goto(f"{served.base}/#/players/{mio['id']}")
    expect(page.locator("#not-banned")).to_have_text("Not banned.", timeout=WAIT)
    # The one refusal asked for: Play now while banned (403 player_banned, said above).
    assert [e for e in page.errors if "status of 403" not in e] == [] and not ops.errors
