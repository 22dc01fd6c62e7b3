"""The state cache is only a cache: a cached state plus the stored tail is the full replay,
and a cache that fell behind (another worker appended events) catches up before it
answers or decides anything."""

from __future__ import annotations

import random
from collections.abc import Iterator
from uuid import UUID

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.adapters.store import SqlUnitOfWork
from service.adapters.system import ShufflingDealer, SystemClock
from service.application.auth import Operator, SeatHolder
from service.application.cache import StateCache
from service.application.codec import decode
from service.application.games import GameService
from service.bootstrap import Container, build
from service.rules import (
    INITIAL,
    OPERATOR,
    PUBLIC,
    GameState,
    SeatViewer,
    evolve,
    observe,
    replay_checked,
)
from service.settings import Settings
from service.web.app import create_app
from tests.service.api import OPERATOR_TOKEN, Api, Game


def uncached(container: Container, capacity: int = 0) -> GameService:
    """A service on the same database with an empty cache (capacity 0: it never caches)."""
    return GameService(
        lambda *, snapshot=False: SqlUnitOfWork(container.engine, snapshot=snapshot),
        SystemClock(),
        ShufflingDealer(),
        OPERATOR_TOKEN,
        StateCache(capacity),
    )


def replay(container: Container, game_id: UUID, upto: int | None = None) -> tuple[GameState, int]:
    """The state folded from the first stored event, with no cache anywhere, and the
    number of events folded."""
    with SqlUnitOfWork(container.engine) as uow:
        rows = uow.events.load(game_id, upto=upto)
    state = INITIAL
    for row in rows:
        state = evolve(state, decode(row))
    return state, len(rows)


def assert_same_as_replay(
    container: Container, game: Game, *services: GameService, seats: bool = True
) -> None:
    """Every view each service gives equals the one of a full replay."""
    gid = UUID(game.id)
    state, version = replay(container, gid)
    for service in services:
        public = service.public_view(gid)
        assert (public.version, public.view) == (version, observe(state, PUBLIC))
        operator = service.state_at(gid, Operator(), None)
        assert (operator.version, operator.view) == (version, observe(state, OPERATOR))
        for seat in range(game.players if seats else 0):
            seat_view = service.seat_view(gid, SeatHolder(gid, seat))
            assert (seat_view.version, seat_view.view) == (
                version,
                observe(state, SeatViewer(seat)),
            )


@pytest.fixture
def other_worker(settings: Settings) -> Iterator[tuple[Container, FlaskClient]]:
    """A second process on the same database: its own engine, cache and app (as another
    gunicorn worker)."""
    container = build(settings)
    yield container, create_app(settings, container).test_client()
    container.engine.dispose()


def test_the_warm_cache_equals_a_full_replay_after_every_command(
    api: Api, container: Container
) -> None:
    game = api.start(4, seed=501)
    fresh = uncached(container)
    for _ in api.play_out(game, random.Random(501)):
        # The seat views are folded by the same loader; they are compared at the end.
        assert_same_as_replay(container, game, container.games, fresh, seats=False)
    assert_same_as_replay(container, game, container.games, fresh)
    assert api.public(game.id)["status"] == "finished"
    with SqlUnitOfWork(container.engine) as uow:
        events = [decode(r) for r in uow.events.load(UUID(game.id))]
    checked = replay_checked(events)
    assert (
        observe(checked, OPERATOR) == container.games.state_at(UUID(game.id), Operator(), None).view
    )


def test_state_at_every_version_equals_a_replay_of_that_prefix(
    api: Api, container: Container
) -> None:
    game = api.start(3, seed=502)
    for _ in zip(range(40), api.play_out(game, random.Random(502)), strict=False):
        pass
    gid = UUID(game.id)
    version = container.games.public_view(gid).version
    for at in range(1, version + 1):
        view = container.games.state_at(gid, Operator(), at)
        assert view.version == at
        assert view.view == observe(replay(container, gid, upto=at)[0], OPERATOR)


def test_a_cache_behind_the_store_catches_up_before_it_decides(
    api: Api, app: Flask, container: Container, other_worker: tuple[Container, FlaskClient]
) -> None:
    """Worker 1 caches the game at version k; worker 2 appends; worker 1's next command
    is decided on the new state (a stale cache would accept a second card of the same
    seat), and its reads see worker 2's events."""
    other_container, other = other_worker
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
    assert_same_as_replay(container, game, container.games, other_container.games)


def test_two_workers_taking_turns_at_random_play_one_sound_game(
    api: Api, app: Flask, container: Container, other_worker: tuple[Container, FlaskClient]
) -> None:
    """Every command goes to one of two workers at random, so each decides on a cache
    that is often several events behind; the game ends, and the history verifies."""
    other_container, other = other_worker
    workers = [Api(app.test_client()), Api(other)]
    game = api.start(4, seed=504, variant="seven_followers_short")
    rng = random.Random(504)
    for _ in range(2000):
        if workers[rng.randrange(2)].act_randomly(game, rng) is None:
            break
    assert api.public(game.id)["status"] == "finished"
    gid = UUID(game.id)
    assert container.games.verify(gid).intact
    assert other_container.games.verify(gid).intact
    assert_same_as_replay(container, game, container.games, other_container.games)


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
