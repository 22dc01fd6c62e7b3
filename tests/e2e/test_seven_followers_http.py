"""The Seven Followers variants end to end through HTTP (docs/rules.md R-7, docs/api.md)."""

from __future__ import annotations

from typing import Any

import pytest

from service.rules import Suit
from tests.rules.sf_builders import ScriptedRound, SuitPlan, scripted_round
from tests.support.api import OPERATOR, Api, Game

SUIT_ORDER = [s.value for s in Suit]


def _plan(sealer: list[int]) -> list[SuitPlan]:
    """Every suit's two 7s go to seats of team ``sealer[i]`` (seats t and t + 2)."""
    return [(suit, team, team + 2) for suit, team in zip(Suit, sealer, strict=True)]


def _start(api: Api, variant: str, rounds: list[ScriptedRound]) -> Game:
    deals = [{"hands": [list(h) for h in r.dealt], "trump": None} for r in rounds]
    return api.start(4, variant=variant, deals=deals)


def _pass_all(api: Api, game: Game, rnd: ScriptedRound) -> None:
    for seat, given in enumerate(rnd.passes):
        r = api.pass_cards(game, seat, list(given))
        assert r.status_code == 200, r.get_json()


def _play_tricks(api: Api, game: Game, rnd: ScriptedRound, count: int) -> dict[str, Any]:
    """Play the round's first ``count`` tricks, each seat its scripted card in turn."""
    view: dict[str, Any] = {}
    for trick in rnd.tricks[:count]:
        for _ in range(4):
            seat = api.public(game.id)["round"]["turn"]
            r = api.play(game, seat, trick[seat])
            assert r.status_code == 200, r.get_json()
            view = r.get_json()
    return view


def test_R_7_2_R_7_4_the_round_starts_without_trump_and_passes_go_to_each_other_seat(
    api: Api,
) -> None:
    rnd = scripted_round(_plan([0] * 7))
    game = _start(api, "seven_followers", [rnd])
    view = api.view(game, 1)
    assert len(view["hand"]) == 14
    assert view["round"]["trump"] is None
    assert view["round"]["trump_suit"] is None
    assert view["seals"] == [[], []]

    r = api.pass_cards(game, 1, list(rnd.passes[1]))
    assert r.status_code == 200
    passed = r.get_json()["pass"]
    assert passed == {"given": list(rnd.passes[1]), "received": [None] * 3, "to": [2, 3, 0]}
    for seat in (0, 2, 3):
        assert api.pass_cards(game, seat, list(rnd.passes[seat])).status_code == 200

    after = api.view(game, 1)
    assert after["status"] == "playing"
    # Seat 1 receives one card from each other seat, the one each named for it.
    assert sorted(after["pass"]["received"]) == sorted(
        [rnd.passes[0][0], rnd.passes[2][2], rnd.passes[3][1]]
    )
    assert set(after["hand"]) == set(rnd.after_pass[1])
    # the holder of the A after the passes leads.
    assert after["round"]["leader"] == rnd.holder_of_a

    first_card = rnd.tricks[0][rnd.holder_of_a]
    leader = game.seat_headers(rnd.holder_of_a)
    r = api.client.post(f"/v1/games/{game.id}/play", json={"card": first_card}, headers=leader)
    assert r.status_code == 200
    assert r.get_json()["round"]["trump_suit"] == first_card.split("-")[0]


def test_R_7_2_seat_feeds_show_only_the_passed_cards_a_seat_gave_or_received(api: Api) -> None:
    rnd = scripted_round(_plan([0] * 7))
    game = _start(api, "seven_followers", [rnd])
    _pass_all(api, game, rnd)
    for seat in range(4):
        exchanged = [e for e in api.feed(game, seat) if e["type"] == "PassesExchanged"]
        assert len(exchanged) == 1
        for p in exchanged[0]["data"]["passes"]:
            visible = seat in (p["from"], p["to"])
            assert (p["card"] is not None) == visible, (seat, p)


