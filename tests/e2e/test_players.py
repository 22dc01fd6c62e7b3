"""Players (docs/api.md, Players and The inbox): one identity across games, a player token that
acts for the seats it holds, and the inbox of "my games, my turn"."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.deals import assert_problem

Sql = Callable[..., list[Any]]


def new_player(api: Api, name: str = "Mio") -> tuple[str, str]:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert body["name"] == name
    return body["id"], body["token"]


def join_as(api: Api, game_id: str, seat: int, token: str, **body: Any) -> Any:
    return api.post(f"/v1/games/{game_id}/seats/{seat}", body, **bearer(token))


def seated_game(api: Api, player_token: str, seat: int = 0, players: int = 4) -> Game:
    """A game whose ``seat`` is the player's and the other seats anonymous ones: started."""
    game = Game(api.create(players)["id"], players)
    for s in range(players):
        if s == seat:
            r = join_as(api, game.id, s, player_token)
            assert r.status_code == 201, r.get_json()
            game.tokens.append(r.get_json()["token"])
        else:
            game.tokens.append(api.join(game.id, s))
    return game


def inbox(api: Api, token: str, query: str = "") -> Any:
    r = api.get(f"/v1/me/games{query}", **bearer(token))
    assert r.status_code == 200, r.get_json()
    return r


# --- players ---------------------------------------------------------------------------


def test_a_player_is_created_with_a_token_shown_once_and_stored_hashed(api: Api, sql: Sql) -> None:
    player_id, token = new_player(api, "Aiko")
    me = api.get("/v1/me", **bearer(token))
    assert me.status_code == 200
    assert me.get_json() == {"id": player_id, "name": "Aiko"}
    (row,) = sql("SELECT token_sha256, via FROM player_tokens WHERE player_id = :p", p=player_id)
    assert row.token_sha256 == hashlib.sha256(token.encode()).hexdigest()
    assert row.via == "created"
    assert not sql("SELECT 1 FROM player_tokens WHERE token_sha256 = :t", t=token)


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": " "}, {"name": "x" * 41}])
def test_a_player_needs_a_printable_name(api: Api, body: dict[str, Any]) -> None:
    assert_problem(api.post("/v1/players", body), 422)


def test_me_is_for_player_tokens(api: Api) -> None:
    game = api.start(3)
    assert_problem(api.get("/v1/me"), 401, "missing_token")
    assert_problem(api.get("/v1/me", Authorization="Bearer made-up"), 401, "invalid_token")
    assert_problem(api.get("/v1/me", **game.seat_headers(0)), 403, "forbidden")
    assert_problem(api.get("/v1/me", **OPERATOR), 403, "forbidden")


# --- joining with a player token -------------------------------------------------------


def test_a_player_joins_under_their_name_and_their_token_acts_for_the_seat(
    api: Api,
) -> None:
    player_id, token = new_player(api, "Ren")
    game_id = api.create(4)["id"]
    r = join_as(api, game_id, 2, token)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["seat"] == 2
    seat_token = r.get_json()["token"]
    assert api.public(game_id)["seats"][2]["name"] == "Ren"

    for s in (0, 1, 3):
        api.join(game_id, s)
    by_player = api.get(f"/v1/games/{game_id}/view", **bearer(token)).get_json()
    by_seat = api.get(f"/v1/games/{game_id}/view", **bearer(seat_token)).get_json()
    assert by_player == by_seat
    assert by_player["seat"] == 2
    cards = by_player["legal"][:3]
    r = api.post(f"/v1/games/{game_id}/pass", {"cards": cards}, **bearer(token))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["pass"]["given"] == cards
    audit = api.get(f"/v1/games/{game_id}/audit?limit=1000", **OPERATOR).get_json()
    passed = [e for e in audit["events"] if e["type"] == "CardsPassed"]
    assert passed[-1]["actor"] == {"kind": "player", "seat": 2, "id": player_id}
    joined = [e for e in audit["events"] if e["type"] == "SeatJoined"]
    assert joined[0]["actor"] == {"kind": "player", "seat": 2, "id": player_id}
    # Its feed is the seat's feed.
    feed = api.get(f"/v1/games/{game_id}/events", **bearer(token)).get_json()
    assert feed == api.get(f"/v1/games/{game_id}/events", **bearer(seat_token)).get_json()


