"""Ratings end to end (issue 30; docs/api.md "Ratings, profiles and leaderboards"): a
real `yokai worker` rates finished rated games (never the request), and anyone reads
profiles, histories, finished games and leaderboards over HTTP; `yokai ratings rebuild`
ends where the worker did."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from service.application.ratings.model import bot_player
from service.rules import BotLevel
from tests.support.api import Api, bearer
from tests.support.waiting import wait_for
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture: a database of the test's own


def new_player(api: Api, name: str) -> tuple[str, str]:
    r = api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"], r.get_json()["token"]


def finished(api: Api, tokens: Sequence[str | None], resigning: int, *, rated: bool = True) -> str:
    """A game of ``tokens``' players, seat by seat (a random bot where a token is None),
    ended by ``resigning``'s resign."""
    bots = [{"seat": s, "level": "random"} for s, t in enumerate(tokens) if t is None]
    r = api.post("/v1/games", {"players": len(tokens), "rated": rated, "bots": bots})
    assert r.status_code == 201, r.get_json()
    game_id: str = r.get_json()["id"]
    for seat, token in enumerate(tokens):
        if token is not None:
            joined = api.post(f"/v1/games/{game_id}/seats/{seat}", {}, **bearer(token))
            assert joined.status_code == 201, joined.get_json()
    resigner = tokens[resigning]
    assert resigner is not None
    r = api.post(f"/v1/games/{game_id}/resign", None, **bearer(resigner))
    assert r.status_code == 200, r.get_json()
    api.lift_ban(resigner)  # the resigner plays rated games again at once
    return game_id


def working(setup: Setup) -> None:
    """A `yokai worker` on the test's database, started."""
    worker = setup.worker()
    wait_for(lambda: "started" in worker.output(), "the worker to start")


def get(api: Api, path: str) -> Any:
    r = api.get(path)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def history(api: Api, player_id: str, ladder: str = "standard-3p") -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = get(api, f"/v1/players/{player_id}/ratings/{ladder}")["history"]
    return found


def test_the_worker_rates_a_finished_rated_game_and_anyone_reads_it(setup: Setup) -> None:
    api = setup.api
    working(setup)
    (mio, mio_t), (ren, ren_t), (_, aiko_t) = (new_player(api, n) for n in ("Mio", "Ren", "Aiko"))
    game_id = finished(api, [mio_t, ren_t, aiko_t], 1)
    wait_for(lambda: history(api, ren), "the worker to rate the game", timeout=30)
    [entry] = history(api, ren)
    assert entry["game_id"] == game_id
    assert entry["before"] == {"mu": 25.0, "sigma": pytest.approx(25 / 3)}
    assert entry["after"]["mu"] < 25.0  # Ren resigned: last
    assert history(api, mio)[0]["after"]["mu"] > 25.0
    assert history(api, mio, "standard-4p") == []  # a ladder not played yet

    profile = get(api, f"/v1/players/{ren}")
    assert (profile["id"], profile["name"], profile["bot"]) == (ren, "Ren", None)
    rating = profile["ratings"]["standard-3p"]
    assert rating["mu"] == entry["after"]["mu"] and rating["games"] == 1
    assert rating["provisional"] is True
    assert rating["ordinal"] == pytest.approx(rating["mu"] - 3 * rating["sigma"])
    assert profile["stats"] == {"games": 1, "wins": 0, "rated_games": 1, "abandoned": 1}
    assert get(api, f"/v1/players/{mio}")["stats"] == {
        "games": 1,
        "wins": 1,
        "rated_games": 1,
        "abandoned": 0,
    }

    unrated = finished(api, [aiko_t, mio_t, ren_t], 0, rated=False)
    games = get(api, f"/v1/players/{mio}/games")
    assert [(g["game_id"], g["rated"], g["won"]) for g in games["games"]] == [
        (unrated, False, True),
        (game_id, True, True),
    ]
    page = get(api, f"/v1/players/{mio}/games?limit=1")
    assert page["next_cursor"] is not None
    rest = get(api, f"/v1/players/{mio}/games?limit=1&cursor={page['next_cursor']}")
    assert [g["game_id"] for g in rest["games"]] == [game_id] and rest["next_cursor"] is None
    assert get(api, f"/v1/players/{mio}")["ratings"]["standard-3p"]["games"] == 1


def test_leaderboards_rank_players_past_their_tenth_game_and_a_rebuild_agrees(
    setup: Setup,
) -> None:
    api = setup.api
    working(setup)
    (a, a_t), (b, b_t), (c, c_t) = (new_player(api, n) for n in ("A", "B", "C"))
    d, d_t = new_player(api, "D")
    for n in range(11):  # C always resigns; D plays once, B ten times
        seated = [a_t, b_t, c_t] if n else [d_t, a_t, c_t]
        finished(api, seated, seated.index(c_t))
    wait_for(lambda: len(history(api, c)) == 11, "the worker to rate eleven games", timeout=60)
    board = get(api, "/v1/leaderboards/standard-3p")
    assert [p["player_id"] for p in board["players"]] == [a, b, c]  # D: provisional
    assert [p["rank"] for p in board["players"]] == [1, 2, 3]
    assert board["players"][0]["name"] == "A" and board["next_cursor"] is None
    first = get(api, "/v1/leaderboards/standard-3p?limit=2")
    rest = get(api, f"/v1/leaderboards/standard-3p?limit=2&cursor={first['next_cursor']}")
    assert [(p["rank"], p["player_id"]) for p in rest["players"]] == [(3, c)]
    assert get(api, "/v1/leaderboards/standard-4p") == {"players": [], "next_cursor": None}

    before = {p: get(api, f"/v1/players/{p}")["ratings"] for p in (a, b, c, d)}
    assert "11 games applied" in rebuilt(setup)
    assert {p: get(api, f"/v1/players/{p}")["ratings"] for p in (a, b, c, d)} == before


