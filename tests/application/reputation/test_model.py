"""Reputation and bans as pure functions (service/application/reputation/model.py): no
mark for leaving a game still waiting (the running paths, replayed from real games, are
tests/e2e/test_reputation.py's), the score clamped at each step in order, and a ban's
length, doubling, cap, window and lifting (docs/api.md "Playing fair")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.application.reputation.model import (
    Abandonment,
    How,
    Standing,
    ban,
    ban_length,
    marks,
    standing,
)
from service.rules import BotLevel, Scoring, Variant, fold
from service.rules.events import (
    GameCreated,
    SeatJoined,
    SeatLeft,
)

T0 = datetime(2026, 11, 28, 6, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)


def test_leaving_a_game_still_waiting_leaves_no_mark() -> None:
    waiting = fold([GameCreated(3, Scoring.BASIC, Variant.STANDARD), SeatJoined(0, "P0")])
    assert marks(waiting, [(3, SeatLeft(0, BotLevel.BASIC))]) == []


def test_the_score_is_clamped_at_each_step_in_order() -> None:
    assert standing([How.RESIGNED] * 8) == Standing(0, 0, 8, 0)
    assert standing([How.RESIGNED] * 8 + [How.FINISHED]).score == 1
    assert standing([How.FINISHED] * 30).score == 100
    assert standing([*[How.FINISHED] * 30, How.TIMEOUT]) == Standing(99, 30, 0, 1)


def test_a_ban_doubles_with_each_abandonment_in_24_hours_up_to_48_hours() -> None:
    assert [ban_length(n) for n in (1, 2, 3)] == [10 * MIN, 20 * MIN, 40 * MIN]
    assert ban_length(9) == 2560 * MIN  # 42 h 40 min
    assert ban_length(10) == timedelta(hours=48) == ban_length(40)
    three = [Abandonment(T0 + n * MIN, How.LEFT) for n in range(3)]
    found = ban(three, None, T0 + 3 * MIN)
    assert found is not None and (found.count, found.until) == (3, T0 + 2 * MIN + 40 * MIN)


def test_an_abandonment_older_than_24_hours_no_longer_counts() -> None:
    old, new = T0, T0 + timedelta(hours=24, minutes=1)
    found = ban([Abandonment(old, How.LEFT), Abandonment(new, How.RESIGNED)], None, new)
    assert found is not None and (found.count, found.until) == (1, new + 10 * MIN)


def test_a_ban_runs_out_and_a_lift_ends_it_without_forgetting_the_count() -> None:
    first = [Abandonment(T0, How.FORFEITED)]
    assert ban(first, None, T0 + 10 * MIN) is None  # over
    assert ban(first, T0 + MIN, T0 + 2 * MIN) is None  # lifted
    second = [*first, Abandonment(T0 + 5 * MIN, How.LEFT)]
    found = ban(second, T0 + MIN, T0 + 6 * MIN)
    assert found is not None and found.count == 2 and found.until == T0 + 25 * MIN
