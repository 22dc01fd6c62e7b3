"""The state cache is only a cache: a cached state plus the stored tail is the full replay,
and a cache that fell behind (another worker appended events) catches up before it
answers or decides anything."""

from __future__ import annotations

import dataclasses
import random
from typing import Any
from uuid import UUID

import pytest
from flask import Flask

from service.adapters.postgres.events import SqlEventStore
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.application.deps import Deps
from service.application.games.cache import StateCache
from service.application.games.codec import decode
from service.application.games.loading import SNAPSHOT_EVERY
from service.application.games.queries import views
from service.application.identity.principals import Operator, SeatHolder
from service.application.integrity.verify import verify
from service.application.results import Versioned
from service.bootstrap import Container
from service.rules import (
    OPERATOR,
    PUBLIC,
    SNAPSHOT_VERSION,
    GameState,
    SeatViewer,
    fold,
    observe,
    replay_checked,
)
from tests.support.api import Api, Game
from tests.support.postgres import AppUnderTest, MakeApp


def uncached(container: Container, capacity: int = 0) -> Deps:
    """The application on the same database with an empty cache (capacity 0: it never
    caches)."""
    return dataclasses.replace(container.deps, cache=StateCache(capacity))


def replay(container: Container, game_id: UUID, upto: int | None = None) -> tuple[GameState, int]:
    """The state folded from the first stored event, with no cache anywhere, and the
    number of events folded."""
    with SqlUnitOfWork(container.engine) as uow:
        rows = uow.events.load(game_id, upto=upto)
    return fold(decode(row) for row in rows), len(rows)


def current(view: object) -> Versioned[object]:
    assert isinstance(view, Versioned)
    return view


def assert_same_as_replay(
    container: Container, game: Game, *apps: Deps, seats: bool = True
) -> None:
    """Every view each process gives equals the one of a full replay."""
    gid = UUID(game.id)
    state, version = replay(container, gid)
    for deps in apps:
        public = current(views.public_view(deps, gid))
        assert (public.version, public.view) == (version, observe(state, PUBLIC))
        operator = views.operator_state(deps, gid, Operator())
        assert (operator.version, operator.view) == (version, observe(state, OPERATOR))
        for seat in range(game.players if seats else 0):
            seat_view = current(views.seat_view(deps, gid, SeatHolder(gid, seat)))
            assert (seat_view.version, seat_view.view) == (
                version,
                observe(state, SeatViewer(seat)),
            )


@pytest.fixture
def other_worker(make_app: MakeApp) -> AppUnderTest:
    """A second process on the same database: its own engine, cache and app (as another
    gunicorn worker)."""
    return make_app()


def test_the_warm_cache_equals_a_full_replay_after_every_command(
    api: Api, container: Container
) -> None:
    game = api.start(4, seed=501)
    fresh = uncached(container)
    for _ in api.play_out(game, random.Random(501)):
        # The seat views are folded by the same loader; they are compared at the end.
        assert_same_as_replay(container, game, container.deps, fresh, seats=False)
    assert_same_as_replay(container, game, container.deps, fresh)
    assert api.public(game.id)["status"] == "finished"
    with SqlUnitOfWork(container.engine) as uow:
        events = [decode(r) for r in uow.events.load(UUID(game.id))]
    checked = replay_checked(events)
    operator = views.operator_state(container.deps, UUID(game.id), Operator())
    assert observe(checked, OPERATOR) == operator.view


def test_state_at_every_version_equals_a_replay_of_that_prefix(
    api: Api, container: Container
) -> None:
    game = api.start(3, seed=502)
    for _ in zip(range(40), api.play_out(game, random.Random(502)), strict=False):
        pass
    gid = UUID(game.id)
    version = current(views.public_view(container.deps, gid)).version
    for at in range(1, version + 1):
        view = views.operator_state(container.deps, gid, Operator(), at)
        assert view.version == at
        assert view.view == observe(replay(container, gid, upto=at)[0], OPERATOR)


