"""Issue 18: the reference web client, used as a person uses it, in headless Chromium
against a real `yokai serve`.

One person plays a whole game against three bots by clicking (passes included), in the
standard game and in Seven Followers; a second browser watches the same game and sees
every trick arrive without reloading; an operator opens the finished game in the
console, moves the slider to the middle of round 1 and sees that moment's hands. Every
wait is Playwright's auto-waiting (expect, wait_for) with a timeout.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Served, assert_accessible
from tests.support.serve import OPERATOR_TOKEN

pytestmark = pytest.mark.browser

WAIT = 60_000  # ms: bots move within a second; a whole round is far quicker than this
SUITS = ["green", "purple", "pink", "yellow", "black", "red", "blue"]
# English names cards by their suits' elements, as the cards show them (issue 33); a 7
# says it is a Boss Yokai.
LEGAL_NAME = re.compile(
    r"^(Wind|Earth|Charm|Lightning|Darkness|Fire|Snow) (A|\d+)( \(second\))?"
    r"(, a Boss Yokai)?, legal$"
)
BOT_NAME = re.compile(r"^(Random|Basic|Strong|Expert) bot \d+$")


def _expect() -> Any:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    return expect


def _card_key(card: str) -> tuple[int, int, int]:
    """The client's hand order: suit by suit (R-1.1), then rank."""
    suit, rank = card.split("-")
    return SUITS.index(suit), int(rank.rstrip("b")), rank.endswith("b")


def _new_page(browser: Any, served: Served, **options: Any) -> Any:
    context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **options})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: _console_error(errors, m))
    page.errors = errors
    page.goto(served.base + "/")
    return page


PHONE = {"width": 390, "height": 844}


def _shoot(page: Any, artifacts: Path, name: str, full_page: bool = False) -> None:
    """The page as it is, on the desktop and then on a phone (the docs' screenshots); on
    the phone, nothing wider than the screen (the header's links wrap, issue 48)."""
    size = page.viewport_size
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=full_page)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(artifacts / f"{name}-phone.png"), full_page=full_page)
    _fits(page, name)
    page.set_viewport_size(size)


def _fits(page: Any, name: str) -> None:
    """Every link of the header within the phone's width (they wrap, issue 48)."""
    rights = page.evaluate(
        "[...document.querySelectorAll('.top a, .top select')]"
        ".map(e => Math.ceil(e.getBoundingClientRect().right))"
    )
    assert max(rights) <= PHONE["width"], f"{name}: the header overflows: {rights}"


def _console_error(errors: list[str], message: Any) -> None:
    """A CSP violation, a module that failed to load, a script error, a refused request
    (a player opening a game they hold no seat in asks for no seat's view: issue 48)."""
    if message.type == "error":
        errors.append(message.text)


def _become_player(page: Any, name: str) -> dict[str, Any]:
    expect = _expect()
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#me-name")).to_have_text(f"Playing as {name}")
    stored: dict[str, Any] = json.loads(page.evaluate("localStorage.getItem('yokai.player')"))
    assert stored["name"] == name and stored["token"]
    return stored


def _create_game(page: Any, variant: str, bots: str, clock: int | None = None) -> str:
    """Create a four-player game from the lobby; ``bots``: seats 1, 2 and 3, as "basic,
    basic,basic" ("open" leaves a seat to a player)."""
    expect = _expect()
    page.select_option("#new-players", "4")
    page.select_option("#new-variant", variant)
    for seat, choice in enumerate(bots.split(","), start=1):
        page.select_option(f"#new-seat-{seat}", choice)
    if clock is not None:
        page.check("#new-clock")
        page.fill("#new-turn-seconds", str(clock))
    page.click("#create-game")
    expect(page).to_have_url(re.compile(r"#/game/[0-9a-f-]{36}$"))
    return str(page.url.rsplit("/", 1)[1])


def _watch(browser: Any, served: Served, game_id: str) -> Any:
    """A second browser (no player) on the game's page: the public view, live."""
    expect = _expect()
    watcher = _new_page(browser, served, viewport={"width": 900, "height": 900})
    watcher.goto(f"{served.base}/#/game/{game_id}")
    expect(watcher.locator(".game")).to_have_attribute("data-connection", "open", timeout=WAIT)
    expect(watcher.locator(".my-hand")).to_have_count(0)  # no hand: it holds no seat
    watcher.evaluate("window.stillTheSamePage = true")  # gone if the page reloads
    return watcher


def _seat_name(view: dict[str, Any], seat: int) -> str:
    """A seat's name as the English page shows it: a bot's numbered from 1, as the page
    numbers seats (as the server names it: "Basic bot 2" is seat 1 of the API)."""
    info = view["seats"][seat]
    if info["bot"] and BOT_NAME.match(info["name"] or ""):
        return f"{info['bot'].capitalize()} bot {seat + 1}"
    return str(info["name"])


