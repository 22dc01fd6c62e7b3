"""Issue 30 item 4: ratings in the web client, in headless Chromium against a real `yokai
serve` (its embedded worker rates each rated game once it has finished).

Three players made over HTTP play a rated three-player game, ended at once by a resign;
the browser holds one of them. Its profile shows the rating (provisional) once the
worker has made it, with a point on the history chart and the game among its finished
games, whose table shows each seat's rating next to the name. A rated public table in
the lobby does too; the new-game form and Play now make rated games and seeks. Three
players with ten rated games each are on the leaderboard, a page at a time, each name
opening the player's profile. Issue 44: the leaderboard shows people, not the random
bot rated beside them. Every wait has a deadline (Playwright's expect and
wait_for_function, tests/support/waiting.py); nothing is timed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Served
from tests.support.serve import OPERATOR_TOKEN
from tests.support.waiting import wait_for

pytestmark = pytest.mark.browser

WAIT = 30_000  # ms: the worker rates a finished game within about a second
LADDER = "standard-3p"
RATING = re.compile(r"^-?\d+\??$")


def _expect() -> Any:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    return expect


def _console_error(errors: list[str], message: Any) -> None:
    """A script error, a CSP violation, a refused request (a player opening a game they
    hold no seat in asks for no seat's view: issue 48)."""
    if message.type == "error":
        errors.append(message.text)


class Pages:
    """Browser contexts of one test, closed at the end."""

    def __init__(self, browser: Any, served: Served) -> None:
        self.browser = browser
        self.served = served
        self.contexts: list[Any] = []

    def open(self, who: dict[str, Any] | None = None) -> Any:
        """A page on the lobby; with ``who`` (a player made over HTTP), the browser
        holds that player, as if it had made them."""
        context = self.browser.new_context(viewport={"width": 1280, "height": 900})
        self.contexts.append(context)
        if who is not None:
            kept = json.dumps({"id": who["id"], "name": who["name"], "token": who["token"]})
            context.add_init_script(
                f"if (!localStorage.getItem('yokai.player')) "
                f"localStorage.setItem('yokai.player', {json.dumps(kept)});"
            )
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


def _player(served: Served, name: str) -> dict[str, Any]:
    made: dict[str, Any] = served.call("POST", "/v1/players", {"name": name})
    return made


def _rated_game(served: Served, players: list[dict[str, Any]], visibility: str = "private") -> str:
    """A rated game, every seat joined by one of ``players`` (in seat order); returns its
    id. Fewer players than seats leave the last seats open."""
    game: dict[str, Any] = served.call(
        "POST", "/v1/games", {"players": 3, "rated": True, "visibility": visibility}
    )
    for seat, who in enumerate(players):
        served.call("POST", f"/v1/games/{game['id']}/seats/{seat}", {}, token=who["token"])
    return str(game["id"])


def _resigned(served: Served, game_id: str, who: dict[str, Any]) -> None:
    """The game ended by ``who``'s resign (their player token acts for their seat); the
    ban it brings is lifted, so that they play rated games again at once."""
    view = served.call("POST", f"/v1/games/{game_id}/resign", {}, token=who["token"])
    assert view["status"] == "finished"
    served.call("POST", f"/v1/players/{who['id']}/unban", {}, token=OPERATOR_TOKEN)


def _wait_until_rated(page: Any, player_id: str, games: int) -> None:
    """Until the worker has rated ``games`` games of the player's in the ladder: asked by
    the page itself, over and over, until Playwright's deadline."""
    page.wait_for_function(
        """async ([id, ladder, games]) => {
             // A refusal (a 429 from the rate limit, say) is a look that found nothing.
             const r = await fetch(`/v1/players/${id}`, {cache: "no-store"});
             if (!r.ok) return false;
             const p = await r.json();
             return (p.ratings?.[ladder]?.games || 0) >= games;
           }""",
        arg=[player_id, LADDER, games],
        polling=250,
        timeout=WAIT,
    )


def test_a_rated_game_shows_on_the_profile_and_at_the_table(
    pages: Pages, served: Served, artifacts: Path
) -> None:
    expect = _expect()
    aki, ben, chie = (_player(served, n) for n in ("Aki", "Ben", "Chie"))
    page = pages.open(aki)
    expect(page.locator("#me-name")).to_have_text("Playing as Aki")

    game_id = _rated_game(served, [aki, ben, chie])
    assert all(s["player_id"] for s in served.call("GET", f"/v1/games/{game_id}")["seats"])
    _resigned(served, game_id, ben)
    _wait_until_rated(page, aki["id"], 1)

    # "My profile", from the header.
    page.locator("#nav-profile").click()
    expect(page).to_have_url(re.compile(f"#/players/{aki['id']}$"))
    expect(page.locator("#profile-name")).to_have_text("Aki")
    row = page.locator(f"#ratings tr[data-ladder='{LADDER}']")
    profile = served.call("GET", f"/v1/players/{aki['id']}")
    rating = profile["ratings"][LADDER]
    expect(row.locator(".ordinal")).to_have_text(str(round(rating["ordinal"])))
    expect(row.locator(".games")).to_have_text("1")
    expect(row.locator(".badge.provisional")).to_have_text("provisional")
    expect(row.locator(".mu")).to_have_text(f"{rating['mu']:.1f}")
    expect(page.locator("#stats [data-stat='rated_games'] dd")).to_have_text("1")
    chart = page.locator(f"svg.rating-chart[data-ladder='{LADDER}']")
    expect(chart.locator("circle.point")).to_have_count(1)
    expect(chart.locator("circle.start")).to_have_count(1)
    finished = page.locator(f"#profile-games li[data-game='{game_id}']")
    expect(finished.locator(".badge.rated")).to_have_text("rated")
    page.screenshot(path=str(artifacts / "ratings-profile.png"), full_page=True)

    # The finished game's table: each seat's rating next to the name, which links to
    # the player's profile.
    finished.get_by_role("link").click()
    expect(page).to_have_url(re.compile(f"#/game/{game_id}$"))
    expect(page.locator(".game")).to_have_attribute("data-status", "finished", timeout=WAIT)
    expect(page.locator("#rated-game")).to_be_visible()
    for seat, who in enumerate((aki, ben, chie)):
        box = page.locator(f".board .seat[data-seat='{seat}']")
        expect(box.locator(".name a")).to_have_attribute("href", f"#/players/{who['id']}")
        expect(box.locator(".badge.rating")).to_have_text(RATING)
    expect(page.locator(".board .seat[data-seat='0'] .badge.rating")).to_have_text(
        f"{round(rating['ordinal'])}?"
    )
    page.screenshot(path=str(artifacts / "ratings-table.png"), full_page=True)
    page.locator(".board .seat[data-seat='1'] .name a").click()
    expect(page.locator("#profile-name")).to_have_text("Ben")
    expect(page.locator(f"#ratings tr[data-ladder='{LADDER}'] .games")).to_have_text("1")

    # A rated public table in the lobby: its seated player's rating, the name a link.
    table_id = _rated_game(served, [chie], visibility="public")
    page.locator("#nav-lobby").click()
    entry = page.locator(f".table-entry[data-game='{table_id}']")
    expect(entry.locator(".badge.rated")).to_have_text("rated", timeout=WAIT)
    seat = entry.locator(".table-seats li[data-seat='0']")
    expect(seat).to_contain_text("Seat 1: Chie")
    expect(seat.locator("a.player-link")).to_have_attribute("href", f"#/players/{chie['id']}")
    expect(seat.locator(".badge.rating")).to_have_text(RATING)
    expect(entry.locator(".table-seats li[data-seat='1'] .badge.rating")).to_have_count(0)
    entry.screenshot(path=str(artifacts / "ratings-lobby-table.png"))

    # A rated game from the new-game form: me against two bots.
    page.select_option("#new-players", "3")
    page.check("#new-rated")
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/game/[0-9a-f-]{36}$"))
    made = page.url.rsplit("/", 1)[1]
    expect(page.locator(".game")).to_have_attribute("data-seat", "0", timeout=WAIT)
    expect(page.locator("#rated-game")).to_be_visible()
    view = served.call("GET", f"/v1/games/{made}")
    assert view["rated"] is True
    assert view["seats"][0]["player_id"] == aki["id"]
    expect(page.locator(".board .seat[data-seat='0'] .badge.rating")).to_have_text(RATING)

    # A rated seek from Play now, cancelled.
    page.locator("#nav-lobby").click()
    page.select_option("#seek-players", "3")
    page.check("#seek-rated")
    page.click("#play-now")
    seeking = page.locator("#seeking")
    expect(seeking.locator(".badge.rated")).to_have_text("rated", timeout=WAIT)
    seek_id = seeking.get_attribute("data-seek")
    assert served.call("GET", f"/v1/seeks/{seek_id}", token=aki["token"])["rated"] is True
    page.click("#cancel-seek")
    expect(page.locator("#seek-ended")).to_be_visible(timeout=WAIT)
    assert page.errors == []


def test_the_leaderboard_lists_players_with_ten_rated_games(
    pages: Pages, served: Served, artifacts: Path
) -> None:
    expect = _expect()
    trio = [_player(served, n) for n in ("Daichi", "Emi", "Fumi")]
    for n in range(10):
        _resigned(served, _rated_game(served, trio), trio[n % 3])
    page = pages.open(trio[0])
    for who in trio:
        _wait_until_rated(page, who["id"], 10)

    # Two at a time: "More" brings the third, and there is no more.
    page.locator("#nav-leaderboards").click()
    expect(page.locator("#leaderboard-ladder")).to_have_value(LADDER)
    page.goto(f"{served.base}/#/leaderboards?ladder={LADDER}&limit=2")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator("#leaderboard-more")).to_be_visible()
    page.click("#leaderboard-more")
    expect(rows).to_have_count(3)
    expect(page.locator("#leaderboard-more")).to_be_hidden()
    board = served.call("GET", f"/v1/leaderboards/{LADDER}")["players"]
    assert {p["player_id"] for p in board} == {who["id"] for who in trio}
    expect(rows.locator(".rank")).to_have_text(["1", "2", "3"])
    expect(rows.locator("a.player-link")).to_have_text([p["name"] for p in board])
    expect(rows.locator(".ordinal")).to_have_text([str(round(p["ordinal"])) for p in board])
    expect(rows.locator(".games")).to_have_text(["10", "10", "10"])
    page.screenshot(path=str(artifacts / "ratings-leaderboard.png"), full_page=True)

    # Another ladder: nobody there yet.
    page.select_option("#leaderboard-ladder", "standard-4p")
    expect(page.locator("#leaderboard-empty")).to_be_visible()
    expect(page.locator("#leaderboard")).to_be_hidden()
    page.go_back()
    expect(rows).to_have_count(2)

    # The leader's name opens their profile: ten rated games, no longer provisional,
    # ten points on the chart.
    rows.first.locator("a.player-link").click()
    expect(page.locator("#profile-name")).to_have_text(board[0]["name"])
    row = page.locator(f"#ratings tr[data-ladder='{LADDER}']")
    expect(row.locator(".games")).to_have_text("10")
    expect(row.locator(".badge.provisional")).to_have_count(0)
    expect(page.locator("svg.rating-chart circle.point")).to_have_count(10)
    expect(page.locator("#profile-games li")).to_have_count(10)
    page.screenshot(path=str(artifacts / "ratings-profile-10.png"), full_page=True)
    assert page.errors == []

    # A browser without a player has no "My profile" until it makes one.
    newcomer = pages.open()
    expect(newcomer.locator("#nav-profile")).to_be_hidden()
    newcomer.get_by_label("Your name").fill("Gin")
    newcomer.get_by_role("button", name="Start").click()
    expect(newcomer.locator("#me-name")).to_have_text("Playing as Gin")
    newcomer.locator("#nav-profile").click()
    expect(newcomer.locator("#profile-name")).to_have_text("Gin")
    expect(newcomer.locator("#no-ratings")).to_be_visible()
    expect(newcomer.locator("#stats [data-stat='games'] dd")).to_have_text("0")
    assert newcomer.errors == []


