"""Quick play's tables with a real `yokai worker` process (docs/api.md "Quick play",
"Bots"; issue 44): a seek whose bots fall due takes every compatible open seek of its
pool that allows bots to its table, and bots fill only the seats nobody fills; the
oldest seeks are paired first; seeks of other pools, and seeks that refuse bots, are
left alone.

Each seek's delay is chosen so that the rule is what decides: the later seeks' delays
have not passed when the first one's has, so a pairing that seats each due seek alone
(as before issue 44) gives them tables of their own. Tests wait for outcomes with
deadlines and assert outcomes, never timings; the fixture stops the worker.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.test_seek_workers import new_player
from tests.support.api import Api, bearer
from tests.support.waiting import wait_for
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture

pytestmark = pytest.mark.slow


def seek(api: Api, token: str, **body: Any) -> str:
    r = api.post("/v1/seeks", {"players": 4, **body}, **bearer(token))
    assert r.status_code == 201, r.get_json()
    seek_id: str = r.get_json()["id"]
    return seek_id


def read(api: Api, token: str, seek_id: str) -> dict[str, Any]:
    r = api.get(f"/v1/seeks/{seek_id}", **bearer(token))
    assert r.status_code == 200, r.get_json()
    found: dict[str, Any] = r.get_json()
    return found


def matched(api: Api, asked: list[tuple[str, str]]) -> list[dict[str, Any]] | None:
    """The seeks (token, seek id) as read, once every one is matched."""
    found = [read(api, token, seek_id) for token, seek_id in asked]
    return found if all(f["status"] == "matched" for f in found) else None


def bots(api: Api, game_id: str) -> list[str | None]:
    return [s["bot"] for s in api.public(game_id)["seats"]]


def started(setup: Setup) -> None:
    worker = setup.worker()
    wait_for(lambda: "started" in worker.output(), "the worker to start")


@pytest.mark.parametrize("people", [2, 3])
def test_people_who_ask_a_moment_apart_sit_at_one_table_with_bots_in_the_rest(
    setup: Setup, people: int
) -> None:
    started(setup)
    tokens = [new_player(setup.api, f"P{n}")[1] for n in range(people)]
    # The first asks for bots after 5 s; the others a moment later, after 60 s: when the
    # first's delay passes theirs has not, yet they allow bots, so they sit with it.
    asked = [(tokens[0], seek(setup.api, tokens[0], bots_after_seconds=5))]
    asked += [(t, seek(setup.api, t, bots_after_seconds=60)) for t in tokens[1:]]
    found = wait_for(lambda: matched(setup.api, asked), "the seeks to be matched", 50)
    (game_id,) = {f["game_id"] for f in found}
    seated = bots(setup.api, game_id)
    assert sorted(f["seat"] for f in found) == sorted(
        seat for seat, bot in enumerate(seated) if bot is None
    )
    assert seated.count("basic") == 4 - people
    assert setup.api.public(game_id)["rated"] is False


def test_a_due_seek_leaves_other_pools_and_seeks_refusing_bots_alone(setup: Setup) -> None:
    started(setup)
    due, advanced, threes, rated, no_bots = (
        new_player(setup.api, name)[1] for name in ("Due", "Adv", "Three", "Rated", "Plain")
    )
    mine = seek(setup.api, due, bots_after_seconds=5)
    others = [
        (advanced, seek(setup.api, advanced, scoring="advanced", bots_after_seconds=60)),
        (threes, seek(setup.api, threes, players=3, bots_after_seconds=60)),
        (rated, seek(setup.api, rated, rated=True, bots_after_seconds=60)),
        (no_bots, seek(setup.api, no_bots)),  # its pool, but no bots for it
    ]
    (found,) = wait_for(lambda: matched(setup.api, [(due, mine)]), "the due seek's match", 50)
    assert bots(setup.api, found["game_id"]).count("basic") == 3
    assert [read(setup.api, t, s)["status"] for t, s in others] == ["open"] * 4


def test_the_oldest_seeks_are_paired_first_and_the_rest_share_a_table(setup: Setup) -> None:
    started(setup)
    tokens = [new_player(setup.api, f"P{n}")[1] for n in range(6)]
    asked = [(t, seek(setup.api, t, bots_after_seconds=5)) for t in tokens[:5]]
    asked.append((tokens[5], seek(setup.api, tokens[5], bots_after_seconds=60)))
    found = wait_for(lambda: matched(setup.api, asked), "every seek to be matched", 50)
    oldest, rest = {f["game_id"] for f in found[:4]}, {f["game_id"] for f in found[4:]}
    assert len(oldest) == 1 and len(rest) == 1 and oldest != rest
    assert bots(setup.api, oldest.pop()) == [None] * 4
    assert bots(setup.api, rest.pop()).count("basic") == 2
