"""Issue 47: the moderation queue in the operators' console, in headless Chromium on a
phone-sized window against a real `yokai serve`.

Two players report a third over HTTP, one naming a chat message of theirs (the chat's
rows are written in SQL as the chat stores them: the chat's endpoints are not this
module's). The console's Reports page shows the open reports oldest first, the reported
message marked among the messages around it; the operator mutes the player for 30
minutes from the first report and warns them from the second; each leaves the queue,
the closed list shows how, and the player's audit has `muted` and `warned`. The page is
no wider than the phone, and axe-core finds nothing serious on the queue or the closed
list. Every wait is Playwright's (expect) with a deadline; nothing is timed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from service.adapters import migrate
from service.adapters.postgres.engine import sqlalchemy_url
from tests.browser.conftest import Served, assert_accessible
from tests.support.postgres import new_database
from tests.support.serve import OPERATOR_TOKEN, serving

pytestmark = pytest.mark.browser

WAIT = 30_000  # ms
PHONE = {"width": 390, "height": 844}


def _expect() -> Any:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    return expect


@pytest.fixture(scope="module")
def database(server_url: str) -> str:
    url = new_database(server_url, "yokai_moderation")
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="module")
def served(
    server_url: str, database: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("moderation-serve")
    with serving(
        server_url, folder / "serve.log", folder, database=database, YOKAI_WORKERS="1"
    ) as base:
        yield Served(base)


def _say(database: str, game_id: str, who: dict[str, Any], said: str, at: datetime) -> int:
    """A chat message as the chat stores it (an unsealed text reads as it is)."""
    engine = create_engine(sqlalchemy_url(database))
    try:
        with engine.begin() as conn:
            return int(
                conn.execute(
                    text(
                        "INSERT INTO chat_messages (game_id, channel, player_id, name, text, "
                        "sender, at) VALUES (:g, 'table', :p, :n, :t, :s, :at) RETURNING id"
                    ),
                    {
                        "g": game_id,
                        "p": who["id"],
                        "n": who["name"],
                        "t": said,
                        "s": f"p{who['id']}",
                        "at": at,
                    },
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_an_operator_works_through_the_queue_on_a_phone(
    browser: Any, served: Served, database: str, artifacts: Path
) -> None:
    expect = _expect()
    mio, bo, kai = (served.call("POST", "/v1/players", {"name": n}) for n in ("Mio", "Bo", "Kai"))
    game_id = served.call("POST", "/v1/games", {"players": 3})["id"]
    start = datetime.now(UTC)
    lines = [
        (mio, "good luck"),
        (bo, "you play like a bot"),
        (mio, "be nice"),
        (bo, "a rude word"),
        (kai, "calm down"),
    ]
    ids = [
        _say(database, game_id, who, said, start + timedelta(seconds=n))
        for n, (who, said) in enumerate(lines)
    ]
    first = served.call(
        "POST",
        "/v1/reports",
        {"player_id": bo["id"], "message_id": ids[3], "reason": "insulted me"},
        token=mio["token"],
    )
    second = served.call(
        "POST",
        "/v1/reports",
        {"player_id": bo["id"], "reason": "rude all game"},
        token=kai["token"],
    )

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{served.base}/#/ops")
        page.get_by_label("Operator token").fill(OPERATOR_TOKEN)
        page.get_by_role("button", name="Enter").click()
        page.get_by_role("link", name="Reports").click()
        cards = page.locator("#reports article.report")
        expect(cards).to_have_count(2, timeout=WAIT)
        one, two = cards.nth(0), cards.nth(1)
        expect(one).to_have_attribute("data-report", first["id"])
        expect(two).to_have_attribute("data-report", second["id"])
        expect(one.locator("h2")).to_have_text("Mio reported Bo")
        expect(one.locator(".report-reason")).to_have_text("insulted me")
        shown = one.locator(".chat-context li")
        expect(shown).to_have_count(5)  # three before, the message, the one after
        expect(shown.locator(".text")).to_have_text([said for _, said in lines])
        expect(one.locator(".chat-context li.reported")).to_have_attribute(
            "data-message", str(ids[3])
        )
        expect(two.locator(".chat-context")).to_have_count(0)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"the page is {wide} px wide on a 390 px screen"
        assert_accessible(page, "the moderation queue")
        page.screenshot(path=str(artifacts / "moderation-queue.png"), full_page=True)

        minutes = one.get_by_label("Minutes of a mute")
        expect(minutes).to_be_disabled()
        one.get_by_label("mute", exact=True).check()
        expect(minutes).to_be_enabled()
        minutes.fill("30")
        one.get_by_label("Note", exact=True).fill("insults in chat")
        one.get_by_role("button", name="Resolve").tap()
        expect(page.locator("#reports-said")).to_have_text("Bo: mute.", timeout=WAIT)
        expect(cards).to_have_count(1)
        left = cards.nth(0)
        expect(left).to_have_attribute("data-report", second["id"])
        left.get_by_label("warn", exact=True).check()
        left.get_by_label("Note", exact=True).fill("first warning")
        left.get_by_role("button", name="Resolve").tap()
        expect(page.locator("#reports .none")).to_have_text("No open report.", timeout=WAIT)

        page.locator("#reports-status").select_option("closed")
        closed = page.locator("#reports article.report")
        expect(closed).to_have_count(2, timeout=WAIT)
        expect(closed.nth(0).locator(".resolution")).to_have_attribute("data-action", "warn")
        expect(closed.nth(1).locator(".resolution")).to_have_attribute("data-action", "mute")
        expect(closed.nth(1).locator(".resolution .reason")).to_have_text("note: insults in chat")
        assert_accessible(page, "the closed reports")
        assert errors == []
    finally:
        context.close()

    audit = served.call("GET", f"/v1/players/{bo['id']}/audit", token=OPERATOR_TOKEN)["entries"]
    assert [e["action"] for e in audit] == ["muted", "warned"]
    muted = served.call("GET", "/v1/reports?status=closed", token=OPERATOR_TOKEN)["reports"][1][
        "resolution"
    ]
    assert (muted["action"], muted["minutes"]) == ("mute", 30)
