"""Issue 46: a finished game's hand review in the web client, in headless Chromium against
a real `yokai serve`, whose embedded worker computes the review (the `expert`'s budget of
worlds, as in production).

Three people made over HTTP pass and play three tricks of a three-player game (a seeded
deal, cards chosen by a seeded generator: a short game the worker reviews in seconds),
then one resigns. The finished table's "Review" opens `#/game/<id>/review`, which asks
for the review and shows it once the worker is done: each decision shown is checked
against the API's review (seat, card played or passed, the expert's card, the loss and
its mark), stepping forward and back with the buttons and the arrow keys, jumping to the
next mistake, and the summary's rows. At each decision the whole table is drawn as it
stood, every hand face up: each seat's hand, the trick under way, the tricks won and the
seat deciding are checked against the table the game's events (the operator's feed, not
the record the page reads) give just before the decision's event. axe-core finds nothing
serious on the page, and on a phone (390 by 844) nothing is wider than the screen and
every control is at least 44 px square. Every wait has a deadline (Playwright's expect);
nothing is timed.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Served, assert_accessible
from tests.support.serve import OPERATOR_TOKEN

pytestmark = pytest.mark.browser

REVIEWED = 180_000  # ms: a deadline for the worker's review of a dozen decisions
NAMES = ("Aki", "Ben", "Chie")
PLAYS = 9  # three tricks
PHONE = {"width": 390, "height": 844}


def _expect() -> Any:
    from playwright.sync_api import expect  # noqa: PLC0415 - skipped without it

    return expect


def _finished_game(served: Served, players: dict[int, str] | None = None) -> str:
    """A public three-player game: the pass, three tricks, then a resign. ``players``:
    seats joined with a player's token (seat: token), the others by name."""
    game = served.call(
        "POST", "/v1/games", {"players": 3, "seed": 46, "visibility": "public"}, OPERATOR_TOKEN
    )
    held = players or {}
    tokens = [
        served.call(
            "POST",
            f"/v1/games/{game['id']}/seats/{s}",
            {} if s in held else {"name": n},
            token=held.get(s),
        )["token"]
        for s, n in enumerate(NAMES)
    ]
    rng = random.Random(46)
    plays = 0
    while plays < PLAYS:
        views = [served.call("GET", f"/v1/games/{game['id']}/view", token=t) for t in tokens]
        ready = [v for v in views if v["action"] is not None]
        assert ready, views[0]["status"]
        v = ready[0]
        token = tokens[v["seat"]]
        if v["action"] == "pass":
            body = {"cards": rng.sample(v["legal"], 3)}
        else:
            body = {"card": rng.choice(v["legal"])}
            plays += 1
        served.call("POST", f"/v1/games/{game['id']}/{v['action']}", body, token)
    ended = served.call("POST", f"/v1/games/{game['id']}/resign", {}, tokens[1])
    assert ended["status"] == "finished"
    return str(game["id"])


def _cards(cards: str | list[str]) -> list[str]:
    return cards if isinstance(cards, list) else [cards]


def _tables(served: Served, game_id: str) -> dict[int, dict[str, Any]]:
    """The table just before each event of the game, by the event's seq, from the
    operator's feed (every hand and pass shown): each seat's hand, the cards each seat
    has passed while the passes are chosen, the trick under way (seat and card, in play
    order) and the tricks each seat has taken in the round."""
    feed = served.call("GET", f"/v1/games/{game_id}/events?limit=1000", token=OPERATOR_TOKEN)
    assert feed["next_after"] is None
    tables: dict[int, dict[str, Any]] = {}
    hands: list[list[str]] = []
    given: dict[int, list[str]] = {}
    trick: list[tuple[int, str]] = []
    won: list[int] = []
    for event in feed["events"]:
        tables[event["seq"]] = {
            "hands": [sorted(h) for h in hands],
            "given": dict(given),
            "trick": list(trick),
            "won": list(won),
        }
        data = event["data"]
        match event["type"]:
            case "RoundDealt":
                hands = [list(h) for h in data["hands"]]
                given, trick, won = {}, [], [0] * len(hands)
            case "CardsPassed":
                given[data["seat"]] = data["cards"]
            case "PassesExchanged":
                given = {}
                for p in data["passes"]:
                    hands[p["from"]].remove(p["card"])
                    hands[p["to"]].append(p["card"])
            case "CardPlayed":
                hands[data["seat"]].remove(data["card"])
                trick.append((data["seat"], data["card"]))
            case "TrickTaken":
                won[data["winner"]] += 1
                trick = []
    return tables


