"""Reputation and bans over HTTP (docs/api.md "Playing fair", issue 44): the score of
the profile in every path (a game finished holding the seat, left while running,
resigned, forfeited or played by a clock of the real worker), the bans that abandoning
rated or quick-play games brings and their doubling, an operator lifting one (in the
player's audit), seeks' ``min_reputation`` in the pairing, and ``yokai reputation
rebuild`` ending where the commands did."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

import pytest

from service.application.jobs.pairing import Pairing
from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.waiting import wait_for
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture: a database of the test's own


def new_player(api: Api, name: str) -> tuple[str, str]:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.get_json()["token"]


def seated(api: Api, tokens: list[str], **body: Any) -> Game:
    """A game of ``tokens``' players, each joined with their player token, seat by seat."""
    r = api.post("/v1/games", {"players": len(tokens), **body})
    assert r.status_code == 201, r.get_json()
    game = Game(r.get_json()["id"], len(tokens), list(tokens))
    for seat, token in enumerate(tokens):
        joined = api.post(f"/v1/games/{game.id}/seats/{seat}", {}, **bearer(token))
        assert joined.status_code == 201, joined.get_json()
    return game


def profile(api: Api, player_id: str) -> dict[str, Any]:
    r = api.get(f"/v1/players/{player_id}")
    assert r.status_code == 200, r.get_json()
    found: dict[str, Any] = r.get_json()
    return found


def reputation(api: Api, player_id: str) -> dict[str, int]:
    found: dict[str, int] = profile(api, player_id)["reputation"]
    return found


def act(api: Api, game: Game, seat: int, what: str) -> None:
    r = api.post(f"/v1/games/{game.id}/{what}", None, **game.seat_headers(seat))
    assert r.status_code == 200, r.get_json()


