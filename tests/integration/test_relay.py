"""The relay on PostgreSQL and Redis (Debian's redis-server, started here): every command
committed is announced on the bus, in commit order, by one relay at a time; a relay that
takes over, or comes back, goes on from the position saved; a Redis that goes away for a
while loses nothing, and commands go on succeeding meanwhile. Each test has a database of
its own (the relay reads every game's events, and keeps its position there)."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
import pytest
from sqlalchemy import make_url

from service.adapters.postgres.engine import libpq_conninfo
from service.adapters.postgres.listener import commit_of, parse
from service.adapters.postgres.relay import LOCK_KEY
from tests.support.api import Api, Game
from tests.support.deals import start_playing, version
from tests.support.postgres import MakeApp, migrated_database
from tests.support.redis_server import RedisServer, running
from tests.support.relaying import Heard, hearing, relaying
from tests.support.waiting import wait_for


@pytest.fixture
def database(server_url: str) -> str:
    return migrated_database(server_url, "yokai_relay")


@pytest.fixture
def api(make_app: MakeApp, database: str) -> Api:
    return make_app(database_url=database).api()


def announced(heard: Heard, version: int) -> bool:
    """Whether ``heard`` has heard a command that left its game at ``version``."""
    return any(p.split(" ")[2] == str(version) for p in heard.take())


def saved_is_last(database: str) -> bool:
    """Whether the relay's saved position is the last event's."""
    with psycopg.connect(libpq_conninfo(database)) as conn:
        row = conn.execute(
            "SELECT (SELECT position FROM relay_positions WHERE name = 'commits'), "
            "(SELECT max(position) FROM events)"
        ).fetchone()
    return row is not None and row[0] == row[1]


def play(api: Api, game: Game, cards: int) -> None:
    for _ in range(cards):
        seat = api.public(game.id)["round"]["turn"]
        card = api.view(game, seat)["legal"][0]
        answer = api.play(game, seat, card)
        assert answer.status_code == 200, answer.get_json()


def versions(payloads: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Each game's announcements as (previous version, version), in the order heard."""
    found: dict[str, list[tuple[int, int]]] = {}
    for payload in payloads:
        key, now = parse(payload)
        assert now is not None
        found.setdefault(key, []).append((int(payload.split(" ")[3]), now))
    return found


def contiguous(steps: list[tuple[int, int]], *, repeats: bool = False) -> bool:
    """Each announcement goes on from the last (``repeats``: one announced again after a
    takeover is allowed, never a gap and never one out of order)."""
    last = steps[0][1]
    for before, after in steps[1:]:
        if repeats and after <= last:
            continue
        if before != last:
            return False
        last = after
    return True


def test_every_command_is_announced_once_in_commit_order_with_its_events(
    api: Api, database: str, redis_server: RedisServer
) -> None:
    with hearing(redis_server.url) as heard, relaying(database, redis_server.url) as relay:
        wait_for(lambda: relay.holding, "the relay to hold the lock", 10)
        game, other = start_playing(api), start_playing(api)
        play(api, game, 6)
        play(api, other, 3)
        play(api, game, 2)
        final = version(api, game), version(api, other)
        wait_for(lambda: all(announced(heard, v) for v in final), "both games' last commands", 10)
    steps = versions(heard.payloads)
    assert [steps[f"g {g.id}"][-1][1] for g in (game, other)] == list(final)
    for key in (f"g {game.id}", f"g {other.id}"):
        assert steps[key][0][0] == 0  # from the game's first event
        assert contiguous(steps[key])  # none missing, none twice, in order
    # The head only: no event goes on the bus (a dealt hand, a pass), nodes read the store.
    assert all(len(p.split(" ")) == 4 for p in heard.payloads)
    assert commit_of(heard.payloads[-1]) is None


def test_a_relay_that_comes_back_goes_on_from_its_position(
    api: Api, database: str, redis_server: RedisServer
) -> None:
    game = start_playing(api)
    with hearing(redis_server.url) as heard:
        with relaying(database, redis_server.url) as relay:
            wait_for(lambda: relay.holding, "the relay to hold the lock", 10)
            start = version(api, game)
            play(api, game, 2)
            first = version(api, game)
            wait_for(lambda: announced(heard, first), "the first plays announced", 10)
        play(api, game, 3)  # while no relay runs
        with relaying(database, redis_server.url):
            last = version(api, game)
            wait_for(lambda: announced(heard, last), "the last play announced", 10)
    steps = versions(heard.payloads)[f"g {game.id}"]
    assert steps[0][0] == start  # from the first command after it started
    assert contiguous(steps) and steps[-1][1] == last  # those made meanwhile too, once


def test_one_relay_announces_and_another_takes_over_when_its_connection_dies(
    api: Api, database: str, redis_server: RedisServer, sql: Any
) -> None:
    game = start_playing(api)
    with (
        hearing(redis_server.url) as heard,
        relaying(database, redis_server.url) as one,
        relaying(database, redis_server.url) as two,
    ):
        wait_for(lambda: one.holding or two.holding, "a relay to hold the lock", 10)
        play(api, game, 2)
        wait_for(heard.take, "an announcement", 10)
        holder, waiting = (one, two) if one.holding else (two, one)
        assert not waiting.holding  # one relay at a time
        name = make_url(database).database
        # The holder's connection ends, as when its process is killed: PostgreSQL
        # releases the lock, the other relay takes it.
        killed = sql(
            "SELECT pg_terminate_backend(l.pid) FROM pg_locks AS l JOIN pg_stat_activity AS a "
            "ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND a.datname = :name AND l.classid = :high AND l.objid = :low",
            name=name,
            high=LOCK_KEY >> 32,
            low=LOCK_KEY & 0xFFFFFFFF,
        )
        assert [r[0] for r in killed] == [True]
        # Its next query fails: it lets go; whichever relay takes the lock next goes on.
        wait_for(lambda: not holder.holding or waiting.holding, "the holder to let go", 10)
        play(api, game, 3)
        last = version(api, game)
        wait_for(lambda: announced(heard, last), "the last play announced", 10)
        assert one.holding != two.holding  # still one at a time
    steps = versions(heard.payloads)[f"g {game.id}"]
    assert contiguous(steps, repeats=True) and steps[-1][1] == last


def test_a_redis_that_goes_away_loses_nothing_and_commands_go_on(
    api: Api, database: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, "service.application.live.relay")
    with running() as bus:
        game = start_playing(api)
        with relaying(database, bus.url) as relay:
            wait_for(lambda: relay.holding, "the relay to hold the lock", 10)
            with hearing(bus.url) as before:
                play(api, game, 1)
                wait_for(before.take, "the first play announced", 10)
            counted = relay.announced
            bus.stop()
            play(api, game, 3)  # commands succeed without the bus
            # The relay tried to announce them, and was refused: nothing counted.
            wait_for(
                lambda: any("bus refused" in r.message for r in caplog.records),
                "the relay to be refused",
                10,
            )
            assert relay.announced == counted and relay.holding
            bus.start()  # the same port, empty
            with hearing(bus.url) as after:
                play(api, game, 1)
                last = version(api, game)
                wait_for(lambda: announced(after, last), "the play after the outage announced", 20)
            # The three made while it was away were announced once it was back (each
            # announcement counted only once the bus took it), and the position saved
            # is the last command's: none was skipped.
            wait_for(lambda: relay.announced >= counted + 4, "the relay's count", 10)
            wait_for(lambda: saved_is_last(database), "the last position saved", 10)
        heard = versions(after.payloads)[f"g {game.id}"]
        assert contiguous(heard, repeats=True) and heard[-1][1] == last