def _and(names: list[str]) -> str:
    """Names as English lists them (Intl.ListFormat): "A", "A and B"."""
    if len(names) < 2:
        return "".join(names)
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def _round_result(view: dict[str, Any], result: dict[str, Any]) -> str:
    """Who won a round and why, as the English page says it (issue 33 item 2)."""
    sides = range(len(view["scores"]))

    def side(s: int) -> str:
        return f"Team {s + 1}" if view["players"] == 4 else _seat_name(view, s)

    if not result["winners"]:
        return (
            "No winner: "
            + {"all_tricks": "all tricks played", "forfeit": "out of time"}[result["reason"]]
        )
    winners = _and([side(w) for w in result["winners"]])
    losers = _and([side(s) for s in sides if s not in result["winners"]])
    return {
        "bosses": f"{winners} won by capturing {len(result['bosses_scored'])} bosses",
        "seven_tricks": f"{winners} won: {losers} took seven tricks",
        "last_trick": f"{winners} won by taking the last trick",
        "all_tricks": f"All tricks played: {winners} sealed suits",
        "sealed": f"{winners} won: enough suits sealed",
    }[result["reason"]]


def _record(served: Served, game_id: str) -> dict[str, Any]:
    record: dict[str, Any] = served.call("GET", f"/v1/games/{game_id}/record")
    return record


def _tricks_of(record: dict[str, Any]) -> list[tuple[int, int, int, list[str]]]:
    """(round, trick, winner, cards in play order) of every trick taken, from the record."""
    players: int = record["players"]
    found = []
    for rnd in record["rounds"]:
        plays = [m["card"] for m in rnd["moves"] if m["type"] == "play"]
        for i, winner in enumerate(rnd["tricks"]):
            found.append((rnd["number"], i + 1, winner, plays[i * players : (i + 1) * players]))
    return found


def _watched_tricks(watcher: Any) -> list[tuple[int, int, int, list[str]]]:
    """The watcher's trick list in play order (the page lists the newest first)."""
    lines = watcher.locator(".trick-line")
    found = []
    for i in range(lines.count()):
        line = lines.nth(i)
        cards = line.locator("[data-card]").evaluate_all("els => els.map(e => e.dataset.card)")
        found.append(
            (
                int(line.get_attribute("data-round")),
                int(line.get_attribute("data-trick")),
                int(line.get_attribute("data-winner")),
                cards,
            )
        )
    shown = [(r, n) for r, n, _, _ in found]
    assert shown == sorted(shown, reverse=True), "the newest trick is not listed first"
    return sorted(found)


def _pass(page: Any, served: Served, game_id: str, token: str, seven_followers: bool) -> None:
    """Choose three cards by clicking, check the pass is offered only then, and that
    the server got them in the order chosen (Seven Followers: for seat+1, +2, +3)."""
    expect = _expect()
    seat = int(page.locator(".game").get_attribute("data-seat"))
    slots = page.locator(".pass-slots li .label")
    if seven_followers:
        view = served.call("GET", f"/v1/games/{game_id}")
        names = [_seat_name(view, (seat + k) % 4) for k in (1, 2, 3)]
        expect(slots).to_have_text([f"For {name}" for name in names])
        assert all(re.fullmatch(r"Basic bot [1-4]", name) for name in names)
    button = page.locator("#pass-button")
    cards = page.locator(".hand button.card.legal")
    chosen = []
    for i in (4, 0, 2):  # not in hand order: the order of the clicks is the pass's
        expect(button).to_be_disabled()
        card = cards.nth(i)
        chosen.append(card.get_attribute("data-card"))
        card.click()
        expect(page.locator(f'.hand button[data-card="{chosen[-1]}"]')).to_have_attribute(
            "aria-pressed", "true"
        )
    expect(page.locator(".pass-slots [data-card]")).to_have_count(3)
    button.click()
    expect(page.locator(".pass-done")).to_be_visible(timeout=WAIT)
    view = served.call("GET", f"/v1/games/{game_id}/view", token=token)
    assert view["pass"]["given"] == chosen


def _drawn_to_the_record(page: Any, served: Served, game_id: str) -> None:
    """Until the page lists every trick of the record: asked while the game waits for the
    page's seat, the page has then drawn the stream's view too (it draws only on a view).
    Before that, a card of the person's that ended a round is answered with the next
    round's pass while the stream has not yet brought the round's end, whose panel then
    replaces the hand."""
    _expect()(page.locator(".trick-line")).to_have_count(
        len(_tricks_of(_record(served, game_id))), timeout=WAIT
    )


