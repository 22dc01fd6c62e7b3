"""What the service does around its store: a seat token it remembers still opens nothing
the store would refuse (also when the credential goes between a command's read and its
commit), connections the server dropped are replaced before use, and a store that cannot
be reached is a 503."""

from __future__ import annotations

import dataclasses
import os
import resource
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from service.application.commands import Context, PlayCard
from service.application.games.cache import Loaded, StateCache
from service.application.identity.ports import CredentialGoneError
from service.application.identity.principals import SeatHolder
from service.application.write.registry import execute
from service.bootstrap import Container
from tests.support.api import Api
from tests.support.deals import assert_problem, start_playing
from tests.support.postgres import MakeApp

Sql = Callable[..., list[Any]]


def test_a_remembered_token_whose_credential_is_gone_opens_nothing(api: Api, sql: Sql) -> None:
    """The process remembers which seat a token opens; once the store no longer has the
    credential (as when a seat is left), every use of the token is refused at once."""
    game = start_playing(api)
    seat = api.public(game.id)["round"]["turn"]
    view = api.view(game, seat)  # the token is now remembered by this process
    version = view["version"]
    sql("DELETE FROM seat_credentials WHERE game_id = :g AND seat = :s", g=game.id, s=seat)

    headers = game.seat_headers(seat)
    assert_problem(api.play(game, seat, view["legal"][0]), 401, "invalid_token")
    assert_problem(api.get(f"/v1/games/{game.id}/view", **headers), 401, "invalid_token")
    assert_problem(api.get(f"/v1/games/{game.id}/events", **headers), 401, "invalid_token")
    assert api.public(game.id)["version"] == version
    # The other seats are not affected.
    other = (seat + 1) % 4
    assert api.view(game, other)["version"] == version


def test_connections_the_server_dropped_are_replaced_before_use(api: Api, sql: Sql) -> None:
    """No pre-ping on checkout: a connection the server closed (a restart, an idle
    timeout) is noticed from its socket and replaced; no request fails for it."""
    game = start_playing(api)
    for _ in range(3):
        seat = api.public(game.id)["round"]["turn"]
        assert api.play(game, seat, api.view(game, seat)["legal"][0]).status_code == 200
    dropped = [
        row.pid
        for row in sql(
            "WITH others AS MATERIALIZED (SELECT pid FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND backend_type = 'client backend') "
            "SELECT pid FROM others WHERE pg_terminate_backend(pid)"
        )
    ]
    assert dropped
    # pg_terminate_backend only signals: wait (with a deadline) until those backends have
    # ended, so the next requests meet connections the server has closed, not ones it is
    # closing while they are used (a race no pool can see coming).
    deadline = time.monotonic() + 10
    while sql("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = ANY(:p)", p=dropped)[0].n:
        assert time.monotonic() < deadline, "the terminated backends did not end"
        time.sleep(0.01)
    for _ in range(6):
        seat = api.public(game.id)["round"]["turn"]
        r = api.play(game, seat, api.view(game, seat)["legal"][0])
        assert r.status_code == 200, r.get_json()


class RevokingCache(StateCache):
    """Never hits (so every command reads the store: not optimistic); on the first put
    (right after the read, before the commit) the credential is deleted."""

    def __init__(self, revoke: Callable[[], None]) -> None:
        super().__init__(capacity=16)
        self._revoke: Callable[[], None] | None = revoke

    def get(self, game_id: uuid.UUID) -> Loaded | None:
        return None

    def put(self, game_id: uuid.UUID, loaded: Loaded) -> None:
        if self._revoke is not None:
            revoke, self._revoke = self._revoke, None
            revoke()
        super().put(game_id, loaded)


@pytest.mark.parametrize("key", [None, "k-" + uuid.uuid4().hex])
def test_a_credential_revoked_between_read_and_commit_stops_the_command(
    api: Api, sql: Sql, container: Container, key: str | None
) -> None:
    game = start_playing(api)
    seat = api.public(game.id)["round"]["turn"]
    card = api.view(game, seat)["legal"][0]
    holder = container.deps.identity.identify(game.tokens[seat])
    assert isinstance(holder, SeatHolder)
    before = sql("SELECT count(*) AS n FROM events WHERE game_id = :g", g=game.id)[0].n

    def revoke() -> None:
        sql("DELETE FROM seat_credentials WHERE game_id = :g AND seat = :s", g=game.id, s=seat)

    deps = dataclasses.replace(container.deps, cache=RevokingCache(revoke))
    ctx = Context(principal=holder, idempotency_key=key)
    with pytest.raises(CredentialGoneError):
        execute(deps, PlayCard(uuid.UUID(game.id), card), ctx)
    after = sql("SELECT count(*) AS n FROM events WHERE game_id = :g", g=game.id)[0].n
    gone = sql(
        "SELECT count(*) AS n FROM seat_credentials WHERE game_id = :g AND seat = :s",
        g=game.id,
        s=seat,
    )[0].n
    assert gone == 0
    # The credential was gone before the commit: nothing may have been appended.
    assert after == before, f"{after - before} event(s) committed after the credential was gone"


def test_a_connection_on_a_high_descriptor_is_usable(make_app: MakeApp) -> None:
    """A process with many open sockets (a worker keeps up to 1000 idle keep-alive
    clients) gets its database connections on descriptors past 1023, which
    select.select cannot take: the check at checkout must still work."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    held = [os.open("/dev/null", os.O_RDONLY) for _ in range(1100)]
    try:
        app = make_app()  # another process: its own engine, nothing pooled yet
        r = app.client().get(f"/v1/games/{uuid.uuid4()}")
        assert r.status_code == 404, (r.status_code, r.get_json())
    finally:
        for fd in held:
            os.close(fd)


def test_an_unreachable_store_is_503_not_500(make_app: MakeApp) -> None:
    app = make_app(database_url="postgresql://nobody@127.0.0.1:9/nothing")
    r = app.client().get(f"/v1/games/{uuid.uuid4()}")
    assert_problem(r, 503, "store_unavailable")
    assert r.headers["Retry-After"]