def test_the_leaderboard_shows_people_and_no_bot(pages: Pages, served: Served) -> None:
    """Issue 44: a bot level rated beside people (two random bots as a team, ten games)
    is on the leaderboard only when asked for (`bots=true`); the web client's shows
    the people."""
    expect = _expect()
    ladder = "seven-followers"
    pair = [_player(served, n) for n in ("Goro", "Hana")]
    bots = [{"seat": s, "level": "random"} for s in (1, 3)]
    for _ in range(10):
        game = served.call(
            "POST",
            "/v1/games",
            {"players": 4, "variant": "seven_followers", "rated": True, "bots": bots},
        )
        for seat, who in zip((0, 2), pair, strict=True):
            served.call("POST", f"/v1/games/{game['id']}/seats/{seat}", {}, token=who["token"])
        _resigned(served, game["id"], pair[0])

    def listed() -> list[dict[str, Any]] | None:
        """The board with the bots once the people are on it (ten games rated)."""
        people = served.call("GET", f"/v1/leaderboards/{ladder}")["players"]
        board: list[dict[str, Any]] = served.call("GET", f"/v1/leaderboards/{ladder}?bots=true")[
            "players"
        ]
        return board if len(people) == 2 else None

    with_bots = wait_for(listed, "the worker to rate the ten games", timeout=WAIT / 1000)
    assert [p["bot"] for p in with_bots] == ["random", None, None]  # the winners' team
    page = pages.open(pair[0])
    page.goto(f"{served.base}/#/leaderboards?ladder={ladder}")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.locator("a.player-link")).to_have_text([p["name"] for p in with_bots[1:]])
    assert page.errors == []