def _play_to_the_end(
    page: Any, watcher: Any, served: Served, game_id: str, token: str, artifacts: Path, name: str
) -> int:
    """Play every move of the player's seat by clicking until the game is finished;
    after each one, the watcher's trick list must match the record. Returns the moves."""
    expect = _expect()
    game = page.locator(".game")
    ready = page.locator(
        '.game[data-action="play"]:not([data-busy="1"]), '
        '.game[data-action="pass"]:not([data-busy="1"]), .game[data-status="finished"], '
        ".game[data-round-end]"
    )
    seven_followers = name.startswith("seven")
    moves = plays = ends = 0
    while True:
        ready.wait_for(timeout=WAIT)
        if game.get_attribute("data-status") == "finished":
            return moves
        _drawn_to_the_record(page, served, game_id)
        if game.get_attribute("data-round-end"):
            _round_end(page, served, game_id, artifacts, name, first=ends == 0)
            ends += 1
            continue
        version = game.get_attribute("data-version")
        # The game waits for this seat: the watcher has every trick taken so far.
        expect(watcher.locator(".trick-line")).to_have_count(
            len(_tricks_of(_record(served, game_id))), timeout=WAIT
        )
        if game.get_attribute("data-action") == "pass":
            _pass(page, served, game_id, token, seven_followers)
        else:
            legal = page.locator(".hand button.card.legal")
            expect(legal.first).to_have_attribute("aria-label", LEGAL_NAME)
            illegal = page.locator(".hand button.card.illegal")
            if illegal.count():
                expect(illegal.first).to_be_disabled()
                expect(illegal.first).to_have_attribute(
                    "aria-label", re.compile(", not playable now$")
                )
            if plays == 2:  # the table as a player sees it: my turn, legal cards lit
                # No trick held: its end would redraw the table under axe.
                expect(page.locator(".trick.done[data-held]")).to_have_count(0, timeout=WAIT)
                _shoot(page, artifacts, f"table-{name}", full_page=True)
                watcher.screenshot(path=str(artifacts / f"watcher-{name}.png"))
                assert_accessible(page, "the table, mid-game")
            if plays == 0:
                legal.first.focus()  # cards are buttons: the keyboard plays them too
                page.keyboard.press("Enter")
            else:
                legal.first.click()
            plays += 1
        moves += 1
        page.locator(f'.game:not([data-version="{version}"])').wait_for(timeout=WAIT)


def _round_end(
    page: Any, served: Served, game_id: str, artifacts: Path, name: str, first: bool
) -> None:
    """Issue 33 item 1: a round's end stays on the page until the person continues: its
    last trick (each card with its player), who won and why, the points and scores."""
    expect = _expect()
    game = page.locator(".game")
    number = int(game.get_attribute("data-round-end"))
    panel = page.locator("#round-end")
    expect(panel).to_be_visible()
    expect(page.locator(".my-hand")).to_have_count(0)  # the display is held, not the game
    view = served.call("GET", f"/v1/games/{game_id}")
    result = next(r for r in view["rounds"] if r["number"] == number)
    expect(page.locator("#round-end-title")).to_have_text(f"Round {number} is over")
    expect(panel.locator(".round-end-result")).to_have_text(_round_result(view, result))
    rnd = next(r for r in _record(served, game_id)["rounds"] if r["number"] == number)
    plays = [(m["seat"], m["card"]) for m in rnd["moves"] if m["type"] == "play"]
    if rnd["tricks"]:
        winner = rnd["tricks"][-1]
        n = len(rnd["tricks"])
        last = plays[(n - 1) * 4 : n * 4]
        shown = panel.locator(".round-end-trick .play").evaluate_all(
            "els => els.map(e => [Number(e.dataset.seat),"
            " e.querySelector('.player').textContent,"
            " e.querySelector('[data-card]').dataset.card])"
        )
        assert shown == [[seat, _seat_name(view, seat), card] for seat, card in last]
        expect(panel.locator(".round-end-trick h3")).to_have_text(
            f"The last trick, won by {_seat_name(view, winner)}"
        )
    for side, points in enumerate(result["points"]):
        row = panel.locator(f'.round-end-scores tr[data-side="{side}"]')
        expect(row.locator(".points")).to_have_text(str(points))
    expect(page.locator("#round-continue")).to_be_focused()
    if first:
        _shoot(page, artifacts, f"round-end-{name}")
        assert_accessible(page, "the round-end panel")
    # The server did not wait: the next round may be dealt already, under the panel.
    page.get_by_role("button", name="Continue").click()
    expect(panel).to_have_count(0)
    expect(game).not_to_have_attribute("data-round-end", re.compile("."))
    expect(page.locator(".my-hand, #final").first).to_be_visible(timeout=WAIT)


