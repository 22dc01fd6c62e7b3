"""The read side of docs/api.md over HTTP: the public view, the seat view, ETag and
If-None-Match, and the event feed (redacted for seats, complete for operators)."""

from __future__ import annotations

import json
import random
import uuid
from datetime import datetime
from typing import Any

import pytest

from tests.support.api import OPERATOR, Api, bearer
from tests.support.deals import (
    HANDS_AFTER_PASS_4P,
    PASSES_4P,
    assert_problem,
    ordered_deal,
    start_ordered,
    start_playing,
)

PUBLIC_FIELDS = {
    "id", "version", "players", "scoring", "variant", "status", "seats", "round", "scores",
    "rounds", "winner",
}  # fmt: skip
SEAT_FIELDS = {"seat", "name", "team", "joined", "passed", "hand_size", "tricks_won", "bosses"}
ROUND_FIELDS = {
    "number", "trump", "trump_suit", "leader", "turn", "trick", "tricks_played", "last_trick",
}  # fmt: skip


def _hidden_cards_absent(text: str, cards: set[str]) -> None:
    for c in cards:
        assert f'"{c}"' not in text, c


# --- GET /v1/games/{id} ---------------------------------------------------------------


def test_the_public_view_has_the_fields_of_the_contract(api: Api) -> None:
    game = start_playing(api)
    assert api.play(game, 0, "purple-2").status_code == 200
    public = api.public(game.id)
    assert set(public) >= PUBLIC_FIELDS
    assert public["id"] == game.id
    assert public["status"] == "playing"
    for seat in public["seats"]:
        assert set(seat) >= SEAT_FIELDS
    assert [s["hand_size"] for s in public["seats"]] == [11, 12, 12, 12]
    rnd = public["round"]
    assert set(rnd) >= ROUND_FIELDS
    assert (rnd["number"], rnd["trump"], rnd["trump_suit"]) == (1, "blue-13", "blue")
    assert (rnd["leader"], rnd["turn"]) == (0, 1)
    assert rnd["trick"] == [{"seat": 0, "card": "purple-2"}]
    assert rnd["tricks_played"] == 0
    assert rnd["last_trick"] is None


def test_the_public_view_shows_no_hand_card(api: Api) -> None:
    game = start_ordered(api)
    passing = api.get(f"/v1/games/{game.id}")
    assert passing.status_code == 200
    assert "hand" not in passing.get_json()
    dealt = {c for h in ordered_deal(4)["hands"] for c in h}
    _hidden_cards_absent(passing.get_data(as_text=True), dealt)
    assert api.pass_cards(game, 0, PASSES_4P[0]).status_code == 200
    # A submitted pass is secret too.
    _hidden_cards_absent(api.get(f"/v1/games/{game.id}").get_data(as_text=True), dealt)
    for seat in range(1, 4):
        assert api.pass_cards(game, seat, PASSES_4P[seat]).status_code == 200
    assert api.play(game, 0, "purple-2").status_code == 200
    text = api.get(f"/v1/games/{game.id}").get_data(as_text=True)
    _hidden_cards_absent(text, dealt - {"purple-2"})
    assert '"purple-2"' in text


def test_the_public_view_of_an_unknown_game_is_404(api: Api) -> None:
    assert_problem(api.get(f"/v1/games/{uuid.uuid4()}"), 404)


@pytest.mark.parametrize(
    "game_id", ["abc", "../x", "x" * 3000, "00000000-0000-0000-0000-00000000000g", "%00", "null"]
)
def test_a_malformed_game_id_is_404_on_every_endpoint(api: Api, game_id: str) -> None:
    base = f"/v1/games/{game_id}"
    assert_problem(api.get(base), 404)
    assert_problem(api.get(f"{base}/events", **OPERATOR), 404)
    assert_problem(api.get(f"{base}/state", **OPERATOR), 404)
    assert_problem(api.get(f"{base}/audit", **OPERATOR), 404)
    assert_problem(api.post(f"{base}/seats/0", {"name": "x"}), 404)


