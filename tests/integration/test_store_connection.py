"""What the service does around its store: a seat token it remembers still opens nothing
the store would refuse, and connections the server dropped are replaced before use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.api import Api
from tests.support.deals import assert_problem, start_playing

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
    dropped = sql(
        "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND backend_type = 'client backend'"
    )
    assert dropped[0].n >= 1
    for _ in range(6):
        seat = api.public(game.id)["round"]["turn"]
        r = api.play(game, seat, api.view(game, seat)["legal"][0])
        assert r.status_code == 200, r.get_json()