def _shown_cards(page: Any, selector: str) -> list[str]:
    return list(page.locator(selector).evaluate_all("cs => cs.map(c => c.dataset.card)"))


def _assert_table(page: Any, decision: dict[str, Any], table: dict[str, Any]) -> None:
    """The page draws ``table``, the game as it stood at ``decision``: every seat's hand
    (face up, the played and the expert's cards marked in the deciding seat's, the cards
    passed before marked in theirs), the trick under way by seat, each seat's tricks,
    the deciding seat's turn."""
    expect = _expect()
    drawn = page.locator("#review-table")
    seat = decision["seat"]
    expect(drawn.locator(".seat")).to_have_count(len(table["hands"]))
    expect(drawn.locator(".seat.turn")).to_have_attribute("data-seat", str(seat))
    for s, hand in enumerate(table["hands"]):
        shown = _shown_cards(page, f"#review-table .hand-shown[data-hand-seat='{s}'] .card")
        assert sorted(shown) == hand, (s, shown, hand)
        counts = drawn.locator(f".seat[data-seat='{s}'] .counts")
        expect(counts).to_have_text(f"{len(hand)} cards · {table['won'][s]} tricks")
        given = _shown_cards(page, f"#review-table .hand-shown[data-hand-seat='{s}'] .given .card")
        assert sorted(given) == sorted(table["given"].get(s, [])), (s, given)
    played = page.locator("#review-table .trick:not(.done) .played").evaluate_all(
        "ps => ps.map(p => [Number(p.dataset.seat), p.querySelector('.card').dataset.card])"
    )
    assert [tuple(p) for p in played] == table["trick"]
    own = f"#review-table .hand-shown[data-hand-seat='{seat}'] .review-card.{{}} .card"
    assert sorted(_shown_cards(page, own.format("chosen"))) == sorted(_cards(decision["chosen"]))
    assert sorted(_shown_cards(page, own.format("best"))) == sorted(_cards(decision["best"]))
    status = "passing" if decision["kind"] == "pass" else "playing"
    expect(drawn).to_have_attribute("data-status", status)


def _assert_shows(
    page: Any, review: dict[str, Any], at: int, tables: dict[int, dict[str, Any]] | None = None
) -> None:
    """The page shows decision ``at`` of the API's review; with the game's ``tables``
    (`_tables`), the whole table as it stood then."""
    expect = _expect()
    decision = review["decisions"][at]
    move = page.locator(".review-move")
    expect(move).to_have_attribute("data-at", str(at))
    expect(move).to_have_attribute("data-seq", str(decision["seq"]))
    if tables is not None:
        _assert_table(page, decision, tables[decision["seq"]])
    expect(page.locator("#review-decision-title")).to_contain_text(
        f"Decision {at + 1} of {len(review['decisions'])}"
    )
    expect(page.locator("#review-seat")).to_have_text(NAMES[decision["seat"]])
    chosen = _shown_cards(page, "#review-chosen .card")
    best = _shown_cards(page, "#review-best .card")
    assert (chosen, best) == (_cards(decision["chosen"]), _cards(decision["best"]))
    loss = page.locator("#review-loss")
    assert float(loss.get_attribute("data-loss")) == pytest.approx(decision["loss"])
    mark = "blunder" if decision["loss"] >= 0.25 else "mistake" if decision["loss"] >= 0.1 else None
    if mark:
        expect(loss.locator(".review-mark")).to_have_attribute("data-mark", mark)
    else:
        expect(loss.locator(".review-mark")).to_have_count(0)