def test_the_etag_is_the_version_and_if_none_match_gives_304(api: Api) -> None:
    game = start_ordered(api)
    r = api.get(f"/v1/games/{game.id}")
    assert r.status_code == 200
    etag = r.headers["ETag"]
    assert etag == f'"{r.get_json()["version"]}"'
    cached = api.get(f"/v1/games/{game.id}", If_None_Match=etag)
    assert cached.status_code == 304
    assert cached.get_data() == b""
    # Another version in If-None-Match is no match.
    other = api.get(f"/v1/games/{game.id}", If_None_Match='"1"')
    assert other.status_code == 200
    assert api.pass_cards(game, 3, PASSES_4P[3]).status_code == 200
    changed = api.get(f"/v1/games/{game.id}", If_None_Match=etag)
    assert changed.status_code == 200
    assert changed.headers["ETag"] != etag
    assert changed.headers["ETag"] == f'"{changed.get_json()["version"]}"'
    assert changed.get_json()["version"] > r.get_json()["version"]
    assert changed.get_json()["seats"][3]["passed"] is True


def test_the_seat_view_has_an_etag_and_honours_if_none_match(api: Api) -> None:
    game = start_ordered(api)
    path = f"/v1/games/{game.id}/view"
    r = api.get(path, **game.seat_headers(1))
    assert r.status_code == 200
    etag = r.headers["ETag"]
    assert etag == f'"{r.get_json()["version"]}"'
    cached = api.get(path, If_None_Match=etag, **game.seat_headers(1))
    assert cached.status_code == 304
    assert cached.get_data() == b""
    assert api.pass_cards(game, 1, PASSES_4P[1]).status_code == 200
    fresh = api.get(path, If_None_Match=etag, **game.seat_headers(1))
    assert fresh.status_code == 200
    assert fresh.get_json()["pass"]["given"] == PASSES_4P[1]


# --- GET /v1/games/{id}/view ----------------------------------------------------------


def test_the_seat_view_of_an_unknown_game_is_refused(api: Api) -> None:
    game = api.start(3)
    r = api.get(f"/v1/games/{uuid.uuid4()}/view", **game.seat_headers(0))
    assert r.status_code in (403, 404)
    assert r.mimetype == "application/problem+json"


def test_the_seat_view_while_passing(api: Api) -> None:
    game = start_ordered(api)
    deal = ordered_deal(4)
    for seat in range(4):
        view = api.view(game, seat)
        assert set(view) >= PUBLIC_FIELDS
        assert view["seat"] == seat
        assert sorted(view["hand"]) == sorted(deal["hands"][seat])
        assert view["action"] == "pass"
        assert sorted(view["legal"]) == sorted(deal["hands"][seat])
        assert view["pass"] is None
        assert view["round"]["turn"] is None
        # No other seat's card leaks into a seat's view.
        others = {c for s, h in enumerate(deal["hands"]) if s != seat for c in h}
        _hidden_cards_absent(json.dumps(view), others)


def test_the_seat_view_after_the_exchange(api: Api) -> None:
    game = start_playing(api)
    leader = api.view(game, 0)
    assert leader["action"] == "play"
    assert sorted(leader["legal"]) == sorted(HANDS_AFTER_PASS_4P[0])
    assert leader["pass"]["given"] == PASSES_4P[0]
    assert sorted(leader["pass"]["received"]) == sorted(PASSES_4P[2])
    for seat in (1, 2, 3):
        view = api.view(game, seat)
        assert view["action"] is None
        assert view["legal"] == []
        assert set(view["hand"]) == HANDS_AFTER_PASS_4P[seat]
        others = set().union(*(HANDS_AFTER_PASS_4P[s] for s in range(4) if s != seat))
        _hidden_cards_absent(json.dumps({k: v for k, v in view.items() if k != "pass"}), others)


