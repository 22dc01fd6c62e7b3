"""`yokai bots match` (service/bots/match.py, issue 31): duplicate deals, a tally that
adds up, the Wilson interval, and the JSON the command prints."""

from __future__ import annotations

import json

import pytest

from service.bots.match import match, quantiles, wilson
from service.cli import main
from service.rules import Scoring, Variant


def test_four_players_play_each_deal_twice_with_the_teams_swapped() -> None:
    found = match("basic", "random", 4, Variant.STANDARD, Scoring.BASIC, 12, seed=5)
    assert found["games"] == 12
    assert found["a_wins"] + found["b_wins"] == 12  # one team wins each game
    assert found["a_rate"] == pytest.approx(found["a_wins"] / 12, abs=1e-4)
    low, high = found["ci95"]
    assert low <= found["a_rate"] <= high


def test_three_players_play_each_deal_three_times_a_in_each_seat() -> None:
    found = match("random", "random", 3, Variant.STANDARD, Scoring.ADVANCED, 9, seed=1)
    assert found["games"] == 9
    # Three equal seats: over a deal played with the lone seat in each place, the lone
    # seat and the pair share the wins.
    assert 0 <= found["a_wins"] <= 9
    again = match("random", "random", 3, Variant.STANDARD, Scoring.ADVANCED, 9, seed=1)
    assert again["a_wins"] == found["a_wins"]  # the same seed, the same games


def test_the_wilson_interval_and_quantiles() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    assert quantiles([float(i) for i in range(1, 101)]) == {"p50": 51.0, "p99": 99.0}


def test_the_command_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["bots", "match", "--a", "basic", "--b", "random", "--games", "4"])
    assert code == 0
    found = json.loads(capsys.readouterr().out)
    assert set(found) == {"games", "a_wins", "b_wins", "a_rate", "ci95", "ms_per_move"}
    assert set(found["ms_per_move"]) == {"a", "b"}
    assert (
        main(
            [
                "bots",
                "match",
                "--a",
                "basic",
                "--b",
                "random",
                "--players",
                "3",
                "--variant",
                "seven_followers",
            ]
        )
        == 2
    )
