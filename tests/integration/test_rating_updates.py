"""Ratings on PostgreSQL under concurrency (issue 30): games of one player finishing at
the same moment and two workers updating at once lose no update (each game once, in
finish order, every history chained); a rebuild ends with exactly the values the
incremental path produced. On the fakes: tests/application/ratings/."""

from __future__ import annotations

import functools
import itertools
import random
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from uuid import UUID

import psycopg

from service.application.ratings.model import bot_player
from service.application.ratings.update import rate_next, rebuild
from service.rules import BotLevel
from tests.support.api import bearer
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture: a database of the test's own


def together(*jobs: Callable[[], Any]) -> list[Any]:
    """Run the jobs each in its own thread, released at once by a barrier."""
    barrier = threading.Barrier(len(jobs))

    def run(job: Callable[[], Any]) -> Any:
        barrier.wait(timeout=60)
        return job()

    with ThreadPoolExecutor(max_workers=len(jobs)) as threads:
        return list(threads.map(run, jobs))


def new_player(setup: Setup, name: str) -> str:
    r = setup.api.post("/v1/players", {"name": name})
    assert r.status_code == 201, r.get_json()
    token: str = r.get_json()["token"]
    return token


def rated_game(setup: Setup, tokens: list[str], bots: Sequence[dict[str, Any]] = ()) -> str:
    """A started rated game: ``bots`` (the `bots` of `POST /v1/games`) in their seats,
    the players of ``tokens`` in the others, seat by seat."""
    body = {"players": len(tokens) + len(bots), "rated": True, "bots": list(bots)}
    r = setup.api.post("/v1/games", body)
    assert r.status_code == 201, r.get_json()
    game_id: str = r.get_json()["id"]
    taken = {b["seat"] for b in bots}
    free = [s for s in range(len(tokens) + len(bots)) if s not in taken]
    for seat, token in zip(free, tokens, strict=True):
        joined = setup.api.post(f"/v1/games/{game_id}/seats/{seat}", {}, **bearer(token))
        assert joined.status_code == 201, joined.get_json()
    return game_id


def resign(setup: Setup, game_id: str, token: str) -> None:
    r = setup.api.post(f"/v1/games/{game_id}/resign", None, **bearer(token))
    assert r.status_code == 200, r.get_json()
    setup.api.lift_ban(token)  # the resigner plays rated games again at once


def history(setup: Setup) -> list[tuple[Any, ...]]:
    with psycopg.connect(setup.url) as conn:
        return conn.execute(
            "SELECT player_id, ladder, game_id, before_mu, before_sigma, after_mu, after_sigma "
            "FROM rating_history ORDER BY id"
        ).fetchall()


def ratings(setup: Setup) -> dict[tuple[UUID, str], tuple[float, float, int]]:
    with psycopg.connect(setup.url) as conn:
        rows = conn.execute("SELECT player_id, ladder, mu, sigma, games FROM ratings").fetchall()
    return {(r[0], r[1]): (r[2], r[3], r[4]) for r in rows}


def assert_chained(setup: Setup) -> None:
    """Each player's history: every entry starts where the one before ended, and the
    rating is where the last ended, after as many games as entries."""
    entries: dict[tuple[UUID, str], list[tuple[Any, ...]]] = {}
    for row in history(setup):
        entries.setdefault((row[0], row[1]), []).append(row)
    now = ratings(setup)
    assert set(entries) == set(now)
    for key, rows in entries.items():
        assert len({r[2] for r in rows}) == len(rows), "a game updates a player once"
        for earlier, later in itertools.pairwise(rows):
            assert later[3:5] == earlier[5:7], "no update lost"
        assert now[key] == (rows[-1][5], rows[-1][6], len(rows))


def test_one_players_games_finishing_at_once_rated_by_two_workers_lose_nothing(
    setup: Setup,
) -> None:
    shared = new_player(setup, "Shared")
    for n in range(4):
        left = [new_player(setup, f"L{n}{i}") for i in range(2)]
        right = [new_player(setup, f"R{n}{i}") for i in range(2)]
        first, second = rated_game(setup, [shared, *left]), rated_game(setup, [shared, *right])
        together(
            functools.partial(resign, setup, first, left[0]),
            functools.partial(resign, setup, second, right[1]),
        )
        done = together(lambda: rate_next(setup.deps), lambda: rate_next(setup.deps))
        while (more := rate_next(setup.deps)) is not None:
            done.append(more)
        assert sorted(str(g) for g in done if g is not None) == sorted([first, second])
    assert_chained(setup)
    shared_rows = [r for r in history(setup) if r[1] == "standard-3p"]
    assert len(shared_rows) == 8 * 3  # eight games of three players, each player once


def test_a_rebuild_ends_with_exactly_the_incremental_ratings(setup: Setup) -> None:
    chance = random.Random(7)
    tokens = [new_player(setup, f"P{i}") for i in range(7)]
    for _ in range(30):
        size = chance.choice((3, 4))
        who = chance.sample(tokens, size)
        resign(setup, rated_game(setup, who), chance.choice(who))
        if chance.random() < 0.5:
            while rate_next(setup.deps) is not None:
                pass
    while rate_next(setup.deps) is not None:
        pass
    assert_chained(setup)
    incremental, before = ratings(setup), history(setup)
    with psycopg.connect(setup.url) as conn:  # what a rebuild must put right
        conn.execute("UPDATE ratings SET mu = 0, sigma = 1, games = 0")
        conn.execute("UPDATE rating_history SET before_mu = 0, after_sigma = 0")
    assert rebuild(setup.deps) == 30
    assert ratings(setup) == incremental
    assert [r[:7] for r in history(setup)] == [r[:7] for r in before]


def test_a_rebuild_drops_the_updates_of_a_bot_level_on_both_sides(setup: Setup) -> None:
    """Issue 44 on PostgreSQL: the level of a game it sat on both sides of is not rated;
    a rebuild of updates made before that rule (the level rated by such a game, a rating
    no game makes) deletes them and ends with exactly the rule's values."""
    person, other = new_player(setup, "Person"), new_player(setup, "Other")
    bot = bot_player(BotLevel.RANDOM)
    randoms = [{"seat": s, "level": "random"} for s in (1, 2, 3)]
    mirrored = rated_game(setup, [person], bots=randoms)
    resign(setup, mirrored, person)
    once = rated_game(setup, [person, other], bots=randoms[:1])
    resign(setup, once, other)
    while rate_next(setup.deps) is not None:
        pass
    assert_chained(setup)
    assert [(r[1], str(r[2])) for r in history(setup) if r[0] == bot] == [("standard-3p", once)]
    incremental, before = ratings(setup), history(setup)
    with psycopg.connect(setup.url) as conn:  # as the worker rated them before the rule
        conn.execute(
            "INSERT INTO rating_history (game_id, player_id, ladder, at, before_mu, "
            "before_sigma, after_mu, after_sigma) VALUES (%s, %s, 'standard-4p', now(), "
            "25, 8.3, 27.49, 7.9)",
            (mirrored, bot),
        )
        conn.execute(
            "INSERT INTO ratings (player_id, ladder, mu, sigma, games, updated_at) "
            "VALUES (%s, 'standard-4p', 27.49, 7.9, 1, now())",
            (bot,),
        )
    assert rebuild(setup.deps) == 2
    assert ratings(setup) == incremental
    assert [r[:7] for r in history(setup)] == [r[:7] for r in before]
