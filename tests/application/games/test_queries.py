"""Queries: views at the current version or a given one, ``Unchanged`` for a version the
caller already has, and event feeds redacted for a seat; audits for operators only."""

from __future__ import annotations

from typing import Any

import pytest

from service.application.commands import ANY_VERSION
from service.application.errors import ForbiddenError, InvalidInputError, UnauthenticatedError
from service.application.games.queries.feeds import audit, feed
from service.application.games.queries.views import (
    operator_state,
    public_view,
    public_view_at,
    seat_view,
    seat_view_at,
)
from service.application.identity.principals import Anonymous, Operator
from service.application.results import Unchanged, Versioned
from tests.application.fakes import make_deps
from tests.application.table import Game, Table, card_ids, ordered_deal


def strings(data: Any) -> set[str]:
    """Every string anywhere in event data."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings(v) for v in data.values())) if data else set()
    if isinstance(data, list | tuple):
        return set().union(*(strings(v) for v in data)) if data else set()
    return set()


def test_a_view_is_unchanged_at_a_version_the_caller_has(table: Table, game: Game) -> None:
    version = table.version(game.id)
    seat = game.seats[0]

    assert public_view(table.deps, game.id, unless=frozenset({version})) == Unchanged(
        game.id, version
    )
    assert seat_view(table.deps, game.id, seat, unless=frozenset({1, version})) == Unchanged(
        game.id, version
    )
    assert public_view(table.deps, game.id, unless=frozenset({ANY_VERSION})) == Unchanged(
        game.id, version
    )
    changed = seat_view(table.deps, game.id, seat, unless=frozenset({version - 1}))
    assert isinstance(changed, Versioned) and changed.version == version


@pytest.mark.parametrize("cache", ["warm", "cold"])
def test_views_at_a_version_stay_as_they_were(table: Table, game: Game, cache: str) -> None:
    version = table.version(game.id)
    public_then = table.public(game.id)
    seat_then = table.view(game, 1)
    operator_then = operator_state(table.deps, game.id, Operator()).view
    table.pass_all(game)
    table.play_turn(game)
    deps = table.deps if cache == "warm" else make_deps(table.db, table.clock, table.dealer)

    public = public_view_at(deps, game.id, version)
    seat = seat_view_at(deps, game.id, game.seats[1], version)
    operator = operator_state(deps, game.id, Operator(), at=version)

    assert table.version(game.id) > version
    assert isinstance(public, Versioned) and isinstance(seat, Versioned)
    assert (public.version, public.view) == (version, public_then)
    assert (seat.version, seat.view) == (version, seat_then)
    assert (operator.version, operator.view) == (version, operator_then)


def test_operator_state_is_for_operators_at_versions_that_exist(table: Table, game: Game) -> None:
    with pytest.raises(ForbiddenError):
        operator_state(table.deps, game.id, game.seats[0])
    with pytest.raises(InvalidInputError) as refused:
        operator_state(table.deps, game.id, Operator(), at=table.version(game.id) + 1)
    assert refused.value.code == "at_out_of_range"
    state = operator_state(table.deps, game.id, Operator(), at=1)
    assert state.view.seats[0].joined is False


def test_a_seats_feed_shows_no_other_hand_nor_pass(table: Table, game: Game) -> None:
    table.pass_first_three(game, 2)
    others = set().union(*(card_ids(h) for s, h in enumerate(ordered_deal().hands) if s != 0))

    seat = feed(table.deps, game.id, game.seats[0], after=0, limit=100)
    operator = feed(table.deps, game.id, Operator(), after=0, limit=100)

    assert [e.seq for e in seat.events] == list(range(1, seat.version + 1))
    assert not strings([e.data for e in seat.events]) & others
    assert card_ids(ordered_deal().hands[0]) <= strings([e.data for e in seat.events])
    assert others <= strings([e.data for e in operator.events])


def test_a_feed_comes_in_pages(table: Table, game: Game) -> None:
    first = feed(table.deps, game.id, game.seats[1], after=0, limit=4)
    rest = feed(table.deps, game.id, game.seats[1], after=4, limit=4)
    assert ([e.seq for e in first.events], first.next_after) == ([1, 2, 3, 4], 4)
    assert ([e.seq for e in rest.events], rest.next_after) == ([5, 6], None)


def test_a_feed_is_for_the_games_seats(table: Table, game: Game) -> None:
    with pytest.raises(UnauthenticatedError):
        feed(table.deps, game.id, Anonymous(), after=0, limit=10)


@pytest.mark.parametrize(
    ("principal", "error"),
    [(Anonymous(), UnauthenticatedError), ("seat", ForbiddenError)],
    ids=["anyone", "a seat"],
)
def test_the_audit_is_for_operators(
    table: Table, game: Game, principal: Any, error: type[Exception]
) -> None:
    who = game.seats[0] if principal == "seat" else principal
    with pytest.raises(error):
        audit(table.deps, game.id, who, after=0, limit=100)

    trail = audit(table.deps, game.id, Operator(), after=0, limit=100)
    assert trail.events == table.stream(game.id)
    assert trail.next_after is None