def test_the_review_move_by_move_against_the_api(
    browser: Any, served: Served, artifacts: Path
) -> None:
    expect = _expect()
    game_id = _finished_game(served)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{served.base}/#/game/{game_id}")
        expect(page.locator("#final")).to_be_visible()
        expect(page.locator("#review")).to_have_text("Review")
        # Drawn for good before axe looks: the stream has replayed the game and ended, the
        # fairness check and the record have come.
        expect(page.locator(".game")).to_have_attribute("data-connection", "ended")
        expect(page.locator(".fairness .verdict[data-outcome]")).to_have_count(1)
        expect(page.locator(".record .record-text")).to_have_count(1)
        assert_accessible(page, "a finished game, with its Review")
        page.locator("#review").click()
        expect(page).to_have_url(f"{served.base}/#/game/{game_id}/review")
        expect(page.locator(".review")).to_have_attribute("data-phase", "done", timeout=REVIEWED)

        review = served.call("GET", f"/v1/games/{game_id}/review")
        tables = _tables(served, game_id)
        assert review["status"] == "done"
        decisions = review["decisions"]
        assert len(decisions) == 3 + PLAYS  # every pass and play of the game
        mistakes = [i for i, d in enumerate(decisions) if d["loss"] >= 0.1]
        assert mistakes, "the seeded game has a mistake to jump to"

        _assert_shows(page, review, 0, tables)
        expect(page.locator("#review-back")).to_be_disabled()
        page.locator("#review-forward").click()
        _assert_shows(page, review, 1, tables)
        page.locator("#review-back").click()
        _assert_shows(page, review, 0, tables)
        page.locator("#review-next-mistake").click()
        _assert_shows(page, review, mistakes[0], tables)
        if len(mistakes) > 1:
            page.locator("#review-next-mistake").click()
            _assert_shows(page, review, mistakes[1], tables)
        # The keys: the focus on the page, not in a field.
        page.locator("#review-decision-title").click()
        page.keyboard.press("Home")
        _assert_shows(page, review, 0, tables)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        _assert_shows(page, review, 2, tables)
        page.keyboard.press("ArrowLeft")
        _assert_shows(page, review, 1, tables)
        page.keyboard.press("ArrowDown")
        _assert_shows(page, review, next((i for i in mistakes if i > 1), 1), tables)
        page.keyboard.press("End")
        _assert_shows(page, review, len(decisions) - 1, tables)
        expect(page.locator("#review-forward")).to_be_disabled()
        # The last decision: a play into the third trick, the two cards before it on the
        # table by their seats.
        last = decisions[-1]
        assert (last["kind"], last["trick"], len(tables[last["seq"]]["trick"])) == ("play", 3, 2)
        # Every pass and play, and each step forward from a play takes its card out of
        # its seat's hand onto the table.
        page.keyboard.press("Home")
        for at, decision in enumerate(decisions):
            _assert_shows(page, review, at, tables)
            if at + 1 == len(decisions):
                break
            page.locator("#review-forward").click()
            if decision["kind"] == "play":
                seat, card = decision["seat"], decision["chosen"]
                expect(page.locator(".review-move")).to_have_attribute("data-at", str(at + 1))
                hand = f"#review-table .hand-shown[data-hand-seat='{seat}'] .card"
                assert card not in _shown_cards(page, hand)
                trick = page.locator(f"#review-table .trick .played[data-seat='{seat}'] .card")
                expect(trick).to_have_attribute("data-card", card)

        rows = page.locator("#review-summary tbody tr")
        expect(rows).to_have_count(3)
        for row, seat in zip(review["summary"], range(3), strict=True):
            assert row["seat"] == seat
            cells = rows.nth(seat)
            expect(cells.locator("th")).to_have_text(NAMES[seat])
            expect(cells.locator(".mistakes")).to_have_text(str(row["mistakes"]))
            expect(cells.locator(".blunders")).to_have_text(str(row["blunders"]))
            shown_accuracy = float(cells.locator(".accuracy").inner_text())
            assert shown_accuracy == pytest.approx(row["accuracy"], abs=0.05)
        assert_accessible(page, "the hand review")
        page.screenshot(path=str(artifacts / "review.png"), full_page=True)
        assert errors == []

        small = phone.new_page()
        small.goto(f"{served.base}/#/game/{game_id}/review")
        expect(small.locator(".review")).to_have_attribute("data-phase", "done")
        small.locator("#review-next-mistake").tap()
        _assert_shows(small, review, mistakes[0], tables)
        wide = small.evaluate("document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"the page is {wide} px wide on a 390 px screen"
        targets = small.locator(".review button:visible, .review summary, #review-to-game")
        for i in range(targets.count()):
            box = targets.nth(i).bounding_box()
            label = targets.nth(i).inner_text()
            assert box["width"] >= 44 and box["height"] >= 44, (label, box)
        assert_accessible(small, "the hand review on a phone")
        small.screenshot(path=str(artifacts / "review-phone.png"), full_page=True)
    finally:
        context.close()
        phone.close()


def test_a_review_of_a_game_still_played_is_refused_with_the_problem(
    browser: Any, served: Served
) -> None:
    expect = _expect()
    game = served.call("POST", "/v1/games", {"players": 3})
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.goto(f"{served.base}/#/game/{game['id']}/review")
        expect(page.locator(".review")).to_have_attribute("data-phase", "refused")
        expect(page.locator(".review .problem")).to_have_attribute("data-code", "game_not_finished")
    finally:
        context.close()


def test_waiting_then_failed_then_asked_again(browser: Any, served: Served) -> None:
    """The worker's progress while it reviews, a failed review said plainly, and "Ask
    again" sending the request again: the review's answers routed in the browser (a
    review that fails cannot be made to on a real worker from here)."""
    expect = _expect()
    game_id = "00000000-0000-4000-8000-000000000046"
    one = {
        "seq": 5,
        "round": 1,
        "trick": None,
        "seat": 2,
        "kind": "pass",
        "chosen": ["blue-1", "blue-2", "blue-3"],
        "best": ["blue-1", "blue-2", "blue-3"],
        "options": [{"cards": ["blue-1", "blue-2", "blue-3"], "value": 0.5}],
        "loss": 0,
    }
    summary = [
        {"seat": s, "decisions": int(s == 2), "mistakes": 0, "blunders": 0, "accuracy": 100}
        for s in range(3)
    ]
    answers = {
        "POST": [
            (202, {"status": "queued"}),
            (200, {"status": "done", "level": "expert", "decisions": [one], "summary": summary}),
        ],
        "GET": [
            (200, {"status": "running", "level": "expert", "decisions": [one], "summary": []}),
            (200, {"status": "failed", "level": "expert", "decisions": [], "summary": []}),
        ],
    }
    asked: list[tuple[str, str | None]] = []

    def answer(route: Any) -> None:
        request = route.request
        asked.append((request.method, request.headers.get("idempotency-key")))
        status, body = answers[request.method].pop(0)
        route.fulfill(status=status, content_type="application/json", body=json.dumps(body))

    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.route(f"**/v1/games/{game_id}/review", answer)
        page.goto(f"{served.base}/#/game/{game_id}/review")
        expect(page.locator(".review")).to_have_attribute("data-phase", "waiting")
        expect(page.locator("#review-status")).to_contain_text("decisions reviewed so far: 1")
        expect(page.locator(".review")).to_have_attribute("data-phase", "failed")
        expect(page.locator("#review-status")).to_have_text(
            "The review could not be computed. Ask again to try once more."
        )
        page.locator("#review-retry").click()
        expect(page.locator(".review")).to_have_attribute("data-phase", "done")
        expect(page.locator("#review-seat")).to_have_text("Seat 3")  # no such game: no names
        expect(page.locator(".review-agrees")).to_be_visible()
        assert [method for method, _ in asked] == ["POST", "GET", "GET", "POST"]
        assert asked[0][1] and asked[3][1] and asked[0][1] != asked[3][1]
    finally:
        context.close()


def test_the_player_sees_their_own_seat_at_the_bottom(browser: Any, served: Served) -> None:
    """The review's table is drawn as the table page draws it for the person looking: the
    seat their player held at the bottom, marked "you"; for anyone else, seat 1 there."""
    expect = _expect()
    ben = served.call("POST", "/v1/players", {"name": NAMES[1]})
    game_id = _finished_game(served, {1: ben["token"]})
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        visitor = context.new_page()
        visitor.goto(f"{served.base}/#/game/{game_id}/review")
        expect(visitor.locator(".review")).to_have_attribute("data-phase", "done", timeout=REVIEWED)
        south = visitor.locator("#review-table .seat.south")
        expect(south).to_have_attribute("data-seat", "0")
        expect(visitor.locator("#review-table .badge.you")).to_have_count(0)
        visitor.close()

        page = context.new_page()
        page.goto(f"{served.base}/")
        page.evaluate(
            "(p) => localStorage.setItem('yokai.player', JSON.stringify(p))",
            {"id": ben["id"], "name": NAMES[1], "token": ben["token"]},
        )
        page.goto(f"{served.base}/#/game/{game_id}/review")
        expect(page.locator(".review")).to_have_attribute("data-phase", "done", timeout=REVIEWED)
        south = page.locator("#review-table .seat.south")
        expect(south).to_have_attribute("data-seat", "1")
        expect(south.locator(".badge.you")).to_have_text("you")
        expect(page.locator("#review-table .badge.you")).to_have_count(1)
        # Stepping on keeps the table turned the same way.
        page.locator("#review-forward").click()
        expect(page.locator(".review-move")).to_have_attribute("data-at", "1")
        expect(south).to_have_attribute("data-seat", "1")
    finally:
        context.close()
