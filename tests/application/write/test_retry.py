"""A command that loses a race on the ``(game_id, seq)`` key is decided again against the
new state; with an expected version (If-Match) it is refused as stale instead; after
MAX_ATTEMPTS lost races, the client is told to retry later."""

from __future__ import annotations

import pytest

from service.application.commands import ANY_VERSION, JoinSeat, PlayCard
from service.application.errors import BusyError, StaleVersionError
from service.application.identity.principals import Anonymous
from service.application.integrity.chain import first_broken_link
from service.application.ports import Actor, ActorKind
from service.application.results import Acted
from service.application.write.idempotency import MAX_ATTEMPTS
from service.rules import RuleViolationError, Violation
from tests.application.fakes import Database, make_deps
from tests.application.table import Game, Table


@pytest.mark.parametrize("expected", [None, frozenset({ANY_VERSION})], ids=["none", "any"])
def test_a_command_beaten_to_the_append_is_decided_again(
    table: Table, game: Game, db: Database, expected: frozenset[int] | None
) -> None:
    before = table.version(game.id)
    table.beaten_by(table.pass_of(game, 1))

    acted = table.pass_first_three(game, 0, expected=expected)

    assert db.interposed == 1
    assert acted == Acted(game.id, before + 2, 0)
    after = table.stream(game.id)[before:]
    assert [(e.type, e.actor) for e in after] == [
        ("CardsPassed", Actor(ActorKind.SEAT, 1)),
        ("CardsPassed", Actor(ActorKind.SEAT, 0)),
    ]
    assert first_broken_link(table.stream(game.id), table.deps.chain) is None


def test_a_command_beaten_again_and_again_is_decided_each_time(table: Table, game: Game) -> None:
    before = table.version(game.id)
    table.beaten_by(*(table.pass_of(game, seat) for seat in (1, 2, 3)))

    acted = table.pass_first_three(game, 0)

    assert table.db.interposed == 3
    assert acted.version == before + 5  # four passes, then their exchange
    assert table.types(game.id, after=before)[-2:] == ["CardsPassed", "PassesExchanged"]
    assert table.stream(game.id)[-2].actor == Actor(ActorKind.SEAT, 0)


def test_decided_again_a_command_is_refused_as_the_rules_now_say(table: Table) -> None:
    game_id = table.create()
    table.beaten_by((JoinSeat(game_id, 1, "Bo"), Anonymous()))

    with pytest.raises(RuleViolationError) as refused:
        table.run(JoinSeat(game_id, 1, "Al"), Anonymous(), client="10.0.0.1")

    assert refused.value.code is Violation.SEAT_TAKEN
    assert table.public(game_id).seats[1].name == "Bo"
    assert table.types(game_id) == ["GameCreated", "SeatJoined"]
    assert [seat for (_, seat) in table.db.committed.credentials] == [1]


def test_with_an_expected_version_a_beaten_command_is_stale(table: Table, game: Game) -> None:
    before = table.version(game.id)
    table.beaten_by(table.pass_of(game, 1))

    with pytest.raises(StaleVersionError) as refused:
        table.pass_first_three(game, 0, expected=frozenset({before}))

    assert refused.value.current == before + 1
    assert table.version(game.id) == before + 1
    assert table.view(game, 0).action == "pass"  # seat 0's pass was not stored


def test_an_expected_version_the_game_has_left_is_stale_at_once(table: Table, game: Game) -> None:
    before = table.version(game.id)
    with pytest.raises(StaleVersionError) as refused:
        table.pass_first_three(game, 0, expected=frozenset({before - 1}))
    assert refused.value.current == before
    assert table.db.interposed == 0
    assert table.version(game.id) == before


def test_after_max_attempts_lost_races_the_command_is_busy(table: Table) -> None:
    """A conflict that never clears: seat 1's credentials stored without its join (the
    join's events and credentials are one transaction, so only a broken store does
    that). Every attempt loses on the seat's key; the loop ends after MAX_ATTEMPTS."""
    game_id = table.create()
    with table.db.unit_of_work() as uow:
        uow.credentials.add(game_id, 1, "0" * 64, table.clock.now())
        uow.commit()
    opened = table.db.opened

    with pytest.raises(BusyError):
        table.join(game_id, 1)

    assert table.db.opened - opened == MAX_ATTEMPTS
    assert table.types(game_id) == ["GameCreated"]


def test_a_beaten_command_with_a_key_keeps_the_outcome_of_its_last_decision(
    table: Table, game: Game
) -> None:
    table.beaten_by(table.pass_of(game, 1))
    command, seat = table.pass_of(game, 0)
    acted = table.run(command, seat, idempotency_key="key-1")
    stored = len(table.stream(game.id))

    assert table.run(command, seat, idempotency_key="key-1") == acted
    assert len(table.stream(game.id)) == stored
    assert len(table.db.committed.idempotency) == 1


def test_a_refusal_decided_on_a_cached_state_is_decided_again_fresh(
    table: Table, playing: Game
) -> None:
    """Another process (its own cache) plays while this one caches the game one move
    behind: the next seat's play, decided on this process's cached state, would be
    'not your turn'; it is decided again on the stored state and done."""
    other = Table(
        make_deps(table.db, table.clock, table.dealer), table.db, table.clock, table.dealer
    )
    before = table.version(playing.id)
    table.view(playing, 0)  # this process now caches the game at `before`
    first = table.turn(playing)
    other.play_turn(playing)  # ... and the other process moves it on
    cached = table.deps.cache.get(playing.id)
    assert cached is not None and cached.version == before

    second = other.turn(playing)
    assert second != first
    card = other.view(playing, second).legal[0]
    acted = table.run(PlayCard(playing.id, card), playing.seats[second])

    assert acted == Acted(playing.id, before + 2, second)
    assert table.stream(playing.id)[-1].actor == Actor(ActorKind.SEAT, second)


def test_a_refusal_decided_fresh_is_given(table: Table, playing: Game) -> None:
    """A seat that may not play is refused (after deciding on the stored state too)."""
    seat = (table.turn(playing) + 1) % 4
    with pytest.raises(RuleViolationError) as refused:
        table.run(PlayCard(playing.id, table.view(playing, seat).hand[0]), playing.seats[seat])
    assert refused.value.code is Violation.NOT_YOUR_TURN