def _check_finished(
    page: Any, watcher: Any, served: Served, game_id: str, artifacts: Path, name: str
) -> None:
    expect = _expect()
    view = served.call("GET", f"/v1/games/{game_id}")
    assert view["status"] == "finished"
    expect(page.locator("#final .winner-text")).to_contain_text("Won by")
    for side, score in enumerate(view["scores"]):
        expect(page.locator(f'.scores tr[data-side="{side}"] .score')).to_have_text(str(score))
    # The fairness check: SHA-256 of the revealed seed, computed in the browser.
    verdict = page.locator(".fairness .verdict")
    expect(verdict).to_have_attribute("data-outcome", "match", timeout=WAIT)
    expect(page.locator(".fairness dd code").first).to_have_text(view["fairness"]["commitment"])
    expect(page.locator('.fairness a[href="/docs/fairness.md"]')).to_be_visible()
    expect(page.locator(".record-text")).to_contain_text('[Status "finished"]', timeout=WAIT)
    # The record names each bot as the table does (issue 48), and says how it counts.
    for seat, info in enumerate(view["seats"]):
        if info["bot"]:
            shown = _seat_name(view, seat)
            expect(page.locator(".record-text")).to_contain_text(f'[Seat{seat} "{shown}"]')
    expect(page.locator(".record-numbering")).to_contain_text("Seat0 is Seat 1 here")
    _shoot(page, artifacts, f"final-{name}")
    assert_accessible(page, "a finished game")

    # The watcher saw the end and every trick of the game, live, on the same page.
    expect(watcher.locator(".game")).to_have_attribute("data-status", "finished", timeout=WAIT)
    assert watcher.evaluate("window.stillTheSamePage") is True
    expected = _tricks_of(_record(served, game_id))
    assert expected
    expect(watcher.locator(".trick-line")).to_have_count(len(expected), timeout=WAIT)
    assert _watched_tricks(watcher) == expected
    _check_wording(page, watcher, served, game_id, view)
    assert page.errors == [] and watcher.errors == []


def _check_wording(
    page: Any, watcher: Any, served: Served, game_id: str, view: dict[str, Any]
) -> None:
    """Issue 33: each round says who won and why; each trick, who played each card and
    who won it; bots have the page's names; the ★ is explained; the status region says
    the game is over (not "Waiting for …")."""
    expect = _expect()
    results = page.locator(".rounds tbody .round-result")
    expect(results).to_have_text([_round_result(view, r) for r in view["rounds"]])
    record = _record(served, game_id)
    for rnd in record["rounds"]:
        number = rnd["number"]
        plays = [(m["seat"], m["card"]) for m in rnd["moves"] if m["type"] == "play"]
        for i, winner in enumerate(rnd["tricks"]):
            line = watcher.locator(f'.trick-line[data-round="{number}"][data-trick="{i + 1}"]')
            if i > 1 and i != len(rnd["tricks"]) - 1:
                continue  # the first two and the last trick of each round are enough
            trick = plays[i * 4 : (i + 1) * 4]
            expect(line.locator(".who")).to_have_text(
                f"Trick {i + 1}, won by {_seat_name(view, winner)}"
            )
            shown = line.locator(".play").evaluate_all(
                "els => els.map(e => [Number(e.dataset.seat),"
                " e.querySelector('.player').textContent,"
                " e.querySelector('[data-card]').dataset.card])"
            )
            assert shown == [[seat, _seat_name(view, seat), card] for seat, card in trick]
            expect(line.locator(".play.winner")).to_have_attribute("data-seat", str(winner))
            expect(line.locator(".play.winner .won")).to_have_text("(won)")
            expect(line.locator(".won")).to_have_count(1)
    for seat in range(1, 4):
        expect(page.locator(f'.seat[data-seat="{seat}"] .name')).to_have_text(
            f"Basic bot {seat + 1}"
        )
    legend = page.locator("#boss-legend")
    expect(legend).to_be_visible()
    expect(legend).to_contain_text("★ marks a 7: a Boss Yokai")
    boss = page.locator(".tricks .card.boss").first
    expect(boss).to_have_attribute("title", re.compile(r" 7( \(second\))?, a Boss Yokai$"))
    for who in (page, watcher):
        status = who.locator('p.sr-only[role="status"]')
        expect(status).to_have_text(re.compile(r"^Game over\. Won by "), timeout=WAIT)
        expect(status).not_to_contain_text("Waiting")


def test_a_person_plays_a_standard_game_against_three_bots_watched_live(
    browser: Any, served: Served, artifacts: Path
) -> None:
    page = _new_page(browser, served)
    me = _become_player(page, "Mio")
    game_id = _create_game(page, "standard", "basic,basic,basic", clock=600)
    watcher = _watch(browser, served, game_id)
    expect = _expect()
    # A live countdown for the seats that must act (a 600 s clock).
    expect(page.locator(".seat.south .deadline .left")).to_have_text(re.compile(r"^(9|10):\d\d$"))
    moves = _play_to_the_end(page, watcher, served, game_id, me["token"], artifacts, "standard")
    record = _record(served, game_id)
    assert moves == sum(
        1
        for r in record["rounds"]
        for m in r["moves"]
        if m.get("seat") == 0 and m["type"] in ("pass", "play")
    )
    _check_finished(page, watcher, served, game_id, artifacts, "standard")
    _operator_rewinds(browser, served, game_id, artifacts)