def rebuilt(setup: Setup) -> str:
    """`yokai ratings rebuild` run on the test's database: what it printed."""
    done = setup.yokai("ratings", "rebuild")
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_leaderboards_list_people_and_a_bot_level_on_both_sides_is_not_rated(
    setup: Setup,
) -> None:
    """Issue 44: ten rated games beside a random bot against two random bots rate the
    person only (the level was rated as the person's mirror and led the leaderboard);
    a game where the level sits on one side rates it. The leaderboards list people;
    `bots=true` adds each level with rated games. A rebuild ends where the worker did."""
    api = setup.api
    working(setup)
    (mio, mio_t), (ren, ren_t) = (new_player(api, n) for n in ("Mio", "Ren"))
    random = str(bot_player(BotLevel.RANDOM))
    for _ in range(10):
        finished(api, [mio_t, None, None, None], 0)
        finished(api, [mio_t, None, ren_t], 0)  # the level wins, on one side
    wait_for(lambda: len(history(api, ren)) == 10, "the worker to rate the games", timeout=90)
    assert len(history(api, mio, "standard-4p")) == 10
    assert history(api, random, "standard-4p") == []
    assert [h["game_id"] for h in history(api, random)] == [h["game_id"] for h in history(api, ren)]
    assert set(get(api, f"/v1/players/{random}")["ratings"]) == {"standard-3p"}

    board = get(api, "/v1/leaderboards/standard-4p")["players"]
    assert [(p["player_id"], p["bot"]) for p in board] == [(mio, None)]
    assert get(api, "/v1/leaderboards/standard-4p?bots=true")["players"] == board
    people = get(api, "/v1/leaderboards/standard-3p")["players"]
    assert [p["player_id"] for p in people] == [ren, mio]  # the level ties Ren: unlisted
    with_bots = get(api, "/v1/leaderboards/standard-3p?bots=true")["players"]
    [level] = [p for p in with_bots if p["bot"] is not None]
    assert (level["player_id"], level["name"], level["bot"]) == (random, "Random bot", "random")
    assert (level["games"], level["ordinal"]) == (10, people[0]["ordinal"])
    assert [p["player_id"] for p in with_bots if p["bot"] is None] == [ren, mio]
    assert [p["rank"] for p in with_bots] == [1, 2, 3]

    who = (mio, ren, random)
    before = {p: get(api, f"/v1/players/{p}")["ratings"] for p in who}
    assert "20 games applied" in rebuilt(setup)
    assert {p: get(api, f"/v1/players/{p}")["ratings"] for p in who} == before


def test_histories_and_leaderboards_answer_304_until_a_rated_game_changes_them(
    setup: Setup,
) -> None:
    api = setup.api
    working(setup)
    (mio, mio_t), (_, ren_t), (_, aiko_t) = (new_player(api, n) for n in ("Mio", "Ren", "Aiko"))
    finished(api, [mio_t, ren_t, aiko_t], 1)
    wait_for(lambda: history(api, mio), "the worker to rate the game", timeout=30)
    paths = [f"/v1/players/{mio}/ratings/standard-3p", "/v1/leaderboards/standard-3p?bots=true"]
    tags = []
    for path in paths:
        first = api.get(path)
        tag = first.headers["ETag"]
        assert first.status_code == 200 and tag.startswith('"')
        same = api.get(path, If_None_Match=tag)
        assert (same.status_code, same.headers["ETag"], same.data) == (304, tag, b"")
        assert api.get(path, If_None_Match=f'"other", {tag}').status_code == 304
        assert api.get(path, If_None_Match='"other"').status_code == 200
        tags.append(tag)
    board = "/v1/leaderboards/standard-3p"
    assert api.get(board).headers["ETag"] != tags[1]  # another page: people only

    finished(api, [aiko_t, None, mio_t], 0)  # a random bot on one side: on the board
    wait_for(lambda: len(history(api, mio)) == 2, "the worker to rate the game", timeout=30)
    for path, tag in zip(paths, tags, strict=True):
        changed = api.get(path, If_None_Match=tag)
        assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert get(api, paths[1])["players"][0]["bot"] == "random"


def test_refusals_name_what_is_not_there(setup: Setup) -> None:
    api = setup.api
    mio, _ = new_player(api, "Mio")
    for path, code in [
        ("/v1/players/7d0f3c2e-0000-4c55-9f21-6a8e2b0c9d13", "player_not_found"),
        (f"/v1/players/{mio}/ratings/chess", "ladder_not_found"),
        ("/v1/leaderboards/chess", "ladder_not_found"),
        ("/v1/players/7d0f3c2e-0000-4c55-9f21-6a8e2b0c9d13/games", "player_not_found"),
    ]:
        r = api.get(path)
        assert (r.status_code, r.get_json()["code"]) == (404, code), path
    r = api.get("/v1/leaderboards/standard-3p?cursor=bm90LWEtY3Vyc29y")
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid_cursor")
    bot = get(api, f"/v1/players/{bot_player(BotLevel.BASIC)}")
    assert (bot["name"], bot["bot"], bot["created_at"]) == ("Basic bot", "basic", None)


def test_the_bot_levels_are_listed_each_a_player_of_its_own(setup: Setup) -> None:
    """Issue 31: GET /v1/bots; each level's player has a profile."""
    listed = get(setup.api, "/v1/bots")["bots"]
    assert [b["level"] for b in listed] == ["random", "basic", "strong", "expert"]
    for b in listed:
        assert b["description"]
        profile = get(setup.api, f"/v1/players/{b['player_id']}")
        assert (profile["bot"], profile["created_at"]) == (b["level"], None)