def test_a_cache_behind_the_store_catches_up_before_it_decides(
    api: Api, app: Flask, container: Container, other_worker: AppUnderTest
) -> None:
    """Worker 1 caches the game at version k; worker 2 appends; worker 1's next command
    is decided on the new state (a stale cache would accept a second card of the same
    seat), and its reads see worker 2's events."""
    other = other_worker.client()
    game = api.start(4, seed=503)
    rng = random.Random(503)
    while (
        api.public(game.id)["status"] != "playing"
        or len(api.public(game.id)["round"]["trick"]) != 1
    ):
        assert api.act_randomly(game, rng) is not None
    k = api.public(game.id)["version"]
    seat = api.public(game.id)["round"]["turn"]
    legal = api.view(game, seat)["legal"]  # worker 1 now caches version k
    hand = api.view(game, seat)["hand"]
    assert len(hand) >= 2

    # Worker 2 plays the seat's card; the trick goes on to the next seat.
    r = other.post(
        f"/v1/games/{game.id}/play", json={"card": legal[0]}, headers=game.seat_headers(seat)
    )
    assert r.status_code == 200, r.get_json()
    assert r.headers["ETag"] == f'"{k + 1}"'

    # Worker 1, still holding version k, is asked for a second card of that seat.
    second = next(c for c in hand if c != legal[0])
    again = api.play(game, seat, second)
    assert again.status_code == 409, again.get_json()
    assert again.get_json()["code"] == "not_your_turn"
    stale = api.play(game, seat, second, If_Match=f'"{k}"')
    assert stale.status_code == 412
    assert stale.headers["ETag"] == f'"{k + 1}"'

    # Worker 1's reads are not stale either, nor its conditional GETs.
    conditional = api.client.get(f"/v1/games/{game.id}", headers={"If-None-Match": f'"{k}"'})
    assert conditional.status_code == 200
    assert conditional.headers["ETag"] == f'"{k + 1}"'
    assert conditional.get_json()["round"]["trick"][-1] == {"seat": seat, "card": legal[0]}
    assert_same_as_replay(container, game, container.deps, other_worker.container.deps)


def test_two_workers_taking_turns_at_random_play_one_sound_game(
    api: Api, app: Flask, container: Container, other_worker: AppUnderTest
) -> None:
    """Every command goes to one of two workers at random, so each decides on a cache
    that is often several events behind; the game ends, and the history verifies."""
    workers = [Api(app.test_client()), other_worker.api()]
    game = api.start(4, seed=504, variant="seven_followers_short")
    rng = random.Random(504)
    for _ in range(2000):
        if workers[rng.randrange(2)].act_randomly(game, rng) is None:
            break
    assert api.public(game.id)["status"] == "finished"
    gid = UUID(game.id)
    assert verify(container.deps, gid).intact
    assert verify(other_worker.container.deps, gid).intact
    assert_same_as_replay(container, game, container.deps, other_worker.container.deps)


def test_a_small_cache_that_evicts_games_still_answers_from_the_store(
    api: Api, container: Container
) -> None:
    small = uncached(container, capacity=1)
    rng = random.Random(505)
    games = [api.start(4, seed=505 + i) for i in range(3)]
    for _ in range(12):
        game = rng.choice(games)
        assert api.act_randomly(game, rng) is not None
        for g in games:
            assert_same_as_replay(container, g, small)


def test_a_process_without_the_game_folds_from_its_snapshot(
    api: Api, container: Container, sql: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every SNAPSHOT_EVERY events a command leaves a snapshot; a process that has not
    cached the game reads it and folds only the events after it: snapshot + tail is the
    full replay."""
    game = api.start(4, seed=506, variant="seven_followers")
    for _ in api.play_out(game, random.Random(506)):
        pass
    version = api.public(game.id)["version"]
    (row,) = sql("SELECT version, schema_version FROM snapshots WHERE game_id = :g", g=game.id)
    # Left by the last command that crossed a multiple of SNAPSHOT_EVERY.
    assert SNAPSHOT_EVERY <= version // SNAPSHOT_EVERY * SNAPSHOT_EVERY <= row.version <= version
    assert row.schema_version == SNAPSHOT_VERSION

    reads: list[int] = []
    real_load = SqlEventStore.load

    def counting(self: SqlEventStore, game_id: UUID, **kwargs: Any) -> list[Any]:
        rows = real_load(self, game_id, **kwargs)
        reads.append(len(rows))
        return rows

    monkeypatch.setattr(SqlEventStore, "load", counting)
    fresh = uncached(container)
    assert_same_as_replay(container, game, fresh, seats=False)  # (the replay reads all)
    public_reads = reads[1]  # after the replay's own read
    assert public_reads == version - row.version


def test_a_snapshot_that_cannot_be_read_is_ignored(
    api: Api, container: Container, sql: Any
) -> None:
    game = api.start(4, seed=507)
    for _ in zip(range(80), api.play_out(game, random.Random(507)), strict=False):
        pass
    assert sql("SELECT 1 FROM snapshots WHERE game_id = :g", g=game.id)
    sql("UPDATE snapshots SET data = '{\"config\": 1}' WHERE game_id = :g", g=game.id)
    assert_same_as_replay(container, game, uncached(container))