def test_the_seat_view_in_a_three_player_game(api: Api) -> None:
    game = start_ordered(api, 3)
    deal = ordered_deal(3)
    view = api.view(game, 2)
    assert sorted(view["hand"]) == sorted(deal["hands"][2])
    assert len(view["hand"]) == 16
    assert [s["team"] for s in view["seats"]] == [None, None, None]
    assert len(view["scores"]) == 3
    # Three players pass to the left (R-3.2): seat 2's cards go to seat 0.
    given = ["red-6", "red-7", "red-8"]
    assert api.pass_cards(game, 2, given).status_code == 200
    assert api.pass_cards(game, 0, ["purple-2", "purple-3", "purple-4"]).status_code == 200
    assert api.pass_cards(game, 1, ["pink-5", "pink-6", "pink-7"]).status_code == 200
    seat0 = api.view(game, 0)
    assert sorted(seat0["pass"]["received"]) == sorted(given)
    assert set(given) <= set(seat0["hand"])
    assert seat0["action"] == "play"  # seat 0 holds the A
    assert sorted(api.view(game, 1)["pass"]["received"]) == ["purple-2", "purple-3", "purple-4"]


# --- GET /v1/games/{id}/events --------------------------------------------------------


def _page(api: Api, game_id: str, query: str, headers: dict[str, str]) -> dict[str, Any]:
    r = api.client.get(f"/v1/games/{game_id}/events{query}", headers=headers)
    assert r.status_code == 200, r.get_json()
    body: dict[str, Any] = r.get_json()
    return body


def test_the_operator_feed_is_complete_and_numbered_from_one(api: Api) -> None:
    game = start_playing(api)
    events = api.feed(game, None)
    version = api.public(game.id)["version"]
    assert [e["seq"] for e in events] == list(range(1, version + 1))
    for e in events:
        assert {"seq", "type", "data", "recorded_at"} <= set(e)
    types = [e["type"] for e in events]
    assert types[:6] == ["GameCreated", *["SeatJoined"] * 4, "RoundDealt"]
    assert types.count("CardsPassed") == 4
    assert "PassesExchanged" in types
    created = events[0]["data"]
    assert created["deals"][0]["hands"] == ordered_deal(4)["hands"]
    dealt = events[5]["data"]
    assert [sorted(h) for h in dealt["hands"]] == [sorted(h) for h in ordered_deal(4)["hands"]]
    assert dealt["trump"] == "blue-13"
    passes = {e["data"]["seat"]: e["data"]["cards"] for e in events if e["type"] == "CardsPassed"}
    assert passes == PASSES_4P


def test_a_seat_feed_is_redacted_to_what_the_seat_may_know(api: Api) -> None:
    game = start_playing(api)
    operator = api.feed(game, None)
    deal = ordered_deal(4)
    for seat in range(4):
        feed = api.feed(game, seat)
        assert [e["seq"] for e in feed] == [e["seq"] for e in operator]
        assert [e["type"] for e in feed] == [e["type"] for e in operator]
        by_type = {e["type"]: e for e in feed}
        assert by_type["GameCreated"]["data"].get("deals") is None
        assert by_type["GameCreated"]["data"].get("seed") is None
        hands = by_type["RoundDealt"]["data"]["hands"]
        assert sorted(hands[seat]) == sorted(deal["hands"][seat])
        assert all(h is None for s, h in enumerate(hands) if s != seat)
        for e in feed:
            if e["type"] == "CardsPassed":
                if e["data"]["seat"] == seat:
                    assert e["data"]["cards"] == PASSES_4P[seat]
                else:
                    assert e["data"]["cards"] is None
        # Only the cards the seat gave or received are visible in the exchange.
        others = {c for s, h in enumerate(deal["hands"]) if s != seat for c in h}
        seen = set(PASSES_4P[(seat + 2) % 4])
        _hidden_cards_absent(json.dumps(feed), others - seen)


