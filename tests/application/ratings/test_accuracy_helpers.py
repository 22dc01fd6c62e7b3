"""The helpers of bench/rating_accuracy.py: the levels-ordered detector and log loss."""

from __future__ import annotations

import math
from uuid import UUID

from bench.rating_accuracy import games_to_order, levels_ordered, log_loss
from service.rules import BotLevel

B, R = BotLevel.BASIC, BotLevel.RANDOM
P = [UUID(int=i) for i in range(1, 5)]
LEVELS = {P[0]: B, P[1]: B, P[2]: R, P[3]: R}


def test_log_loss_is_minus_ln_p_and_finite_at_zero() -> None:
    assert log_loss(1.0) == 0.0
    assert math.isclose(log_loss(0.5), math.log(2))
    assert math.isfinite(log_loss(0.0))


def test_levels_ordered_needs_every_basic_above_every_random() -> None:
    assert levels_ordered({P[0]: 10, P[1]: 8, P[2]: 7, P[3]: 1}, LEVELS, [B, R])
    assert not levels_ordered({P[0]: 10, P[1]: 6, P[2]: 7, P[3]: 1}, LEVELS, [B, R])
    assert not levels_ordered({P[0]: 7, P[1]: 8, P[2]: 7}, LEVELS, [B, R])  # a tie


def test_levels_ordered_leaves_out_unrated_players_and_empty_levels() -> None:
    assert levels_ordered({P[0]: 5, P[2]: 4}, LEVELS, [B, R])
    assert levels_ordered({P[2]: 4, P[3]: 9}, LEVELS, [B, R])
    assert levels_ordered({}, LEVELS, [B, R])


def test_games_to_order_counts_until_ordered_for_good() -> None:
    assert games_to_order([]) is None
    assert games_to_order([True, True, False]) is None
    assert games_to_order([True, True]) == 1
    assert games_to_order([False, True, False, False, True, True]) == 5
