"""What reputation adds to the requests it touches, counted as the hot path's budget
counts (tests/integration/test_hot_path_budget.py): a play reads nothing for it (the
budget there holds plays to one round trip); a leave, the command that finishes a game,
and a profile view, each in exact round trips and statements."""

from __future__ import annotations

from collections.abc import Callable

from werkzeug.test import TestResponse

from tests.integration.test_hot_path_budget import Cost, Table, counting, new_table
from tests.support.api import Api, bearer

__all__ = ["counting"]  # the fixture


def _costs(
    api: Api, table: Table, measure: Callable[[Callable[[], TestResponse]], Cost]
) -> dict[str, Cost]:
    for seat in range(4):
        assert table.view(seat).status_code == 200
    me = api.client.get("/v1/me", headers=table.headers(1)).get_json()["id"]
    game = f"/v1/games/{table.game_id}"
    return {
        "leave": measure(lambda: api.client.post(f"{game}/leave", headers=table.headers(1))),
        "resign": measure(lambda: api.client.post(f"{game}/resign", headers=table.headers(0))),
        "profile": measure(lambda: api.client.get(f"/v1/players/{me}")),
    }


def test_a_leave_and_a_resign_mark_in_their_one_statement_and_a_profile_reads_once_more(
    api: Api, counting: Callable[[Callable[[], TestResponse]], Cost]
) -> None:
    _costs(api, new_table(api), counting)  # warms the process: caches, keys, imports
    found = _costs(api, new_table(api), counting)
    for kind, cost in found.items():
        print(f"{kind:8} {cost.figures()}")
    leave, resign, profile = found["leave"], found["resign"], found["profile"]
    assert (leave.round_trips, leave.statements) == (1, 1)  # the marks ride in the statement
    # The game's end reads who held its seats (ratings' results), then writes everything.
    assert (resign.round_trips, resign.statements) == (2, 2)
    # The player, their ratings, their stats, their reputation with their recent
    # abandonments: four reads in one snapshot (BEGIN rides with the first).
    assert (profile.round_trips, profile.statements) == (4, 5)


def _joins(api: Api, measure: Callable[[Callable[[], TestResponse]], Cost]) -> dict[str, Cost]:
    tokens = [api.post("/v1/players", {"name": f"P{n}"}).get_json()["token"] for n in (1, 2)]
    seeking, joining = (bearer(t) for t in tokens)
    game = api.post("/v1/games", {"players": 3, "rated": True}).get_json()["id"]
    return {
        "seek": measure(lambda: api.client.post("/v1/seeks", json={"players": 3}, headers=seeking)),
        "rated_join": measure(
            lambda: api.client.post(f"/v1/games/{game}/seats/0", json={}, headers=joining)
        ),
    }


def test_a_seek_and_a_rated_join_read_the_ban_once(
    api: Api, counting: Callable[[Callable[[], TestResponse]], Cost]
) -> None:
    _joins(api, counting)  # warms the process
    found = _joins(api, counting)
    for kind, cost in found.items():
        print(f"{kind:10} {cost.figures()}")
    # Of each, one round trip is the ban's read (reputations.of).
    assert (found["seek"].round_trips, found["seek"].statements) == (6, 6)
    assert (found["rated_join"].round_trips, found["rated_join"].statements) == (7, 7)
