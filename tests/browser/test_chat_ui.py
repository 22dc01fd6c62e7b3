"""The chat panel at the table (docs/web-client.md "Table talk"), in Chromium against a
real `yokai serve`: two seated players talk (a preset, a text); a spectator's messages
come on the spectators' channel, which the players do not see, and a spectator past the
rate limit is told so in the page's language; a muted player's messages are hidden in
that browser until shown again; once the game is over the players read the spectators'
messages and what is said after the end; axe-core clean; at a phone's width nothing is
past the screen's edge and the panel is below the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser import test_ratings_ui
from tests.browser.conftest import Served, assert_accessible
from tests.browser.test_ratings_ui import Pages, _player

pages = test_ratings_ui.pages  # its fixture: browser contexts holding players, closed after

WAIT = 30_000  # ms
PHONE = {"width": 390, "height": 844}


def _expect() -> Any:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    return expect


def _table(pages: Pages, game_id: str, who: dict[str, Any] | None) -> Any:
    """The game's page in a browser holding ``who`` (none: a visitor)."""
    page = pages.open(who)
    page.goto(f"{pages.served.base}/#/game/{game_id}")
    return page


def _message(page: Any, words: str) -> Any:
    return page.locator("#chat .chat-message").filter(has_text=words)


def test_players_and_a_spectator_talk_through_the_panel(
    pages: Pages, served: Served, artifacts: Path
) -> None:
    expect = _expect()
    aiko, bea, carol = (_player(served, n) for n in ("Aiko", "Bea", "Carol"))
    bots = [{"seat": 2, "level": "basic"}, {"seat": 3, "level": "basic"}]
    game = served.call("POST", "/v1/games", {"players": 4, "bots": bots, "visibility": "public"})
    for seat, who in enumerate((aiko, bea)):
        served.call("POST", f"/v1/games/{game['id']}/seats/{seat}", {}, token=who["token"])

    # A visitor without a player: no chat, and how to get one.
    visitor = _table(pages, game["id"], None)
    expect(visitor.locator("#chat .chat-sign-in")).to_be_visible(timeout=WAIT)
    expect(visitor.locator("#chat-text")).to_have_count(0)
    expect(visitor.locator("#chat .chat-log")).to_be_hidden()

    # Two seated players: a preset and a text, each seen by the other.
    a = _table(pages, game["id"], aiko)
    b = _table(pages, game["id"], bea)
    expect(a.locator("#chat-title")).to_have_text("Table talk", timeout=WAIT)
    expect(b.locator('#chat [data-preset="good_luck"]')).to_be_visible(timeout=WAIT)
    a.locator('#chat [data-preset="good_luck"]').click()
    expect(_message(b, "Good luck!")).to_have_count(1, timeout=WAIT)
    b.get_by_label("Your message").fill("  Nice to meet you  ")
    b.get_by_role("button", name="Send").click()
    expect(b.locator("#chat-text")).to_have_value("", timeout=WAIT)  # taken: the field empties
    said = _message(a, "Nice to meet you")
    expect(said).to_have_count(1, timeout=WAIT)
    expect(said.locator("button.author")).to_have_text("Bea")  # another player: a menu
    expect(_message(a, "Good luck!").locator("button.author")).to_have_count(0)  # my own: none

    # A player without a seat: the spectators' channel, which the table does not see.
    c = _table(pages, game["id"], carol)
    c.set_viewport_size(PHONE)
    expect(c.locator("#chat-title")).to_have_text("Spectators' chat", timeout=WAIT)
    expect(c.locator("#chat .chat-none")).to_be_visible()
    # Carol, new to the chat, says five things at once (over HTTP): each reaches her page
    # marked as a spectator's; a sixth, written in the panel, is refused, and the
    # refusal is said in the page's language, the text kept in the field.
    for n in range(5):
        served.call(
            "POST", f"/v1/games/{game['id']}/chat", {"text": f"Go Aiko {n}"}, carol["token"]
        )
    mine = _message(c, "Go Aiko 4")
    expect(mine).to_have_count(1, timeout=WAIT)
    expect(mine.locator(".badge.spectator")).to_have_text("spectator")
    expect(_message(c, "Nice to meet you")).to_have_count(0)
    c.get_by_label("Your message").fill("Go Aiko!")
    c.get_by_role("button", name="Send").click()
    refusal = c.locator("#chat .chat-problem")
    expect(refusal).to_have_attribute("data-code", "chat_too_fast", timeout=WAIT)
    expect(refusal).to_have_text("Too many messages at once: wait a few seconds.")
    expect(c.locator("#chat-text")).to_have_value("Go Aiko!")
    # Said after the spectators' messages, Bea's next one reaches Aiko; theirs never do.
    b.get_by_label("Your message").fill("Your lead")
    b.get_by_role("button", name="Send").click()
    expect(_message(a, "Your lead")).to_have_count(1, timeout=WAIT)
    expect(_message(a, "Go Aiko")).to_have_count(0)

    # At a phone's width: nothing past the screen's edge, the panel below the table.
    expect(c.locator(".game .board")).to_be_visible()
    assert c.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    table = c.locator(".game").bounding_box()
    panel = c.locator("#chat").bounding_box()
    assert panel["y"] >= table["y"] + table["height"], (table, panel)
    assert panel["x"] + panel["width"] <= PHONE["width"], panel
    c.locator("#chat").screenshot(path=str(artifacts / "chat-phone.png"))

    # Aiko mutes Bea, in this browser only: hidden, kept across a reload, then undone.
    said.locator("button.author").click()
    expect(said.locator("button.author")).to_have_attribute("aria-expanded", "true")
    expect(said.locator("button.report")).to_be_visible()
    assert_accessible(a, "the table with its chat panel and a name's menu open")
    a.screenshot(path=str(artifacts / "chat-table.png"), full_page=True)
    said.locator("button.report").click()
    said.get_by_label("Why report Bea?").fill("Just checking the form")
    said.get_by_role("button", name="Send the report").click()
    expect(said.locator(".menu-result")).to_have_text(
        "Report sent: a moderator will look at it.", timeout=WAIT
    )
    said.locator("button.mute").click()
    expect(_message(a, "Nice to meet you")).to_be_hidden()
    expect(_message(a, "Your lead")).to_be_hidden()
    expect(_message(a, "Good luck!")).to_be_visible()
    expect(_message(b, "Nice to meet you")).to_be_visible()  # Bea's own browser: unchanged
    a.reload()
    expect(a.get_by_role("button", name="Show Bea again")).to_be_visible(timeout=WAIT)
    expect(_message(a, "Good luck!")).to_be_visible()
    expect(_message(a, "Your lead")).to_be_hidden()
    a.get_by_role("button", name="Show Bea again").click()
    expect(_message(a, "Your lead")).to_be_visible()
    assert a.evaluate("localStorage.getItem('yokai.chatMuted')") == "[]"

    # The game over (Aiko resigns), its stream ends: the players now read the spectators'
    # channel too, and what is said after the end comes by reading it every few seconds.
    served.call("POST", f"/v1/games/{game['id']}/resign", {}, token=aiko["token"])
    expect(a.locator("#final")).to_be_visible(timeout=WAIT)
    expect(_message(a, "Go Aiko 4").locator(".badge.spectator")).to_be_visible(timeout=WAIT)
    served.call("POST", f"/v1/games/{game['id']}/chat", {"preset": "good_game"}, bea["token"])
    expect(_message(a, "Good game!")).to_have_count(1, timeout=WAIT)

    # The operators have Aiko's report, naming Bea's message.
    (filed,) = served.operator("/v1/reports?status=open")["reports"]
    assert filed["player"]["name"] == "Bea" and filed["message_id"]
    for page in (visitor, a, b, c):
        # The one refusal asked for: the sixth message in 10 s (429, said in the page).
        assert [e for e in page.errors if "status of 429" not in e] == []


