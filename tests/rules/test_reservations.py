"""Seats reserved for invited players (issue 29; docs/api.md "Invitations"): the rules
know a reserved seat's player by the service's id (text) and nothing more of players."""

from __future__ import annotations

import pytest

from service.rules import (
    CreateGame,
    DeclineSeat,
    JoinSeat,
    RuleViolationError,
    Scoring,
    Variant,
    Violation,
    decide,
    fold,
    replay_checked,
)
from service.rules.events import Event

MIO, REN = "player-mio", "player-ren"


def created(reserved: tuple[str | None, ...] = (None, MIO, REN)) -> list[Event]:
    return list(decide(fold([]), CreateGame(3, Scoring.BASIC, Variant.STANDARD, reserved=reserved)))


def refused(events: list[Event], command: object) -> Violation:
    with pytest.raises(RuleViolationError) as caught:
        decide(fold(events), command)  # type: ignore[arg-type]
    return caught.value.code


def test_a_reserved_seat_is_joined_by_its_player_only() -> None:
    events = created()
    assert refused(events, JoinSeat(1, "Anyone")) is Violation.SEAT_RESERVED
    assert refused(events, JoinSeat(1, "Ren", player=REN)) is Violation.SEAT_RESERVED
    events += decide(fold(events), JoinSeat(1, "Mio", player=MIO))
    assert fold(events).reserved == (None, None, REN)
    events += decide(fold(events), JoinSeat(0, "Anyone"))  # a seat reserved for nobody
    assert fold(events).names == ("Anyone", "Mio", None)
    assert replay_checked(events) == fold(events)


def test_a_declined_seat_is_free_for_anyone() -> None:
    events = created()
    assert refused(events, DeclineSeat(2, MIO)) is Violation.SEAT_RESERVED
    assert refused(events, DeclineSeat(0, MIO)) is Violation.NOT_RESERVED
    events += decide(fold(events), DeclineSeat(2, REN))
    assert fold(events).reserved == (None, MIO, None)
    events += decide(fold(events), JoinSeat(2, "Anyone"))
    assert refused(events, DeclineSeat(2, REN)) is Violation.NOT_RESERVED
    assert replay_checked(events) == fold(events)


def test_a_seat_is_reserved_for_one_player_and_a_player_gets_one() -> None:
    for reserved in [(MIO, MIO, None), (MIO, None), (None, None, None, MIO)]:
        assert refused([], CreateGame(3, Scoring.BASIC, reserved=reserved)) is (
            Violation.INVALID_OPTIONS
        )


def test_a_started_game_has_no_seat_to_decline() -> None:
    events = created((None, None, MIO))
    for seat, name in ((0, "A"), (1, "B")):
        events += decide(fold(events), JoinSeat(seat, name))
    events += decide(fold(events), JoinSeat(2, "Mio", player=MIO))
    assert fold(events).reserved == (None, None, None)
    assert refused(events, DeclineSeat(2, MIO)) in (Violation.WRONG_PHASE, Violation.NOT_RESERVED)