def problem(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.get_json()
    body: dict[str, Any] = r.get_json()
    assert body["code"] == code
    return body


def seek(api: Api, token: str, **body: Any) -> Any:
    return api.post("/v1/seeks", {"players": 3, **body}, **bearer(token))


def test_a_new_player_starts_at_75_not_banned_and_a_bot_has_no_reputation(setup: Setup) -> None:
    api = setup.api
    mio, _ = new_player(api, "Mio")
    found = profile(api, mio)
    assert found["reputation"] == {"score": 75, "finished": 0, "abandoned": 0, "timeouts": 0}
    assert found["banned_until"] is None and found["ban"] is None
    bots = api.get("/v1/bots").get_json()["bots"]
    bot = profile(api, bots[0]["player_id"])
    assert (bot["reputation"], bot["banned_until"]) == (None, None)


def test_a_game_played_to_its_end_gives_one_to_each_player(setup: Setup) -> None:
    api = setup.api
    players = [new_player(api, n) for n in ("A", "B", "C")]
    game = seated(api, [t for _, t in players])
    for _ in api.play_out(game, random.Random(44)):
        pass
    assert api.public(game.id)["status"] == "finished"
    for player_id, _ in players:
        assert reputation(api, player_id) == {
            "score": 76,
            "finished": 1,
            "abandoned": 0,
            "timeouts": 0,
        }


def test_resigning_costs_ten_and_the_others_gain_one_however_it_ended(setup: Setup) -> None:
    api = setup.api
    (a, a_t), (b, b_t), (c, c_t) = (new_player(api, n) for n in ("A", "B", "C"))
    game = seated(api, [a_t, b_t, c_t])
    act(api, game, 1, "resign")
    assert reputation(api, b) == {"score": 65, "finished": 0, "abandoned": 1, "timeouts": 0}
    assert reputation(api, a)["score"] == reputation(api, c)["score"] == 76
    assert profile(api, b)["banned_until"] is None  # a casual game: no ban


def test_leaving_while_running_costs_ten_at_once_and_no_point_at_the_end(setup: Setup) -> None:
    api = setup.api
    (a, a_t), (b, b_t), (c, c_t) = (new_player(api, n) for n in ("A", "B", "C"))
    game = seated(api, [a_t, b_t, c_t])
    act(api, game, 0, "leave")
    assert reputation(api, a) == {"score": 65, "finished": 0, "abandoned": 1, "timeouts": 0}
    act(api, game, 2, "resign")  # the game ends: B held the seat, A had left
    assert reputation(api, a)["score"] == 65
    assert reputation(api, b) == {"score": 76, "finished": 1, "abandoned": 0, "timeouts": 0}
    assert reputation(api, c)["score"] == 65


def test_leaving_a_game_still_waiting_for_players_costs_nothing(setup: Setup) -> None:
    api = setup.api
    a, a_t = new_player(api, "A")
    r = api.post("/v1/games", {"players": 3})
    game = Game(r.get_json()["id"], 3, [a_t])
    assert api.post(f"/v1/games/{game.id}/seats/0", {}, **bearer(a_t)).status_code == 201
    r = api.post(f"/v1/games/{game.id}/leave", None, **bearer(a_t))
    assert r.status_code == 200, r.get_json()  # a bot takes the seat of a waiting game
    assert reputation(api, a) == {"score": 75, "finished": 0, "abandoned": 0, "timeouts": 0}


def test_the_score_never_drops_below_zero(setup: Setup) -> None:
    api = setup.api
    a, a_t = new_player(api, "A")
    others = [new_player(api, n)[1] for n in ("B", "C")]
    for _ in range(8):  # 75 - 80, clamped at each step
        act(api, seated(api, [a_t, *others]), 0, "resign")
    assert reputation(api, a) == {"score": 0, "finished": 0, "abandoned": 8, "timeouts": 0}
    game = seated(api, [*others, a_t])
    act(api, game, 0, "resign")
    assert reputation(api, a)["score"] == 1  # from 0, not from -5


def test_the_score_never_rises_above_100(setup: Setup) -> None:
    api = setup.api
    a, a_t = new_player(api, "A")
    b_t, c_t = (new_player(api, n)[1] for n in ("B", "C"))
    for n in range(27):  # 75 + 27, the others resigning in turn
        act(api, seated(api, [a_t, b_t, c_t]), 1 + n % 2, "resign")
    assert reputation(api, a) == {"score": 100, "finished": 27, "abandoned": 0, "timeouts": 0}
    act(api, seated(api, [a_t, b_t, c_t]), 0, "resign")
    assert reputation(api, a)["score"] == 90  # from 100, not from 102


def test_abandoning_a_rated_game_bans_from_seeks_and_rated_joins_doubling_each_time(
    setup: Setup,
) -> None:
    api = setup.api
    (a, a_t), (_, b_t), (_, c_t) = (new_player(api, n) for n in ("A", "B", "C"))
    act(api, seated(api, [a_t, b_t, c_t], rated=True), 0, "resign")
    first = profile(api, a)
    until = datetime.fromisoformat(first["banned_until"])
    assert first["ban"]["reason"] == "resigned" and first["ban"]["count"] == 1
    assert until - datetime.fromisoformat(first["ban"]["at"]) == timedelta(minutes=10)
    assert datetime.fromisoformat(first["ban"]["until"]) == until

    body = problem(seek(api, a_t), 403, "player_banned")
    assert datetime.fromisoformat(body["banned_until"]) == until
    assert body["ban"]["reason"] == "resigned"
    rated = api.post("/v1/games", {"players": 3, "rated": True}).get_json()["id"]
    problem(api.post(f"/v1/games/{rated}/seats/0", {}, **bearer(a_t)), 403, "player_banned")
    casual = api.post("/v1/games", {"players": 3}).get_json()["id"]
    assert api.post(f"/v1/games/{casual}/seats/0", {}, **bearer(a_t)).status_code == 201

    game = seated(api, [b_t, c_t, a_t], rated=False)  # a casual game: no further ban
    act(api, game, 2, "leave")
    assert profile(api, a)["banned_until"] == first["banned_until"]


def test_the_abandonment_that_bans_cancels_the_players_open_seek(setup: Setup) -> None:
    api = setup.api
    (_, a_t), (_, b_t), (_, c_t) = (new_player(api, n) for n in ("A", "B", "C"))
    game = seated(api, [a_t, b_t, c_t], rated=True)
    made = seek(api, a_t).get_json()
    act(api, game, 0, "leave")
    found = api.get(f"/v1/seeks/{made['id']}", **bearer(a_t)).get_json()
    assert found["status"] == "cancelled"
    other = seek(api, b_t).get_json()
    act(api, seated(api, [b_t, c_t, a_t]), 0, "leave")  # casual: no ban, the seek stays
    assert api.get(f"/v1/seeks/{other['id']}", **bearer(b_t)).get_json()["status"] == "open"


def test_an_operator_lifts_the_running_ban_and_the_count_goes_on(setup: Setup) -> None:
    api = setup.api
    (a, a_t), (_, b_t), (_, c_t) = (new_player(api, n) for n in ("A", "B", "C"))
    act(api, seated(api, [a_t, b_t, c_t], rated=True), 0, "resign")
    problem(api.post(f"/v1/players/{a}/unban", None, **bearer(a_t)), 403, "forbidden")
    r = api.post(f"/v1/players/{a}/unban", None, **OPERATOR, **{"Idempotency-Key": "lift-1"})
    assert r.status_code == 200, r.get_json()
    assert r.get_json() == {"id": a, "name": "A", "lifted": True, "banned_until": None}
    again = api.post(f"/v1/players/{a}/unban", None, **OPERATOR, **{"Idempotency-Key": "lift-1"})
    assert again.get_json() == r.get_json()  # the same key: the same answer
    assert profile(api, a)["banned_until"] is None
    assert seek(api, a_t).status_code == 201
    nothing = api.post(f"/v1/players/{a}/unban", None, **OPERATOR)
    assert nothing.get_json()["lifted"] is False
    audit = api.get(f"/v1/players/{a}/audit", **OPERATOR).get_json()["entries"]
    assert [e["action"] for e in audit] == ["ban_lifted"]
    assert audit[0]["actor"]["kind"] == "operator" and "resigned" in audit[0]["reason"]
    nobody = "00000000-0000-4000-8000-000000000000"
    problem(api.post(f"/v1/players/{nobody}/unban", None, **OPERATOR), 404, "player_not_found")

    act(api, seated(api, [a_t, b_t, c_t], rated=True), 0, "leave")
    second = profile(api, a)["ban"]  # the lifted one still counts
    assert second["count"] == 2 and second["reason"] == "left"
    length = datetime.fromisoformat(second["until"]) - datetime.fromisoformat(second["at"])
    assert length == timedelta(minutes=20)


@pytest.mark.parametrize("value", [-1, 101, "80", 2.5, None])
def test_min_reputation_is_an_integer_from_0_to_100(setup: Setup, value: Any) -> None:
    api = setup.api
    _, token = new_player(api, "A")
    r = seek(api, token, min_reputation=value)
    assert r.status_code == 422, r.get_json()
    assert "min_reputation" in r.get_json()["errors"]["json"]


def test_a_seek_shows_its_min_reputation(setup: Setup) -> None:
    api = setup.api
    _, token = new_player(api, "A")
    r = seek(api, token, min_reputation=70)
    assert r.status_code == 201 and r.get_json()["min_reputation"] == 70
    shown = api.get(f"/v1/seeks/{r.get_json()['id']}", **bearer(token)).get_json()
    assert shown["min_reputation"] == 70


def test_pairing_seats_nobody_below_a_seeks_min_reputation(setup: Setup) -> None:
    api = setup.api
    (_, low_t), (_, b_t), (_, c_t) = (new_player(api, n) for n in ("Low", "B", "C"))
    act(api, seated(api, [low_t, b_t, c_t]), 0, "resign")  # Low: 65, casual (no ban)
    _, d_t = new_player(api, "D")
    picky = seek(api, b_t, min_reputation=70).get_json()
    assert seek(api, low_t).status_code == 201
    assert seek(api, c_t).status_code == 201
    assert Pairing().run_due(setup.deps) == 0  # Low may not sit with B's seek
    assert seek(api, d_t).status_code == 201
    assert Pairing().run_due(setup.deps) == 1
    matched = api.get(f"/v1/seeks/{picky['id']}", **bearer(b_t)).get_json()
    seats = {s["name"] for s in api.public(matched["game_id"])["seats"]}
    assert seats == {"B", "C", "D"}


def test_abandoning_a_quick_play_game_bans_even_unrated(setup: Setup) -> None:
    api = setup.api
    a, a_t = new_player(api, "A")
    made = seek(api, a_t, bots_after_seconds=5).get_json()
    jobs = Pairing()
    wait_for(lambda: jobs.run_due(setup.deps) == 1, "the seek's bots to fall due", 30)
    game_id = api.get(f"/v1/seeks/{made['id']}", **bearer(a_t)).get_json()["game_id"]
    assert api.public(game_id)["rated"] is False
    r = api.post(f"/v1/games/{game_id}/leave", None, **bearer(a_t))
    assert r.status_code == 200, r.get_json()
    ban = profile(api, a)["ban"]
    assert ban["reason"] == "left" and ban["count"] == 1
    problem(seek(api, a_t), 403, "player_banned")


def clocked(api: Api, tokens: list[str], on_timeout: str, **body: Any) -> Game:
    return seated(api, tokens, clock={"turn_seconds": 1, "on_timeout": on_timeout}, **body)


def events(api: Api, game_id: str) -> list[dict[str, Any]]:
    r = api.get(f"/v1/games/{game_id}/events?limit=1000", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    found: list[dict[str, Any]] = r.get_json()["events"]
    return found


@pytest.mark.slow
def test_a_clock_forfeit_by_the_worker_costs_ten_and_bans_in_a_rated_game(setup: Setup) -> None:
    api = setup.api
    setup.worker()
    players = [new_player(api, n) for n in ("A", "B", "C")]
    game = clocked(api, [t for _, t in players], "forfeit", rated=True)
    wait_for(lambda: api.public(game.id)["status"] == "finished", "the forfeit", 60)
    late = {e["data"]["seat"] for e in events(api, game.id) if e["type"] == "TurnTimedOut"}
    for seat, (player_id, _) in enumerate(players):
        found = profile(api, player_id)
        if seat in late:
            assert found["reputation"] == {
                "score": 65,
                "finished": 0,
                "abandoned": 1,
                "timeouts": 0,
            }
            assert found["ban"]["reason"] == "forfeited"
        else:
            assert found["reputation"]["score"] == 76 and found["banned_until"] is None


@pytest.mark.slow
def test_each_turn_the_worker_plays_by_the_clock_costs_one(setup: Setup) -> None:
    api = setup.api
    setup.worker()
    players = [new_player(api, n) for n in ("A", "B", "C")]
    game = clocked(api, [t for _, t in players], "autoplay")

    def late() -> list[int]:
        return [e["data"]["seat"] for e in events(api, game.id) if e["type"] == "TurnTimedOut"]

    wait_for(lambda: len(late()) >= 4, "the worker to play four turns by the clock", 60)
    act(api, game, 0, "resign")
    counted = late()
    for seat, (player_id, _) in enumerate(players):
        timeouts = counted.count(seat)
        gained = -10 if seat == 0 else 1
        assert reputation(api, player_id) == {
            "score": 75 - timeouts + gained,
            "finished": int(seat != 0),
            "abandoned": int(seat == 0),
            "timeouts": timeouts,
        }
    assert profile(api, players[0][0])["banned_until"] is None  # casual: no ban


def test_a_rebuild_from_the_events_gives_the_same_reputations_and_bans(setup: Setup) -> None:
    api = setup.api
    players = [new_player(api, n) for n in ("A", "B", "C", "D")]
    (a, a_t), (_, b_t), (_, c_t), (_, d_t) = players
    act(api, seated(api, [a_t, b_t, c_t], rated=True), 0, "resign")
    act(api, seated(api, [b_t, c_t, d_t]), 2, "leave")
    game = seated(api, [c_t, d_t, b_t])
    act(api, game, 1, "resign")
    r = api.post(f"/v1/players/{a}/unban", None, **OPERATOR)
    assert r.status_code == 200
    act(api, seated(api, [d_t, a_t, b_t], rated=True), 1, "leave")
    before = {p: profile(api, p) for p, _ in players}
    with setup.deps.uow() as uow:
        marks = uow.reputations.marked()
    assert len(marks) >= 8

    done = setup.yokai("reputation", "rebuild")
    assert done.returncode == 0, done.stderr
    assert "yokai reputation rebuild:" in done.stdout
    after = {p: profile(api, p) for p, _ in players}
    for p in before:
        for field in ("reputation", "banned_until", "ban"):
            assert after[p][field] == before[p][field], (p, field)
    with setup.deps.uow() as uow:
        assert uow.reputations.marked() == marks