def test_a_person_plays_seven_followers_against_three_bots_watched_live(
    browser: Any, served: Served, artifacts: Path
) -> None:
    page = _new_page(browser, served)
    me = _become_player(page, "Rin")
    game_id = _create_game(page, "seven_followers", "basic,basic,basic")
    watcher = _watch(browser, served, game_id)
    _play_to_the_end(page, watcher, served, game_id, me["token"], artifacts, "seven-followers")
    view = served.call("GET", f"/v1/games/{game_id}")
    assert view["variant"] == "seven_followers"
    expect = _expect()
    for team, suits in enumerate(view["seals"]):
        expect(page.locator(f'[data-seals-team="{team}"] .chip')).to_have_count(len(suits))
    _check_finished(page, watcher, served, game_id, artifacts, "seven-followers")


def _operator_rewinds(browser: Any, served: Served, game_id: str, artifacts: Path) -> None:
    """The console: the token once, the finished game in the list, its audit as a
    timeline, the verify button, and the slider at the middle of round 1."""
    expect = _expect()
    ops = _new_page(browser, served)
    ops.goto(f"{served.base}/#/ops")
    ops.get_by_label("Operator token").fill(OPERATOR_TOKEN)
    ops.get_by_role("button", name="Enter").click()
    ops.select_option("#ops-status", "finished")
    row = ops.locator(f'tr[data-game="{game_id}"]')
    expect(row).to_be_visible(timeout=WAIT)
    assert ops.evaluate("sessionStorage.getItem('yokai.operator')") == OPERATOR_TOKEN
    assert ops.evaluate("localStorage.getItem('yokai.operator')") is None
    row.get_by_role("link").click()

    audit = served.operator(f"/v1/games/{game_id}/audit?limit=1000")["events"]
    timeline = ops.locator("#timeline li")
    expect(timeline).to_have_count(len(audit), timeout=WAIT)
    last = audit[-1]
    expect(timeline.last).to_contain_text(last["type"])
    if last["request_id"]:
        expect(timeline.last).to_contain_text(last["request_id"])
    # Who exactly and from where: the player's id of the person's join, its address.
    joined = next(e for e in audit if e["type"] == "SeatJoined" and not e["data"].get("bot"))
    assert joined["actor"]["kind"] == "player"
    row_of_join = timeline.nth(joined["seq"] - 1)
    expect(row_of_join).to_contain_text(joined["actor"]["id"])
    expect(row_of_join).to_contain_text(joined["client_address"])
    expect(row_of_join.locator(".actor")).to_have_text(
        f"player, seat 1 (API seat 0): {joined['actor']['id']}"
    )
    # The game was made by the signed-in player, who seated the bots: nobody anonymous.
    created = audit[0]
    assert created["type"] == "GameCreated"
    assert created["actor"] == {"kind": "player", "seat": None, "id": joined["actor"]["id"]}
    expect(timeline.first.locator(".actor")).to_have_text(f"player: {joined['actor']['id']}")
    bot_join = next(e for e in audit if e["type"] == "SeatJoined" and e["data"].get("bot"))
    bot_seat = bot_join["data"]["seat"]
    expect(timeline.nth(bot_join["seq"] - 1).locator(".actor")).to_have_text(
        f"basic bot into seat {bot_seat + 1} (API seat {bot_seat}), "
        f"seated by player: {joined['actor']['id']}"
    )
    expect(timeline.locator(".actor", has_text="anonymous")).to_have_count(0)
    bot_move = next(e for e in audit if e["actor"]["kind"] == "bot")
    n = bot_move["actor"]["seat"]
    expect(timeline.nth(bot_move["seq"] - 1).locator(".actor")).to_have_text(
        f"bot, seat {n + 1} (API seat {n})"
    )

    ops.get_by_role("button", name="Verify the history").click()
    expect(ops.locator("#verify-result [data-intact]")).to_have_attribute("data-intact", "true")

    dealt = next(e["seq"] for e in audit if e["type"] == "RoundDealt" and e["data"]["number"] == 1)
    ended = next(e["seq"] for e in audit if e["type"] == "RoundEnded" and e["data"]["number"] == 1)
    middle = (dealt + ended) // 2
    ops.locator("#ops-slider").fill(str(middle))
    expect(ops.locator("#ops-state")).to_have_attribute("data-at", str(middle), timeout=WAIT)
    # The audit shows the event the table is at: scrolled into its view, marked current.
    current = ops.locator("#timeline li.current")
    expect(current).to_have_attribute("data-seq", str(middle))
    expect(current).to_have_attribute("aria-current", "step")
    inside = (
        "li => { const box = li.parentElement.getBoundingClientRect();"
        " const row = li.getBoundingClientRect();"
        " return row.top >= box.top && row.bottom <= box.bottom; }"
    )
    assert current.evaluate(inside)
    assert ops.locator("#timeline li").first.evaluate(inside) is False
    state = served.operator(f"/v1/games/{game_id}/state?at={middle}")
    assert state["status"] == "playing" and 0 < sum(map(len, state["hands"])) < 48
    for seat, hand in enumerate(state["hands"]):
        shown = ops.locator(f'[data-hand-seat="{seat}"] [data-card]')
        expect(shown).to_have_count(len(hand))
        cards = shown.evaluate_all("els => els.map(e => e.dataset.card)")
        assert cards == sorted(hand, key=_card_key)
    _shoot(ops, artifacts, "operator-console")
    assert_accessible(ops, "the operators' console")
    assert ops.errors == []