def test_the_feed_pages_with_after_limit_and_next_after(api: Api) -> None:
    game = start_playing(api)
    total = api.public(game.id)["version"]
    for headers in (OPERATOR, game.seat_headers(1)):
        seqs: list[int] = []
        after = 0
        pages = 0
        while True:
            page = _page(api, game.id, f"?after={after}&limit=3", headers)
            pages += 1
            assert len(page["events"]) <= 3
            seqs.extend(e["seq"] for e in page["events"])
            if page["next_after"] is None:
                break
            assert page["next_after"] == page["events"][-1]["seq"]
            after = page["next_after"]
        assert seqs == list(range(1, total + 1))
        assert pages == -(-total // 3)
    middle = _page(api, game.id, "?after=4&limit=2", OPERATOR)
    assert [e["seq"] for e in middle["events"]] == [5, 6]
    assert middle["next_after"] == 6
    tail = _page(api, game.id, f"?after={total}", OPERATOR)
    assert tail["events"] == []
    assert tail["next_after"] is None
    beyond = _page(api, game.id, f"?after={total + 50}", OPERATOR)
    assert beyond["events"] == []
    assert beyond["next_after"] is None


def test_the_feed_has_an_etag_of_the_version(api: Api) -> None:
    game = start_ordered(api)
    r = api.get(f"/v1/games/{game.id}/events", **OPERATOR)
    assert r.status_code == 200
    assert r.headers["ETag"] == f'"{api.public(game.id)["version"]}"'


@pytest.mark.parametrize(
    "query",
    ["?after=-1", "?limit=0", "?limit=-5", "?limit=100000", "?after=99999999999999999999",
     "?after=abc", "?limit=ten", "?after=1.5", "?after=", "?limit=1e3"],
)  # fmt: skip
def test_invalid_feed_queries_are_422(api: Api, query: str) -> None:
    game = start_ordered(api)
    assert_problem(api.get(f"/v1/games/{game.id}/events{query}", **OPERATOR), 422)
    assert_problem(api.get(f"/v1/games/{game.id}/events{query}", **game.seat_headers(0)), 422)


def test_a_seat_token_of_a_waiting_game_reads_the_feed(api: Api) -> None:
    game_id = api.create(4)["id"]
    token = api.join(game_id, 3, "Kai")
    r = api.get(f"/v1/games/{game_id}/events", **bearer(token))
    assert r.status_code == 200
    events = r.get_json()["events"]
    assert [e["type"] for e in events] == ["GameCreated", "SeatJoined"]
    data = events[1]["data"]
    # A fair game (no operator seed): the seat's client seed was drawn (docs/fairness.md).
    assert data == {"seat": 3, "name": "Kai", "client_seed": data["client_seed"]}
    assert len(data["client_seed"]) == 32


def test_a_waiting_seat_sees_an_empty_hand_and_no_action(api: Api) -> None:
    game_id = api.create(4)["id"]
    token = api.join(game_id, 1, "Ōkami 🦊")
    r = api.get(f"/v1/games/{game_id}/view", **bearer(token))
    assert r.status_code == 200
    view = r.get_json()
    assert (view["seat"], view["status"], view["round"]) == (1, "waiting", None)
    assert (view["hand"], view["legal"], view["action"], view["pass"]) == ([], [], None, None)
    assert view["seats"][1]["name"] == "Ōkami 🦊"


def test_the_feed_records_when_each_event_happened(api: Api) -> None:
    game = start_ordered(api)
    stamps = [datetime.fromisoformat(e["recorded_at"]) for e in api.feed(game, None)]
    assert all(s.tzinfo is not None for s in stamps)
    assert stamps == sorted(stamps)


def test_finished_rounds_stay_in_the_view_and_a_finished_game_refuses_commands(
    api: Api,
) -> None:
    game = api.start(3, seed=2024)
    first_round_seen = False
    for _ in api.play_out(game, random.Random(11)):
        public = api.public(game.id)
        if public["rounds"] and not first_round_seen:
            first_round_seen = True
            if public["status"] != "finished":
                # The next round is dealt at once.
                assert public["status"] == "passing"
                assert public["round"]["number"] == 2
                assert [s["hand_size"] for s in public["seats"]] == [16, 16, 16]
    public = api.public(game.id)
    assert first_round_seen
    assert public["status"] == "finished"
    assert public["winner"]
    assert max(public["scores"]) >= 2
    assert public["round"] is None or public["round"]["turn"] is None
    for number, result in enumerate(public["rounds"], start=1):
        assert result["number"] == number
        assert result["reason"] in ("bosses", "seven_tricks", "last_trick")
        assert {"trump", "winners", "points", "bosses_scored"} <= set(result)
        assert len(result["points"]) == 3
    assert [sum(r["points"][s] for r in public["rounds"]) for s in range(3)] == public["scores"]
    view = api.view(game, 0)
    assert (view["action"], view["legal"]) == (None, [])
    hand = view["hand"]
    card = hand[0] if hand else "green-1"
    before = public["version"]
    assert_problem(api.play(game, 0, card), 409, "wrong_phase")
    assert_problem(api.pass_cards(game, 0, ["green-1", "green-2", "green-3"]), 409, "wrong_phase")
    assert api.public(game.id)["version"] == before
    finished = api.get("/v1/games?status=finished&limit=100", **OPERATOR).get_json()["games"]
    assert game.id in {g["id"] for g in finished}


SF_PASSES: dict[int, list[str]] = {  # in target order: seat+1, seat+2, seat+3
    0: ["purple-2", "purple-3", "purple-4"],
    1: ["yellow-4", "yellow-5", "yellow-6"],
    2: ["red-6", "black-5", "black-6"],
    3: ["blue-8", "blue-9", "blue-10"],
}


def test_the_seven_followers_view_and_feed(api: Api) -> None:
    deal = ordered_deal(4, seven_followers=True)
    game = api.start(4, variant="seven_followers", deals=[deal])
    public = api.public(game.id)
    assert public["variant"] == "seven_followers"
    assert [s["hand_size"] for s in public["seats"]] == [14] * 4
    assert (public["round"]["trump"], public["round"]["trump_suit"]) == (None, None)
    assert public["seals"] == [[], []]
    for seat, cards in SF_PASSES.items():
        r = api.pass_cards(game, seat, cards)
        assert r.status_code == 200, r.get_json()
    # One card to each other seat, in target order.
    received: dict[int, list[str]] = {s: [] for s in range(4)}
    for giver, cards in SF_PASSES.items():
        for offset, c in enumerate(cards, start=1):
            received[(giver + offset) % 4].append(c)
    for seat in range(4):
        view = api.view(game, seat)
        assert view["pass"]["given"] == SF_PASSES[seat]
        assert sorted(view["pass"]["received"]) == sorted(received[seat])
        assert set(received[seat]) <= set(view["hand"])
        assert not set(SF_PASSES[seat]) & set(view["hand"])
    public = api.public(game.id)
    assert public["status"] == "playing"
    assert public["round"]["turn"] == 0  # seat 0 kept the A
    assert public["round"]["trump_suit"] is None
    assert api.play(game, 0, "green-3").status_code == 200
    assert api.public(game.id)["round"]["trump_suit"] == "green"
    assert api.public(game.id)["round"]["trump"] is None
    # Seat 0's feed shows only the passed cards it gave or received.
    exchanged = next(e for e in api.feed(game, 0) if e["type"] == "PassesExchanged")
    for p in exchanged["data"]["passes"]:
        if 0 in (p["from"], p["to"]):
            assert p["card"] == SF_PASSES[p["from"]][(p["to"] - p["from"]) % 4 - 1]
        else:
            assert p["card"] is None


def test_a_three_player_feed_hides_the_pass_between_the_others(api: Api) -> None:
    game = start_ordered(api, 3)
    passes = {
        0: ["purple-2", "purple-3", "purple-4"],
        1: ["pink-5", "pink-6", "pink-7"],
        2: ["red-6", "red-7", "red-8"],
    }
    for seat, cards in passes.items():
        assert api.pass_cards(game, seat, cards).status_code == 200
    for seat in range(3):
        exchanged = next(e for e in api.feed(game, seat) if e["type"] == "PassesExchanged")
        for p in exchanged["data"]["passes"]:
            assert p["to"] == (p["from"] + 1) % 3
            if seat in (p["from"], p["to"]):
                assert p["card"] in passes[p["from"]]
            else:
                assert p["card"] is None
    complete = next(e for e in api.feed(game, None) if e["type"] == "PassesExchanged")
    assert all(p["card"] in passes[p["from"]] for p in complete["data"]["passes"])
