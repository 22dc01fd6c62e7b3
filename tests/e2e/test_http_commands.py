"""The command endpoints of docs/api.md over HTTP: create, join, pass, play; their rule errors,
If-Match and Idempotency-Key. A rejected command never appends an event."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.deals import (
    HANDS_AFTER_PASS_4P,
    PASSES_4P,
    assert_problem,
    event_count,
    ordered_deal,
    start_ordered,
    start_playing,
    version,
)

# --- POST /v1/games -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "scoring", "variant"),
    [(4, "basic", "standard"), (3, "advanced", "standard"), (4, "basic", "seven_followers")],
)
def test_create_returns_201_with_the_public_view_location_and_etag(
    api: Api, players: int, scoring: str, variant: str
) -> None:
    r = api.post("/v1/games", {"players": players, "scoring": scoring, "variant": variant})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert r.headers["ETag"] == '"1"'
    assert r.headers["Location"].endswith(f"/v1/games/{body['id']}")
    assert uuid.UUID(body["id"])
    assert body["version"] == 1
    assert (body["players"], body["scoring"], body["variant"]) == (players, scoring, variant)
    assert body["status"] == "waiting"
    assert body["round"] is None
    assert body["rounds"] == []
    assert body["winner"] is None
    assert len(body["scores"]) == (2 if players == 4 else 3)
    assert all(score == 0 for score in body["scores"])
    teams = [0, 1, 0, 1] if players == 4 else [None, None, None]
    assert [s["seat"] for s in body["seats"]] == list(range(players))
    assert [s["team"] for s in body["seats"]] == teams
    for seat in body["seats"]:
        assert seat["joined"] is False
        assert seat["name"] is None
        assert seat["passed"] is False
        assert seat["hand_size"] == 0
        assert seat["tricks_won"] == 0
        assert seat["bosses"] == []
    # The Location names the game: a GET there gives the same view.
    again = api.get(r.headers["Location"].removeprefix("http://localhost"))
    assert again.status_code == 200
    assert again.get_json() == body


def test_the_operator_may_create_with_a_seed_and_with_deals(api: Api) -> None:
    r = api.post("/v1/games", {"players": 4, "seed": 12345}, **OPERATOR)
    assert r.status_code == 201, r.get_json()
    deal = ordered_deal(3)
    r = api.post("/v1/games", {"players": 3, "deals": [deal, deal]}, **OPERATOR)
    assert r.status_code == 201, r.get_json()


def _deal_with(**changes: Any) -> dict[str, Any]:
    deal = ordered_deal(4)
    deal.update(changes)
    return deal


def _swap_first(card: str) -> dict[str, Any]:
    deal = ordered_deal(4)
    deal["hands"][0][0] = card
    return deal


@pytest.mark.parametrize(
    ("deal", "code"),
    [
        (_deal_with(hands=ordered_deal(4)["hands"][:3]), "invalid_deal"),  # 3 hands for 4 seats
        (_deal_with(trump="green-1"), "invalid_deal"),  # green-1 twice, blue-13 nowhere
        (_deal_with(trump=None), "invalid_deal"),  # a standard round needs a trump card
        (_swap_first("green-2"), "invalid_deal"),  # a duplicate card
        (_swap_first("green-7b"), None),  # not a card of the standard deck
        (_deal_with(hands=[h[:11] for h in ordered_deal(4)["hands"]]), "invalid_deal"),
        (_swap_first("green-99"), "unknown_card"),
        (_swap_first("orange-3"), "unknown_card"),
        (_deal_with(trump="blue-14"), "unknown_card"),
    ],
)
def test_invalid_deals_are_refused_with_422(
    api: Api, deal: dict[str, Any], code: str | None
) -> None:
    r = api.post("/v1/games", {"players": 4, "deals": [deal]}, **OPERATOR)
    assert_problem(r, 422, code)


def test_a_later_invalid_deal_is_refused_too(api: Api) -> None:
    r = api.post(
        "/v1/games",
        {"players": 4, "deals": [ordered_deal(4), _swap_first("green-2")]},
        **OPERATOR,
    )
    assert_problem(r, 422, "invalid_deal")


def test_a_seven_followers_deal_has_no_trump_card(api: Api) -> None:
    body = {"players": 4, "variant": "seven_followers"}
    good = ordered_deal(4, seven_followers=True)
    assert api.post("/v1/games", {**body, "deals": [good]}, **OPERATOR).status_code == 201
    # A standard deal (49 cards, a trump card) is not a Seven Followers deal.
    r = api.post("/v1/games", {**body, "deals": [ordered_deal(4)]}, **OPERATOR)
    assert_problem(r, 422, "invalid_deal")


@pytest.mark.parametrize(
    "body",
    [
        {"players": 5},
        {"players": 2},
        {"players": 0},
        {"players": -4},
        {"players": 2**80},
        {"players": "4"},
        {"players": True},
        {"players": 4.5},
        {"players": None},
        {"players": [4]},
        {},
        {"scoring": "basic"},
        {"players": 4, "scoring": "expert"},
        {"players": 4, "scoring": 1},
        {"players": 4, "variant": "jokers"},
        {"players": 3, "variant": "seven_followers"},
        {"players": 3, "variant": "seven_followers_short"},
        {"players": 4, "colour": "red"},
        {"players": 4, "Players": 4},
        {"players": 4, "seed": None, "deals": None, "extra": 1},
    ],
)
def test_invalid_create_bodies_are_422(api: Api, body: dict[str, Any]) -> None:
    assert_problem(api.post("/v1/games", body), 422)


@pytest.mark.parametrize(
    "extra",
    [
        {"seed": -1},
        {"seed": 2**64},
        {"seed": "7"},
        {"seed": 1.5},
        {"deals": []},
        {"deals": "ordered"},
        {"deals": [{"hands": ordered_deal(4)["hands"]}]},
        {"deals": [{"trump": "blue-13"}]},
        {"deals": [{**ordered_deal(4), "extra": 1}]},
        {"deals": [{"hands": "abc", "trump": "blue-13"}]},
        {"deals": [{"hands": [[1, 2]] * 4, "trump": "blue-13"}]},
        {"deals": [{"hands": [[]] * 9, "trump": "blue-13"}]},
    ],
)
def test_invalid_seeds_and_deals_of_an_operator_are_422(api: Api, extra: dict[str, Any]) -> None:
    assert_problem(api.post("/v1/games", {"players": 4, **extra}, **OPERATOR), 422)


@pytest.mark.parametrize("raw", ["[1, 2]", '"players"', "4", "null", "true"])
def test_a_json_body_that_is_not_an_object_is_422(api: Api, raw: str) -> None:
    r = api.client.post("/v1/games", data=raw, content_type="application/json")
    assert_problem(r, 422)


# --- POST /v1/games/{id}/seats/{seat} -------------------------------------------------


def test_join_returns_201_with_the_seat_and_a_token(api: Api) -> None:
    game_id = api.create(4)["id"]
    r = api.post(f"/v1/games/{game_id}/seats/2", {"name": "Aiko"})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["seat"] == 2
    assert isinstance(body["token"], str) and len(body["token"]) >= 16
    seat = api.public(game_id)["seats"][2]
    assert (seat["joined"], seat["name"]) == (True, "Aiko")
    assert api.public(game_id)["status"] == "waiting"
    # The token opens that seat's view.
    view = api.get(f"/v1/games/{game_id}/view", **bearer(body["token"]))
    assert view.status_code == 200
    assert view.get_json()["seat"] == 2


def test_each_join_gets_its_own_token(api: Api) -> None:
    game = api.start(4)
    assert len(set(game.tokens)) == 4
    for seat in range(4):
        assert api.view(game, seat)["seat"] == seat


def test_a_taken_seat_is_409_seat_taken(api: Api) -> None:
    game_id = api.create(3)["id"]
    api.join(game_id, 1)
    before = api.public(game_id)["version"]
    assert_problem(api.post(f"/v1/games/{game_id}/seats/1", {"name": "late"}), 409, "seat_taken")
    assert api.public(game_id)["version"] == before
    assert api.public(game_id)["seats"][1]["name"] == "player 1"


def test_joining_a_started_game_is_409(api: Api) -> None:
    game = api.start(3)
    assert_problem(api.post(f"/v1/games/{game.id}/seats/0", {"name": "late"}), 409, "seat_taken")


@pytest.mark.parametrize(("players", "hand"), [(4, 12), (3, 16)])
def test_the_round_is_dealt_when_the_last_seat_fills(api: Api, players: int, hand: int) -> None:
    game_id = api.create(players)["id"]
    for seat in range(players - 1):
        api.join(game_id, seat)
        public = api.public(game_id)
        assert public["status"] == "waiting"
        assert public["round"] is None
    api.join(game_id, players - 1)
    public = api.public(game_id)
    assert public["status"] == "passing"
    assert public["round"]["number"] == 1
    assert public["round"]["turn"] is None
    assert isinstance(public["round"]["trump"], str)
    assert public["round"]["trump_suit"] == public["round"]["trump"].split("-")[0]
    assert [s["hand_size"] for s in public["seats"]] == [hand] * players
    state = api.state(game_id)
    assert [len(h) for h in state["hands"]] == [hand] * players


def test_join_of_an_unknown_game_is_404(api: Api) -> None:
    assert_problem(api.post(f"/v1/games/{uuid.uuid4()}/seats/0", {"name": "x"}), 404)


@pytest.mark.parametrize("seat", ["3", "4", "99", "99999999999999999999", "-1", "x"])
def test_join_of_a_seat_the_game_does_not_have_is_404(api: Api, seat: str) -> None:
    game_id = api.create(3)["id"]
    assert_problem(api.post(f"/v1/games/{game_id}/seats/{seat}", {"name": "x"}), 404)
    assert api.public(game_id)["version"] == 1


@pytest.mark.parametrize("game_id", ["abc", "..%2Fx", "%2E%2E", "x" * 5000, "0" * 36, "1.5"])
def test_join_of_a_malformed_game_id_is_404(api: Api, game_id: str) -> None:
    assert_problem(api.post(f"/v1/games/{game_id}/seats/0", {"name": "x"}), 404)


@pytest.mark.parametrize(
    "body",
    [{}, {"name": ""}, {"name": "   "}, {"name": None}, {"name": 7}, {"name": "x" * 41},
     {"name": "bad\x00name"}, {"name": "tab\tname"}, {"name": "x", "extra": 1}, ["x"]],
)  # fmt: skip
def test_invalid_join_bodies_are_422(api: Api, body: Any) -> None:
    game_id = api.create(4)["id"]
    assert_problem(api.post(f"/v1/games/{game_id}/seats/0", body), 422)
    assert api.public(game_id)["seats"][0]["joined"] is False


# --- POST /pass -----------------------------------------------------------------------


def test_pass_returns_200_with_the_seat_view(api: Api) -> None:
    game = start_ordered(api)
    r = api.pass_cards(game, 0, PASSES_4P[0])
    assert r.status_code == 200, r.get_json()
    view = r.get_json()
    assert view["seat"] == 0
    assert view["id"] == game.id
    assert r.headers["ETag"] == f'"{view["version"]}"'
    assert view["version"] == version(api, game)
    assert view["pass"]["given"] == PASSES_4P[0]
    assert view["pass"]["received"] == [None, None, None]
    assert view["action"] is None
    assert view["legal"] == []
    assert view["seats"][0]["passed"] is True
    assert view["status"] == "passing"


def test_after_every_pass_the_cards_are_exchanged_and_the_a_holder_leads(api: Api) -> None:
    game = start_playing(api)
    for seat in range(4):
        view = api.view(game, seat)
        assert set(view["hand"]) == HANDS_AFTER_PASS_4P[seat]
        assert view["pass"]["given"] == PASSES_4P[seat]
        assert sorted(view["pass"]["received"]) == sorted(PASSES_4P[(seat + 2) % 4])
    public = api.public(game.id)
    assert public["status"] == "playing"
    assert public["round"]["turn"] == 0
    assert public["round"]["leader"] == 0


def test_a_pass_of_a_card_not_in_hand_is_409(api: Api) -> None:
    game = start_ordered(api)
    before = event_count(api, game)
    r = api.pass_cards(game, 0, ["green-1", "green-2", "blue-13"])
    assert_problem(r, 409, "card_not_in_hand")
    r = api.pass_cards(game, 0, ["green-1", "green-2", "red-7"])
    assert_problem(r, 409, "card_not_in_hand")
    assert event_count(api, game) == before
    assert api.view(game, 0)["pass"] is None


@pytest.mark.parametrize(
    "cards",
    [
        ["green-1", "green-2"],
        ["green-1", "green-2", "green-3", "green-4"],
        ["green-1", "green-1", "green-2"],
        ["green-1", "green-1", "green-1"],
        [],
    ],
)
def test_a_pass_of_other_than_three_distinct_cards_is_422(api: Api, cards: list[str]) -> None:
    game = start_ordered(api)
    before = event_count(api, game)
    assert_problem(api.pass_cards(game, 0, cards), 422, "invalid_pass")
    assert event_count(api, game) == before


@pytest.mark.parametrize(
    "cards", [["green-1", "green-2", "green-99"], ["green-1", "green-2", "green-7b"]]
)
def test_a_pass_with_an_unknown_card_is_422_unknown_card(api: Api, cards: list[str]) -> None:
    game = start_ordered(api)
    before = event_count(api, game)
    assert_problem(api.pass_cards(game, 0, cards), 422, "unknown_card")
    assert event_count(api, game) == before


@pytest.mark.parametrize(
    "body",
    [{}, {"cards": "green-1"}, {"cards": None}, {"cards": [1, 2, 3]},
     {"cards": ["green-1", None, "green-2"]}, {"cards": ["green-1", "green-2", ""]},
     {"cards": ["green-1", "green-2", "green-3"], "to": 2}, {"card": "green-1"}],
)  # fmt: skip
def test_invalid_pass_bodies_are_422(api: Api, body: dict[str, Any]) -> None:
    game = start_ordered(api)
    r = api.client.post(f"/v1/games/{game.id}/pass", json=body, headers=game.seat_headers(0))
    assert_problem(r, 422)
    assert api.view(game, 0)["pass"] is None


def test_a_second_pass_is_409_already_passed(api: Api) -> None:
    game = start_ordered(api)
    assert api.pass_cards(game, 0, PASSES_4P[0]).status_code == 200
    before = event_count(api, game)
    assert_problem(api.pass_cards(game, 0, PASSES_4P[0]), 409, "already_passed")
    assert_problem(api.pass_cards(game, 0, ["green-1", "green-2", "green-3"]), 409)
    assert event_count(api, game) == before
    assert api.view(game, 0)["pass"]["given"] == PASSES_4P[0]


def test_a_pass_while_playing_is_409_wrong_phase(api: Api) -> None:
    game = start_playing(api)
    before = event_count(api, game)
    assert_problem(api.pass_cards(game, 0, ["green-2", "green-3", "green-4"]), 409, "wrong_phase")
    assert event_count(api, game) == before


def test_a_pass_or_play_while_waiting_for_players_is_409_wrong_phase(api: Api) -> None:
    game_id = api.create(4)["id"]
    game = Game(game_id, 4, [api.join(game_id, 0)])
    assert_problem(api.pass_cards(game, 0, ["green-1", "green-2", "green-3"]), 409, "wrong_phase")
    assert_problem(api.play(game, 0, "green-1"), 409, "wrong_phase")
    assert api.public(game_id)["version"] == 2


def test_commands_on_an_unknown_game_are_refused(api: Api) -> None:
    game = api.start(4)
    unknown = f"/v1/games/{uuid.uuid4()}"
    r = api.post(f"{unknown}/pass", {"cards": ["green-1", "green-2", "green-3"]}, **OPERATOR)
    assert r.status_code in (403, 404)  # an operator may not pass; either refusal is fine
    assert_problem(api.post("/v1/games/abc/play", {"card": "green-1"}, **OPERATOR), 404)
    seat = game.seat_headers(0)
    # A seat token of another game names no seat of the unknown game.
    r = api.post(f"{unknown}/play", {"card": "green-1"}, **seat)
    assert r.status_code in (403, 404)
    assert r.mimetype == "application/problem+json"


# --- POST /play -----------------------------------------------------------------------


def test_play_returns_200_with_the_seat_view(api: Api) -> None:
    game = start_playing(api)
    before = version(api, game)
    r = api.play(game, 0, "purple-2")
    assert r.status_code == 200, r.get_json()
    view = r.get_json()
    assert view["seat"] == 0
    assert "purple-2" not in view["hand"]
    assert len(view["hand"]) == 11
    assert view["round"]["trick"] == [{"seat": 0, "card": "purple-2"}]
    assert view["round"]["turn"] == 1
    assert view["action"] is None
    assert view["version"] == before + 1
    assert r.headers["ETag"] == f'"{before + 1}"'
    seat1 = api.view(game, 1)
    assert seat1["action"] == "play"
    assert sorted(seat1["legal"]) == ["purple-7", "purple-8"]


def test_a_play_out_of_turn_is_409_not_your_turn(api: Api) -> None:
    game = start_playing(api)
    before = event_count(api, game)
    assert_problem(api.play(game, 2, "yellow-7"), 409, "not_your_turn")
    assert_problem(api.play(game, 1, "purple-7"), 409, "not_your_turn")
    assert event_count(api, game) == before
    assert api.play(game, 0, "purple-2").status_code == 200
    assert_problem(api.play(game, 0, "green-2"), 409, "not_your_turn")
    assert_problem(api.play(game, 2, "purple-4"), 409, "not_your_turn")


def test_a_play_of_another_suit_while_holding_the_led_suit_is_409(api: Api) -> None:
    game = start_playing(api)
    assert api.play(game, 0, "purple-2").status_code == 200
    before = event_count(api, game)
    assert_problem(api.play(game, 1, "pink-3"), 409, "must_follow_suit")
    assert_problem(api.play(game, 1, "red-12"), 409, "must_follow_suit")
    assert event_count(api, game) == before
    assert api.play(game, 1, "purple-8").status_code == 200


def test_a_void_seat_may_discard_and_the_a_wins_the_trick(api: Api) -> None:
    game = start_playing(api)
    for seat, card in [(0, "purple-2"), (1, "purple-7"), (2, "purple-6")]:
        assert api.play(game, seat, card).status_code == 200, (seat, card)
    # Seat 3 holds no purple: any card.
    assert sorted(api.view(game, 3)["legal"]) == sorted(HANDS_AFTER_PASS_4P[3])
    assert api.play(game, 3, "blue-7").status_code == 200
    last = api.public(game.id)["round"]["last_trick"]
    assert last["winner"] == 3  # the only trump
    assert [c["card"] for c in last["cards"]] == ["purple-2", "purple-7", "purple-6", "blue-7"]
    assert api.public(game.id)["round"]["turn"] == 3


def test_a_play_of_a_card_not_in_hand_is_409(api: Api) -> None:
    game = start_playing(api)
    before = event_count(api, game)
    assert_problem(api.play(game, 0, "blue-13"), 409, "card_not_in_hand")  # the trump card
    assert_problem(api.play(game, 0, "purple-4"), 409, "card_not_in_hand")  # passed away
    assert_problem(api.play(game, 0, "pink-3"), 409, "card_not_in_hand")
    assert event_count(api, game) == before


@pytest.mark.parametrize("card", ["green-99", "green-7b", "green-0", "GREEN-1", "joker", "x" * 16])
def test_a_play_of_an_unknown_card_is_422_unknown_card(api: Api, card: str) -> None:
    game = start_playing(api)
    before = event_count(api, game)
    assert_problem(api.play(game, 0, card), 422, "unknown_card")
    assert event_count(api, game) == before


@pytest.mark.parametrize(
    "body",
    [{}, {"card": None}, {"card": 7}, {"card": ["green-1"]}, {"card": ""},
     {"card": "x" * 1000}, {"card": "green-1", "seat": 0}, {"cards": ["green-1"]}],
)  # fmt: skip
def test_invalid_play_bodies_are_422(api: Api, body: dict[str, Any]) -> None:
    game = start_playing(api)
    before = event_count(api, game)
    r = api.client.post(f"/v1/games/{game.id}/play", json=body, headers=game.seat_headers(0))
    assert_problem(r, 422)
    assert event_count(api, game) == before


def test_a_play_while_passing_is_409_wrong_phase(api: Api) -> None:
    game = start_ordered(api)
    before = event_count(api, game)
    assert_problem(api.play(game, 0, "green-1"), 409, "wrong_phase")
    assert event_count(api, game) == before


def test_seven_followers_card_ids_are_accepted_in_that_variant(api: Api) -> None:
    deal = ordered_deal(4, seven_followers=True)
    game = api.start(4, variant="seven_followers", deals=[deal])
    assert "green-7b" in api.view(game, 0)["hand"]
    r = api.pass_cards(game, 0, ["green-7b", "green-1", "green-2"])
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["pass"]["given"] == ["green-7b", "green-1", "green-2"]


# --- If-Match -------------------------------------------------------------------------


def test_if_match_with_a_stale_version_is_412(api: Api) -> None:
    game = start_playing(api)
    current = version(api, game)
    before = event_count(api, game)
    r = api.play(game, 0, "purple-2", If_Match=f'"{current - 1}"')
    assert_problem(r, 412, "stale_version")
    assert event_count(api, game) == before
    assert_problem(api.play(game, 0, "purple-2", If_Match='"1"'), 412, "stale_version")
    assert version(api, game) == current


def test_if_match_with_the_current_version_succeeds(api: Api) -> None:
    game = start_playing(api)
    current = version(api, game)
    r = api.play(game, 0, "purple-2", If_Match=f'"{current}"')
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["version"] == current + 1
    # The version used a moment ago is stale now.
    assert_problem(api.play(game, 1, "purple-8", If_Match=f'"{current}"'), 412, "stale_version")
    r = api.play(game, 1, "purple-8", If_Match=r.headers["ETag"])
    assert r.status_code == 200, r.get_json()


def test_if_match_star_succeeds(api: Api) -> None:
    game = start_ordered(api)
    r = api.pass_cards(game, 0, PASSES_4P[0], If_Match="*")
    assert r.status_code == 200, r.get_json()


def test_if_match_on_pass_and_join(api: Api) -> None:
    game = start_ordered(api)
    assert_problem(api.pass_cards(game, 1, PASSES_4P[1], If_Match='"2"'), 412, "stale_version")
    assert api.view(game, 1)["pass"] is None
    game_id = api.create(4)["id"]
    r = api.post(f"/v1/games/{game_id}/seats/0", {"name": "x"}, If_Match='"7"')
    assert_problem(r, 412, "stale_version")
    assert api.public(game_id)["version"] == 1
    r = api.post(f"/v1/games/{game_id}/seats/0", {"name": "x"}, If_Match='"1"')
    assert r.status_code == 201


def _contract_allows(if_match: str) -> bool:
    """Whether the contract's pattern allows the header's value (as HTTP reads it: the
    spaces around it are no part of it)."""
    spec = yaml.safe_load(
        (Path(__file__).resolve().parents[2] / "openapi/openapi.yaml").read_text()
    )
    play = spec["paths"]["/v1/games/{game_id}/play"]["post"]
    (header,) = [p for p in play["parameters"] if p["name"] == "If-Match"]
    return bool(re.fullmatch(header["schema"]["pattern"], if_match.strip(" \t")))


@pytest.mark.parametrize(
    "value",
    ["ZQ&4Qq\t8T&7H", "garbage", "1", '"1', '"1" "2"', '"a b"', 'w/"1"', "W/1", '*, "1"', "**"],
)
def test_an_if_match_that_is_no_entity_tag_is_400_as_the_contract_says(
    api: Api, value: str
) -> None:
    """Issue 27: the contract's pattern refuses these, yet the service answered 412
    `stale_version`, as if the game had moved on (and a client retrying with the same
    header would meet it forever). Not `*` nor a list of entity tags (RFC 9110 13.1.1):
    400 `invalid_if_match`, and nothing is done."""
    assert not _contract_allows(value)
    game = start_ordered(api)
    before = event_count(api, game)
    assert_problem(api.pass_cards(game, 0, PASSES_4P[0], If_Match=value), 400, "invalid_if_match")
    assert event_count(api, game) == before
    r = api.post(f"/v1/games/{game.id}/leave", If_Match=value, **game.seat_headers(0))
    assert_problem(r, 400, "invalid_if_match")


@pytest.mark.parametrize(
    "value",
    ['W/"5"', '"abc"', '"a,b"', '""', '"99999999999"', '"1", W/"5"', "", ' , "1" ,', '"\u00e9"'],
)
def test_an_entity_tag_naming_no_version_is_412_as_the_contract_says(api: Api, value: str) -> None:
    """Issue 27: a weak tag (If-Match compares strongly), a tag that is no version, an
    empty list: well-formed, and matching no version."""
    assert _contract_allows(value)
    game = start_ordered(api)
    r = api.pass_cards(game, 0, PASSES_4P[0], If_Match=value)
    assert_problem(r, 412, "stale_version")


def test_every_form_of_if_match_naming_the_version_acts(api: Api) -> None:
    game = start_ordered(api)
    for seat in range(4):
        current = version(api, game)
        value = ["*", f'"{current}"', f'W/"{current}", "0",\t"{current}"', f' "{current}" '][seat]
        assert _contract_allows(value)
        r = api.pass_cards(game, seat, PASSES_4P[seat], If_Match=value)
        assert r.status_code == 200, r.get_json()


# --- Idempotency-Key ------------------------------------------------------------------

# The header's format only; what a key does (replays, reuse, twins, restarts) is in
# tests/integration/test_idempotency.py, and who may call what in test_http_auth.py.


@pytest.mark.parametrize("key", ["has space", "x" * 300, "clé", "", "tab\tkey"])
def test_an_invalid_idempotency_key_is_400(api: Api, key: str) -> None:
    game = start_playing(api)
    before = event_count(api, game)
    assert_problem(api.play(game, 0, "purple-2", Idempotency_Key=key), 400)
    assert_problem(api.post("/v1/games", {"players": 4}, Idempotency_Key=key), 400)
    assert event_count(api, game) == before


def test_a_long_visible_ascii_key_is_accepted(api: Api) -> None:
    game = start_playing(api)
    r = api.play(game, 0, "purple-2", Idempotency_Key="k" * 200)
    assert r.status_code == 200, r.get_json()


def test_a_game_is_private_unless_created_public(api: Api) -> None:
    """Issue 29: `visibility` at creation; private (whoever has the link) by default."""
    assert api.public(api.create(3)["id"])["visibility"] == "private"
    public = api.create(4, visibility="public")
    assert public["visibility"] == "public" and api.public(public["id"])["visibility"] == "public"
    r = api.post("/v1/games", {"players": 3, "visibility": "secret"})
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_request")


def test_a_rated_game_seats_players_and_takes_no_seed(api: Api) -> None:
    """Issue 30: `rated` at creation; an anonymous join is 403 `players_only`; an operator's
    seed or deals are refused (422); the view says it is rated."""
    assert api.public(api.create(3)["id"])["rated"] is False
    rated = api.create(3, rated=True)
    assert rated["rated"] is True
    r = api.post(f"/v1/games/{rated['id']}/seats/0", {"name": "Anonymous"})
    assert (r.status_code, r.get_json()["code"]) == (403, "players_only")
    made = api.post("/v1/players", {"name": "Mio"}).get_json()
    r = api.post(f"/v1/games/{rated['id']}/seats/0", {}, **bearer(made["token"]))
    assert r.status_code == 201, r.get_json()
    assert api.public(rated["id"])["seats"][0]["name"] == "Mio"
    r = api.post("/v1/games", {"players": 3, "rated": True, "seed": 7}, **OPERATOR)
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_options")