def test_the_operator_list_pages(browser: Any, served: Served) -> None:
    expect = _expect()
    for _ in range(21):
        served.call("POST", "/v1/games", {"players": 3})
    ops = _new_page(browser, served)
    ops.goto(f"{served.base}/#/ops")
    ops.get_by_label("Operator token").fill(OPERATOR_TOKEN)
    ops.get_by_role("button", name="Enter").click()
    rows = ops.locator(".games-table tbody tr[data-game]")
    expect(rows).to_have_count(20)
    first_page = rows.evaluate_all("els => els.map(e => e.dataset.game)")
    # The list says its order, and shows the column it is in: newest created first.
    expect(ops.locator(".games-table caption")).to_have_text(
        "Newest first, by the time the game was created."
    )
    expect(ops.locator('.games-table th[aria-sort="descending"]')).to_have_text("Created")
    created = rows.locator("td.created time").evaluate_all(
        "els => els.map(e => Date.parse(e.getAttribute('datetime')))"
    )
    assert len(created) == 20 and created == sorted(created, reverse=True)
    ops.get_by_role("button", name="Next").click()
    expect(rows.first).not_to_have_attribute("data-game", first_page[0])
    second_page = rows.evaluate_all("els => els.map(e => e.dataset.game)")
    assert second_page and not set(second_page) & set(first_page)
    ops.get_by_role("button", name="Previous").click()
    expect(rows.first).to_have_attribute("data-game", first_page[0])


def test_a_refused_request_shows_the_problem_title(browser: Any, served: Served) -> None:
    """The lobby leaves the rules to the server: a three-player Seven Followers is its
    422, shown with the problem's title and detail."""
    expect = _expect()
    page = _new_page(browser, served)
    _become_player(page, "Ann")
    page.select_option("#new-players", "3")
    page.select_option("#new-variant", "seven_followers")
    page.click("#create-game")
    problem = page.get_by_role("alert")
    expect(problem.locator(".title")).to_have_text("Those game options do not go together")
    expect(problem.locator(".detail")).to_contain_text("four-player")
    expect(page).to_have_url(re.compile(r"/#?/?$"))


def test_the_client_speaks_the_browsers_language_and_switches(browser: Any, served: Served) -> None:
    expect = _expect()
    page = _new_page(browser, served, locale="fr-FR")
    expect(page.locator("#nav-lobby")).to_have_text("Accueil")
    assert page.evaluate("document.documentElement.lang") == "fr"
    page.get_by_label("Votre nom").fill("Léa")
    page.get_by_role("button", name="Commencer").click()
    page.click("#create-game")
    expect(page.locator(".game")).to_have_attribute("data-action", "pass", timeout=WAIT)
    # Bots named in the page's language, numbered as the page numbers seats.
    expect(page.locator('.seat[data-seat="1"] .name')).to_have_text("Robot simple 2")
    expect(page.locator("#boss-legend")).to_contain_text("★ marque un 7 : un Boss Yokai")
    french = re.compile(
        r"^(Vent|Terre|Charme|Foudre|Ténèbres|Feu|Neige) (A|\d+)(, un Boss Yokai)?, jouable$"
    )
    expect(page.locator(".hand button.card").first).to_have_attribute("aria-label", french)
    expect(page.locator(".trump")).to_contain_text("famille")
    page.select_option("#lang", "de")
    expect(page.locator("#nav-lobby")).to_have_text("Lobby")
    expect(page.locator(".my-hand h2")).to_have_text("Deine Hand", timeout=WAIT)
    expect(page.locator('.seat[data-seat="3"] .name')).to_have_text("Einfacher Bot 4")
    page.select_option("#lang", "zh")
    expect(page.locator(".my-hand h2")).to_have_text("你的手牌", timeout=WAIT)
    assert page.evaluate("localStorage.getItem('yokai.lang')") == "zh"
    assert page.errors == []


