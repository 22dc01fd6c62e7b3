"""Bot levels against each other on duplicate deals (``yokai bots match``, issue 31).

Four players: each deal is played twice, level ``a`` as team 0 then as team 1, so both
teams get every hand. Three players: side ``a`` is one seat against two ``b`` seats, and
each deal is played three times, ``a`` in each seat. A deal is the whole game's deals
(round after round, from one random stream per deal, the same for each copy). Every
seat decides from its own view (and the search levels from their own feed): the games
are played through the engine as the service plays them. The search levels are bound by
their worlds only, not by a clock, so a run is repeatable from its seed whatever the
machine's load (the live bots' time cap is left out). Times are per decision.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from service.bots.levels import level_move
from service.bots.selfplay import dealer_command, to_command
from service.rules import (
    INITIAL,
    Command,
    CreateGame,
    Event,
    GameState,
    JoinSeat,
    Phase,
    Scoring,
    SeatViewer,
    Variant,
    decide,
    expected_action,
    fold,
    observe,
    redact,
)
from service.rules.events import RoundDealt


@dataclass
class Tally:
    games: int = 0
    a_wins: int = 0
    b_wins: int = 0
    ms: dict[str, list[float]] = field(default_factory=lambda: {"a": [], "b": []})


def play(
    players: int,
    scoring: Scoring,
    variant: Variant,
    levels: Sequence[str],
    deal_seed: int,
    rng: random.Random,
    times: dict[int, list[float]],
) -> GameState:
    """One game, seat ``s`` played by ``levels[s]``; each decision's time by seat."""
    deals = random.Random(deal_seed)
    state = INITIAL
    events: list[Event] = []
    start = 0
    opening: list[Command] = [CreateGame(players, scoring, variant)]
    opening += [JoinSeat(s, f"{levels[s]} {s}") for s in range(players)]
    for first in opening:
        new = decide(state, first)
        events += new
        state = fold(new, state)
    while state.phase is not Phase.FINISHED:
        command: Command | None = dealer_command(state, deals)
        if command is None:
            assert state.config is not None
            seat = next(s for s in range(players) if expected_action(state, s) is not None)
            view = observe(state, SeatViewer(seat))
            seen = events[start:]

            def feed(seat: int = seat, seen: list[Event] = seen) -> list[Event]:
                return [redact(e, SeatViewer(seat)) for e in seen]

            began = time.perf_counter()
            move = level_move(levels[seat], state.config, view, feed, rng, timed=False)
            times[seat].append((time.perf_counter() - began) * 1000)
            assert move is not None
            command = to_command(seat, move)
        new = decide(state, command)
        if any(isinstance(e, RoundDealt) for e in new):
            start = len(events)
        events += new
        state = fold(new, state)
    return state


def match(
    a: str,
    b: str,
    players: int,
    variant: Variant,
    scoring: Scoring,
    games: int,
    seed: int,
) -> dict[str, Any]:
    """Play ``games`` games (rounded down to whole sets of copies) and tally them."""
    copies = 2 if players == 4 else 3
    tally = Tally()
    for deal in range(max(1, games // copies)):
        deal_seed = seed * 1_000_003 + deal
        for copy in range(copies):
            if players == 4:
                levels = [a, b, a, b] if copy == 0 else [b, a, b, a]
                a_seats = {0, 2} if copy == 0 else {1, 3}
            else:
                levels = [b] * 3
                levels[copy] = a
                a_seats = {copy}
            times: dict[int, list[float]] = {s: [] for s in range(players)}
            rng = random.Random(deal_seed * 7 + copy)
            end = play(players, scoring, variant, levels, deal_seed, rng, times)
            assert end.config is not None and end.winners is not None
            won = {s for s in range(players) if end.config.side_of(s) in end.winners}
            tally.games += 1
            tally.a_wins += bool(won & a_seats)
            tally.b_wins += bool(won - a_seats)
            for s, spent in times.items():
                tally.ms["a" if s in a_seats else "b"].extend(spent)
    rate = tally.a_wins / tally.games
    return {
        "games": tally.games,
        "a_wins": tally.a_wins,
        "b_wins": tally.b_wins,
        "a_rate": round(rate, 4),
        "ci95": [round(x, 4) for x in wilson(tally.a_wins, tally.games)],
        "ms_per_move": {side: quantiles(ms) for side, ms in tally.ms.items()},
    }


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate of ``wins`` in ``n``."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def quantiles(ms: list[float]) -> dict[str, float]:
    if not ms:
        return {"p50": 0.0, "p99": 0.0}
    ordered = sorted(ms)
    return {
        "p50": round(ordered[len(ordered) // 2], 2),
        "p99": round(ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)], 2),
    }