def test_R_7_7_a_team_sealing_all_seven_suits_wins_through_http(api: Api) -> None:
    rnd = scripted_round(_plan([0] * 7))
    game = _start(api, "seven_followers", [rnd])
    _pass_all(api, game, rnd)
    view = _play_tricks(api, game, rnd, 14)

    assert view["status"] == "finished"
    assert view["winner"] == [0]
    assert view["seals"] == [SUIT_ORDER, []]
    assert view["scores"] == [7, 0]
    assert [r["reason"] for r in view["rounds"]] == ["sealed"]
    assert view["rounds"][0]["trump"] is None
    sealed = [e["data"] for e in api.feed(game, None) if e["type"] == "SuitSealed"]
    assert [s["suit"] for s in sealed] == SUIT_ORDER
    assert {s["team"] for s in sealed} == {0}


def test_R_7_8_short_variant_ends_mid_round_at_four_seals(api: Api) -> None:
    rnd = scripted_round(_plan([0] * 7))
    game = _start(api, "seven_followers_short", [rnd])
    _pass_all(api, game, rnd)
    view = _play_tricks(api, game, rnd, 8)

    assert view["status"] == "finished"
    assert view["winner"] == [0]
    assert view["scores"] == [4, 0]
    assert view["seals"] == [SUIT_ORDER[:4], []]
    assert view["rounds"][-1]["reason"] == "sealed"
    assert view["round"]["tricks_played"] == 8
    assert all(s["hand_size"] == 6 for s in view["seats"])
    r = api.play(game, 0, sorted(api.view(game, 0)["hand"])[0])
    assert r.status_code == 409
    assert r.get_json()["code"] == "wrong_phase"


def test_R_7_7_a_round_ends_after_fourteen_tricks_and_the_next_is_dealt(api: Api) -> None:
    first = scripted_round(_plan([0, 1, 0, 1, 0, 1, 0]))
    second = scripted_round(_plan([1, 1, 1, 1, 1, 1, 1]))
    game = _start(api, "seven_followers", [first, second])
    _pass_all(api, game, first)
    view = _play_tricks(api, game, first, 14)

    assert view["status"] == "passing"
    assert view["scores"] == [4, 3]
    assert view["seals"] == [
        [SUIT_ORDER[i] for i in (0, 2, 4, 6)],
        [SUIT_ORDER[i] for i in (1, 3, 5)],
    ]
    assert view["rounds"][0]["reason"] == "all_tricks"
    assert view["rounds"][0]["points"] == [4, 3]
    assert view["round"]["number"] == 2
    assert view["round"]["trump_suit"] is None
    assert len(view["hand"]) == 14

    # Round 2: team 1 seals all seven suits (R-7.6: seals last across rounds; both teams
    # may seal the same suit in the full variant).
    _pass_all(api, game, second)
    final = _play_tricks(api, game, second, 14)
    assert final["status"] == "finished"
    assert final["winner"] == [1]
    assert final["seals"][1] == SUIT_ORDER
    assert final["scores"] == [4, 7]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"players": 3, "variant": "seven_followers"}, "invalid_options"),
        ({"players": 3, "variant": "seven_followers_short"}, "invalid_options"),
        ({"players": 4, "variant": "seven_followers_long"}, "invalid_request"),
    ],
)
def test_R_7_seven_followers_is_for_four_players_only(
    api: Api, body: dict[str, Any], code: str
) -> None:
    r = api.client.post("/v1/games", json=body)
    assert r.status_code == 422
    assert r.get_json()["code"] == code


def test_R_7_2_operator_deals_for_the_variant_have_14_cards_each_and_no_trump(api: Api) -> None:
    rnd = scripted_round(_plan([0] * 7))
    hands = [list(h) for h in rnd.dealt]
    with_trump = {"hands": hands, "trump": "green-7b"}
    short_hands = {"hands": [h[:12] for h in hands], "trump": None}
    for deal in (with_trump, short_hands):
        r = api.client.post(
            "/v1/games",
            json={"players": 4, "variant": "seven_followers", "deals": [deal]},
            headers=OPERATOR,
        )
        assert r.status_code == 422, deal
        assert r.get_json()["code"] == "invalid_deal"