def test_a_game_opens_by_its_short_id_and_anything_else_says_why_not(
    browser: Any, served: Served
) -> None:
    """Issue 33: "Open a game" takes the short id the pages show ("Game 7ea56dc5"),
    looked for among the player's games; junk, an unknown short id, or a short id in a
    browser without a player get a message saying what to paste instead."""
    expect = _expect()
    page = _new_page(browser, served)
    _become_player(page, "Nao")
    game = _create_game(page, "standard", "random,random,open")
    shown = page.locator(".game-head h1")
    expect(shown).to_have_text(f"Game {game[:8]}")
    form = page.locator("#open-game")
    message = page.locator("#open-game-message")

    def open_(text: str) -> None:
        page.goto(f"{served.base}/#/")
        form.fill(text)
        page.get_by_role("button", name="Open", exact=True).click()

    open_(f"Game {game[:8]}")  # as the page's title says it
    expect(page).to_have_url(re.compile(f"#/game/{game}$"))
    open_(game[:6].upper())
    expect(page).to_have_url(re.compile(f"#/game/{game}$"))
    open_("not a game!")
    expect(message).to_have_text(re.compile(r"^That is not a game's link or id: "))
    expect(page).to_have_url(re.compile(r"#/$"))
    unknown = "0000abcd" if not game.startswith("0000") else "ffffabcd"
    open_(unknown)
    expect(message).to_have_text(
        f"None of your games has an id starting with {unknown}. "
        "For someone else's game, paste its whole link or id."
    )
    expect(page).to_have_url(re.compile(r"#/$"))

    stranger = _new_page(browser, served)  # no player in this browser
    stranger.locator("#open-game").fill(game[:8])
    stranger.get_by_role("button", name="Open", exact=True).click()
    expect(stranger.locator("#open-game-message")).to_have_text(
        re.compile(f"^A short id \\({game[:8]}\\) finds only your own games")
    )
    stranger.locator("#open-game").fill(f"{served.base}/#/game/{game}")
    stranger.get_by_role("button", name="Open", exact=True).click()
    expect(stranger).to_have_url(re.compile(f"#/game/{game}$"))
    assert page.errors == [] and stranger.errors == []


def test_the_table_fits_a_phone(browser: Any, served: Served, artifacts: Path) -> None:
    expect = _expect()
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    page.goto(served.base + "/")
    page.get_by_label("Your name").fill("Kai")
    page.get_by_role("button", name="Start").click()
    # My games comes right after who you are, above the new-game form (issue 33 item 10).
    games, form = page.locator("section.games"), page.locator("section.create")
    expect(games).to_be_visible()
    assert games.bounding_box()["y"] < form.bounding_box()["y"]
    page.screenshot(path=str(artifacts / "lobby-phone.png"), full_page=True)
    page.click("#create-game")
    expect(page.locator(".game")).to_have_attribute("data-action", "pass", timeout=WAIT)
    # The table as the stream draws it (the first read's drawing is replaced then).
    expect(page.locator(".game")).to_have_attribute("data-connection", "open", timeout=WAIT)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    page.locator(".hand button.card").first.tap()
    expect(page.locator(".hand button.card").first).to_have_attribute("aria-pressed", "true")
    page.screenshot(path=str(artifacts / "table-phone.png"), full_page=True)
    _fits(page, "table-phone")


def test_my_turn_games_come_first_and_a_friend_joins_by_the_link(
    browser: Any, served: Served
) -> None:
    expect = _expect()
    host = _new_page(browser, served)
    _become_player(host, "Aki")
    mine = _create_game(host, "standard", "basic,basic,basic")  # my pass is due at once
    expect(host.locator(".game")).to_have_attribute("data-action", "pass", timeout=WAIT)
    host.goto(f"{served.base}/#/")
    waiting = _create_game(host, "standard", "random,random,open")  # newer; nothing due
    host.goto(f"{served.base}/#/")
    entries = host.locator("#inbox .inbox-entry")
    expect(entries).to_have_count(2, timeout=WAIT)
    expect(entries.nth(0)).to_have_attribute("data-game", mine)
    expect(entries.nth(0)).to_have_attribute("data-my-turn", "1")
    expect(entries.nth(0).locator(".badge")).to_have_text("your pass")
    expect(entries.nth(1)).to_have_attribute("data-game", waiting)

    friend = _new_page(browser, served)
    friend.goto(f"{served.base}/#/game/{waiting}")
    expect(friend.locator(".game")).to_have_attribute("data-status", "waiting", timeout=WAIT)
    friend.get_by_role("link", name="Choose a name to join").click()
    friend.get_by_label("Your name").fill("Yui")
    friend.get_by_role("button", name="Start").click()
    expect(friend).to_have_url(re.compile(f"#/game/{waiting}$"))
    friend.get_by_role("button", name="Take seat 4").click()
    # The last seat is filled: the game starts, and the friend holds seat 3's hand.
    expect(friend.locator(".game")).to_have_attribute("data-seat", "3", timeout=WAIT)
    expect(friend.locator(".game")).to_have_attribute("data-action", "pass", timeout=WAIT)
    expect(friend.locator(".hand button.card")).to_have_count(12)
    # The host's inbox heard of it by its stream: now both games wait for the host.
    expect(host.locator('#inbox .inbox-entry[data-my-turn="1"]')).to_have_count(2, timeout=WAIT)
    assert host.errors == [] and friend.errors == []