def test_a_rated_four_player_table_offers_presets_only_in_the_pages_language(
    pages: Pages, served: Served
) -> None:
    """Partners must not signal: at a rated four-player table a seated player gets the
    presets (in the page's language, here German) and no text field, and is told why."""
    expect = _expect()
    dora, emil = _player(served, "Dora"), _player(served, "Emil")
    bots = [{"seat": 2, "level": "basic"}, {"seat": 3, "level": "basic"}]
    game = served.call("POST", "/v1/games", {"players": 4, "rated": True, "bots": bots})
    for seat, who in enumerate((dora, emil)):
        served.call("POST", f"/v1/games/{game['id']}/seats/{seat}", {}, token=who["token"])
    page = pages.open(dora)
    page.evaluate("localStorage.setItem('yokai.lang', 'de')")
    page.goto(f"{served.base}/#/game/{game['id']}")
    page.reload()  # the language is chosen as the client starts
    expect(page.locator('#chat [data-preset="good_luck"]')).to_have_text(
        "Viel Glück!", timeout=WAIT
    )
    expect(page.locator("#chat-presets-only")).to_contain_text("Schnellnachrichten")
    expect(page.locator("#chat-text")).to_have_count(0)
    page.locator('#chat [data-preset="good_luck"]').click()
    expect(_message(page, "Viel Glück!")).to_have_count(1, timeout=WAIT)