def test_a_player_may_give_another_name_for_a_seat(api: Api) -> None:
    _, token = new_player(api, "Ren")
    game_id = api.create(3)["id"]
    assert join_as(api, game_id, 0, token, name="Ren at table 3").status_code == 201
    assert api.public(game_id)["seats"][0]["name"] == "Ren at table 3"


def test_a_player_holds_one_seat_per_game(api: Api) -> None:
    _, token = new_player(api)
    game_id = api.create(4)["id"]
    assert join_as(api, game_id, 0, token).status_code == 201
    assert_problem(join_as(api, game_id, 1, token), 409, "already_seated")
    assert api.public(game_id)["seats"][1]["joined"] is False
    # Another game is another seat.
    assert join_as(api, api.create(4)["id"], 1, token).status_code == 201


def test_a_player_without_a_seat_in_a_game_may_not_act_there(api: Api) -> None:
    _, token = new_player(api)
    game = api.start(4)
    assert_problem(api.get(f"/v1/games/{game.id}/view", **bearer(token)), 403, "forbidden")
    r = api.post(f"/v1/games/{game.id}/play", {"card": "green-1"}, **bearer(token))
    assert_problem(r, 403, "forbidden")


def test_an_anonymous_join_still_needs_a_name(api: Api) -> None:
    game_id = api.create(4)["id"]
    assert_problem(api.post(f"/v1/games/{game_id}/seats/0", {}), 422, "name_required")


# --- the inbox -------------------------------------------------------------------------


def test_the_inbox_lists_my_games_where_i_must_act_first(api: Api) -> None:
    _, token = new_player(api)
    waiting = api.create(4)["id"]
    assert join_as(api, waiting, 3, token).status_code == 201
    acted = seated_game(api, token, seat=1)
    r = api.post(
        f"/v1/games/{acted.id}/pass",
        {"cards": api.view(acted, 1)["legal"][:3]},
        **bearer(token),
    )
    assert r.status_code == 200
    must_act = seated_game(api, token, seat=2)

    games = inbox(api, token).get_json()["games"]
    by_id = {g["game_id"]: g for g in games}
    assert set(by_id) == {waiting, acted.id, must_act.id}
    assert games[0]["game_id"] == must_act.id
    entry = by_id[must_act.id]
    assert entry["my_turn"] is True
    assert entry["action"] == "pass"
    assert entry["seat"] == 2
    assert entry["due_since"] is not None
    assert entry["deadline"] is None
    assert entry["status"] == "passing"
    assert entry["version"] == api.public(must_act.id)["version"]
    assert (entry["players"], entry["scoring"], entry["variant"]) == (4, "basic", "standard")
    assert by_id[acted.id]["my_turn"] is False and by_id[acted.id]["action"] is None
    assert by_id[acted.id]["due_since"] is None
    assert by_id[waiting]["status"] == "waiting"
    # The others: most recently updated first.
    rest = [g["game_id"] for g in games[1:]]
    stamps = [by_id[g]["updated_at"] for g in rest]
    assert stamps == sorted(stamps, reverse=True)


def test_the_longest_waiting_turn_comes_first(api: Api) -> None:
    _, token = new_player(api)
    first = seated_game(api, token, seat=0)
    second = seated_game(api, token, seat=0)
    # Another seat's move in the first game does not make my turn there any newer.
    r = api.pass_cards(first, 1, api.view(first, 1)["legal"][:3])
    assert r.status_code == 200
    games = inbox(api, token).get_json()["games"]
    assert [g["game_id"] for g in games[:2]] == [first.id, second.id]
    assert games[0]["version"] == api.public(first.id)["version"]


