"""The lobby over HTTP (docs/api.md "Finding a game", issue 29): public games waiting
for players, kept in each command's statement; listed with filters and paging, with an
ETag and a long-poll, and streamed across processes.

The suite's database is shared by every test, so each test looks for its own games in
the lobby rather than at the whole of it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.api import OPERATOR, Api, bearer
from tests.support.postgres import AppUnderTest, MakeApp
from tests.support.sse import SseStream, served


def listed(api: Api, query: str = "") -> dict[str, dict[str, Any]]:
    """Every table of the lobby (following the pages), by game id."""
    found: dict[str, dict[str, Any]] = {}
    cursor = ""
    while True:
        r = api.get(f"/v1/lobby?limit=100{query}{cursor}")
        assert r.status_code == 200, r.get_json()
        page = r.get_json()
        found.update({g["game_id"]: g for g in page["games"]})
        if page["next_cursor"] is None:
            return found
        cursor = f"&cursor={page['next_cursor']}"


def test_a_public_game_is_listed_while_it_waits_for_players(api: Api) -> None:
    public = api.create(3, visibility="public", clock={"turn_seconds": 60})["id"]
    private = api.create(3)["id"]
    table = listed(api)[public]
    assert private not in listed(api)
    assert (table["players"], table["scoring"], table["variant"], table["rated"]) == (
        3,
        "basic",
        "standard",
        False,
    )
    assert table["clock"] == {"turn_seconds": 60, "on_timeout": "autoplay"}
    assert table["open_seats"] == 3 and [s["name"] for s in table["seats"]] == [None] * 3
    player = api.post("/v1/players", {"name": "Mio"}).get_json()
    assert api.post(f"/v1/games/{public}/seats/0", {}, **bearer(player["token"])).status_code == 201
    api.join(public, 1, "Ren")
    table = listed(api)[public]
    assert table["open_seats"] == 1
    assert [(s["name"], s["player_id"]) for s in table["seats"]] == [
        ("Mio", player["id"]),
        ("Ren", None),
        (None, None),
    ]
    assert set(table) == {
        "game_id", "players", "scoring", "variant", "rated", "clock", "seats",
        "open_seats", "created_at",
    }  # fmt: skip
    api.join(public, 2, "Aiko")  # full: the game starts and leaves the lobby
    assert public not in listed(api)


def test_the_lobby_filters_and_pages_oldest_first(api: Api) -> None:
    made = [
        api.create(4, visibility="public", scoring="advanced")["id"],
        api.create(4, visibility="public", variant="seven_followers")["id"],
        api.create(3, visibility="public")["id"],
    ]
    everything = list(listed(api))
    mine = [g for g in everything if g in made]
    assert mine == made  # oldest first
    assert made[0] in listed(api, "&scoring=advanced")
    assert made[1] not in listed(api, "&scoring=advanced")
    assert set(made) & set(listed(api, "&variant=seven_followers")) == {made[1]}
    assert set(made) & set(listed(api, "&players=3")) == {made[2]}
    assert not set(made) & set(listed(api, "&rated=true"))
    r = api.get("/v1/lobby?limit=1")
    assert len(r.get_json()["games"]) == 1 and r.get_json()["next_cursor"]
    for bad in ("players=5", "variant=chess", "limit=0", "wait=61", "cursor=%21"):
        r = api.get(f"/v1/lobby?{bad}")
        assert r.status_code == 422, bad


def test_the_lobby_has_an_etag_and_a_long_poll(make_app: MakeApp) -> None:
    here, there = make_app().api(), make_app().api()  # two processes
    r = here.get("/v1/lobby?players=3")
    etag = r.headers["ETag"]
    assert here.get("/v1/lobby?players=3", If_None_Match=etag).status_code == 304
    # Nothing changes: the long-poll answers 304 when the time is up.
    unchanged = here.get("/v1/lobby?players=3&wait=1", If_None_Match=etag)
    assert (unchanged.status_code, unchanged.headers["ETag"]) == (304, etag)
    # Another process lists a table: the one waiting hears of it.
    answers: list[Any] = []
    waiting = threading.Thread(
        target=lambda: answers.append(here.get("/v1/lobby?players=3&wait=30", If_None_Match=etag))
    )
    waiting.start()
    game_id = there.create(3, visibility="public")["id"]
    waiting.join(40)
    assert not waiting.is_alive()
    (changed,) = answers
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert game_id in {g["game_id"] for g in changed.get_json()["games"]}


@pytest.fixture
def streaming(make_app: MakeApp) -> Iterator[tuple[AppUnderTest, str, Api]]:
    app = make_app(keepalive_seconds=1)
    with served(app.flask) as host:
        yield app, host, make_app().api()


def test_the_lobby_stream_shows_tables_come_fill_and_go(
    streaming: tuple[AppUnderTest, str, Api],
) -> None:
    app, host, other = streaming
    stream = SseStream(host, "/v1/lobby/stream?players=4&variant=seven_followers_short")
    try:
        assert stream.status == 200
        first = stream.next()
        assert first is not None and first.event == "lobby"
        assert app.container.listener.listening.wait(10)
        game_id = other.create(4, visibility="public", variant="seven_followers_short")["id"]
        other.create(3, visibility="public")  # filtered out
        deadline = time.monotonic() + 10

        def next_table() -> dict[str, Any]:
            message = stream.next(deadline)
            assert message is not None and message.event == "table"
            assert message.data["game_id"] == game_id
            table: dict[str, Any] = message.data
            return table

        assert next_table()["open_seats"] == 4
        for seat in range(4):
            other.join(game_id, seat)
        # Each table as it stood when the stream read it: changes that came together
        # show as their last (a stream tells where a table is, not every step).
        seen = [next_table()["open_seats"]]
        while seen[-1] != 0:  # the last join started the game: it left
            seen.append(next_table()["open_seats"])
        assert seen == sorted(seen, reverse=True) and len(set(seen)) == len(seen)
    finally:
        stream.close()


def test_an_operator_seating_bots_fills_a_public_table(api: Api) -> None:
    game_id = api.create(4, visibility="public", bots=[{"seat": 1, "level": "basic"}])["id"]
    table = listed(api)[game_id]
    assert table["open_seats"] == 3 and table["seats"][1]["bot"] == "basic"
    for seat in (0, 2):
        r = api.post(f"/v1/games/{game_id}/seats/{seat}/bot", {"level": "random"}, **OPERATOR)
        assert r.status_code == 201
    assert listed(api)[game_id]["open_seats"] == 1