def test_without_providers_no_sign_in_is_offered_but_a_link_code_works(
    browser: Any, served: Served
) -> None:
    """A service with no OpenID provider: no "Sign in with" button; a code made by the
    player's other device (here, through the API) signs this browser in as them."""
    expect = _expect()
    context = browser.new_context()
    page = context.new_page()
    with page.expect_response("**/v1/sessions/providers") as listed:
        page.goto(served.base + "/")
    assert listed.value.json() == {"providers": []}
    expect(page.get_by_label("Link code")).to_be_visible()
    expect(page.locator("#sign-in")).to_be_hidden()
    expect(page.get_by_role("button", name=re.compile("^Sign in with"))).to_have_count(0)
    made = served.call("POST", "/v1/players", {"name": "Sora"})
    code = served.call("POST", "/v1/me/link-codes", {}, token=made["token"])["code"]
    page.get_by_label("Link code").fill(code.lower())  # read whatever the case
    page.get_by_role("button", name="Use the code").click()
    expect(page.locator("#me-name")).to_have_text("Playing as Sora")
    expect(page.locator("#me-name")).to_have_attribute("data-player", made["id"])


def test_the_lobby_disables_the_clock_settings_while_the_clock_is_off(
    browser: Any, served: Served, artifacts: Path
) -> None:
    """Issue 33 item 10: the turn clock's inputs are disabled, and look it, until the
    clock is chosen; the lobby passes axe."""
    expect = _expect()
    page = _new_page(browser, served)
    _become_player(page, "Sora")
    seconds, outcome = page.locator("#new-turn-seconds"), page.locator("#new-on_timeout")
    expect(seconds).to_be_disabled()
    expect(outcome).to_be_disabled()
    off = seconds.evaluate("e => getComputedStyle(e).backgroundColor")
    page.check("#new-clock")
    expect(seconds).to_be_enabled()
    expect(outcome).to_be_enabled()
    assert seconds.evaluate("e => getComputedStyle(e).backgroundColor") != off
    page.uncheck("#new-clock")
    expect(seconds).to_be_disabled()
    page.screenshot(path=str(artifacts / "lobby.png"), full_page=True)
    assert_accessible(page, "the lobby")
    assert page.errors == []


RULES = {
    "en": ("The rules", "Yokai Septet: the rules", "Boss Yokai", "numbered 1 to 4"),
    "fr": ("Les règles", "Yokai Septet : les règles", "Boss Yokai", "numérotées de 1 à 4"),
    "de": ("Die Regeln", "Yokai Septet: die Regeln", "Yokai-Boss", "von 1 bis 4"),
    "zh": ("游戏规则", "Yokai Septet\uff1a游戏规则", "妖怪頭目", "1 至 4"),
}


@pytest.mark.parametrize("lang", list(RULES))
def test_the_rules_open_in_the_pages_language(
    browser: Any, served: Served, artifacts: Path, lang: str
) -> None:
    """Issue 33 item 4: "The rules" opens the players' rules, from the publisher's
    rulebook of that language, numbering seats 1 to 4 as the page does."""
    expect = _expect()
    link_text, title, rulebook_word, seats = RULES[lang]
    page = _new_page(browser, served)
    page.select_option("#lang", lang)
    link = page.locator("#rules-link")
    expect(link).to_have_text(link_text)
    expect(link).to_have_attribute("href", f"/ui/rules/{lang}.html")
    with page.context.expect_page() as opened:
        link.click()
    rules = opened.value
    rules.wait_for_load_state()
    assert rules.url == f"{served.base}/ui/rules/{lang}.html"
    assert (rules.locator("html").get_attribute("lang") or "").startswith(lang)
    expect(rules.locator("h1")).to_have_text(title)
    expect(rules.locator(".rulebook")).to_contain_text(rulebook_word)
    expect(rules.locator("#rules-site")).to_contain_text(seats)
    expect(rules.locator(".rulebook h2").first).to_be_visible()
    assert "R-1" not in rules.locator("body").inner_text()  # not the developers' rules
    _shoot(rules, artifacts, f"rules-{lang}")
    assert_accessible(rules, f"the rules page ({lang})")