def test_the_inbox_follows_a_whole_game(api: Api) -> None:
    """After every command the entry is the game as it stands: version, status, whether
    I must act (and since when), scores, winner."""
    _, token = new_player(api)
    game = seated_game(api, token, seat=0, players=3)
    rng = random.Random(41)
    due_since = None
    for _ in api.play_out(game, rng):
        (entry,) = inbox(api, token, "?status=all").get_json()["games"]
        view = api.view(game, 0)
        assert entry["version"] == view["version"]
        assert entry["status"] == view["status"]
        assert entry["action"] == view["action"]
        assert entry["my_turn"] is (view["action"] is not None)
        assert entry["scores"] == view["scores"]
        if view["action"] is None:
            assert entry["due_since"] is None
        elif due_since is not None and entry["due_since"] != due_since:
            assert entry["due_since"] > due_since
        due_since = entry["due_since"]
    (entry,) = inbox(api, token, "?status=finished").get_json()["games"]
    assert entry["winner"] == api.public(game.id)["winner"]
    assert inbox(api, token).get_json()["games"] == []  # no longer active


def test_the_inbox_has_an_etag_and_answers_304_until_it_changes(api: Api) -> None:
    _, token = new_player(api)
    game = seated_game(api, token, seat=0)
    first = inbox(api, token)
    tag = first.headers["ETag"]
    again = api.get("/v1/me/games", If_None_Match=tag, **bearer(token))
    assert again.status_code == 304
    assert again.headers["ETag"] == tag
    assert api.pass_cards(game, 1, api.view(game, 1)["legal"][:3]).status_code == 200
    changed = api.get("/v1/me/games", If_None_Match=tag, **bearer(token))
    assert changed.status_code == 200
    assert changed.headers["ETag"] != tag


def test_the_inbox_pages_with_a_cursor_through_every_game_once(api: Api) -> None:
    _, token = new_player(api)
    mine = [seated_game(api, token, seat=i % 4).id for i in range(3)]
    for i in range(2):
        assert join_as(api, api.create(3)["id"], i, token).status_code == 201
    everything = [g["game_id"] for g in inbox(api, token, "?limit=100").get_json()["games"]]
    seen: list[str] = []
    cursor = None
    for _ in range(20):
        page = inbox(api, token, "?limit=2" + (f"&cursor={cursor}" if cursor else "")).get_json()
        assert len(page["games"]) <= 2
        seen += [g["game_id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == everything
    assert len(seen) == 5
    assert set(mine) <= set(seen)


def test_one_games_entry_is_asked_for_by_its_id(api: Api) -> None:
    """Issue 48: ``game`` answers one game's entry, none for a game the player holds no
    seat of (what a game page asks before the seat's view, which refuses them); an
    invitation's entry names who invites (their name as the page shows it)."""
    host_id, host = new_player(api, "Aiko")
    _, guest = new_player(api, "Bea")
    game = seated_game(api, host)
    mine = inbox(api, host, f"?status=all&game={game.id}").get_json()
    assert [(g["game_id"], g["invited_by"], g["rematch_of"]) for g in mine["games"]] == [
        (game.id, None, None)
    ]
    assert inbox(api, guest, f"?status=all&game={game.id}").get_json()["games"] == []
    guest_id = api.get("/v1/me", **bearer(guest)).get_json()["id"]
    invited = api.post("/v1/games", {"players": 3, "invite": [guest_id]}, **bearer(host))
    assert invited.status_code == 201, invited.get_json()
    query = f"?game={invited.get_json()['id']}"
    (entry,) = inbox(api, guest, query).get_json()["games"]
    assert (entry["invited"], entry["invited_by"]) == (True, {"player_id": host_id, "name": "Aiko"})
    assert_problem(api.get("/v1/me/games?game=short", **bearer(guest)), 422)
    assert_problem(api.get(f"/v1/me/games?game={'z' * 36}", **bearer(guest)), 404)


@pytest.mark.parametrize("query", ["?status=lost", "?limit=0", "?limit=101", "?cursor=!!"])
def test_invalid_inbox_queries_are_422(api: Api, query: str) -> None:
    _, token = new_player(api)
    assert_problem(api.get(f"/v1/me/games{query}", **bearer(token)), 422)


def test_the_inbox_is_for_player_tokens(api: Api) -> None:
    game = api.start(3)
    assert_problem(api.get("/v1/me/games"), 401, "missing_token")
    assert_problem(api.get("/v1/me/games", **game.seat_headers(0)), 403)
