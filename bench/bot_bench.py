"""Bot benchmark: the `basic` bot against `random` ones, through the rules engine.

For each mode it plays ``--games`` whole games (default 1,000) and prints how often the
basic bot's side won, with a 95 % Wilson confidence interval, beside what a random
player in the same seat would win (1/3 with three players, 1/2 with four):

- 3p: one basic seat against two random seats (the basic seat rotates over the games);
- 4p: a basic team (two seats) against a random team (the teams alternate);
- Seven Followers: as 4p, variant `seven_followers`.

Scoring is basic (first to 2 round points; Seven Followers: 7 seals). A game without a
winner on the basic side counts as not won. Each game's deals come from a seeded
``random.Random`` (``--seed``), so a run is repeatable.

    .venv/bin/python -m bench.bot_bench --games 1000

Goal (issue 12): basic wins at least 65 % of games against random opponents. It asserts
nothing.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Sequence

from service.bots import Bot, random_move
from service.bots.heuristic import basic_move
from service.bots.selfplay import dealer_command, to_command
from service.rules import (
    INITIAL,
    Command,
    CreateGame,
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
)


def play(players: int, variant: Variant, bots: Sequence[Bot], rng: random.Random) -> GameState:
    """One game, each seat played by its bot, from creation to its end."""
    state = fold(decide(INITIAL, CreateGame(players, Scoring.BASIC, variant)))
    for seat in range(players):
        state = fold(decide(state, JoinSeat(seat, f"seat {seat}")), state)
    for _ in range(100_000):
        if state.phase is Phase.FINISHED:
            return state
        command: Command | None = dealer_command(state, rng)
        if command is None:
            seats = [s for s in range(players) if expected_action(state, s) is not None]
            seat = seats[0]
            move = bots[seat](observe(state, SeatViewer(seat)), rng)
            assert move is not None
            command = to_command(seat, move)
        state = fold(decide(state, command), state)
    raise RuntimeError("the game did not end")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def mode(name: str, players: int, variant: Variant, games: int, seed: int) -> None:
    rng = random.Random(seed)
    wins = 0
    started = time.perf_counter()
    for g in range(games):
        basic_seats = {g % 3} if players == 3 else {g % 2, g % 2 + 2}
        bots = [basic_move if s in basic_seats else random_move for s in range(players)]
        state = play(players, variant, bots, rng)
        assert state.config is not None and state.winners is not None
        basic_sides = {state.config.side_of(s) for s in basic_seats}
        wins += bool(basic_sides & set(state.winners))
    seconds = time.perf_counter() - started
    low, high = wilson(wins, games)
    baseline = 1 / 3 if players == 3 else 1 / 2
    print(
        f"{name:<16} {games:>6} games  basic wins {wins / games:6.1%}  "
        f"95% CI [{low:.1%}, {high:.1%}]  random baseline {baseline:.1%}  "
        f"({seconds:.1f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--modes", default="3p,4p,sf")
    args = parser.parse_args()
    wanted = set(args.modes.split(","))
    if "3p" in wanted:
        mode("3p standard", 3, Variant.STANDARD, args.games, args.seed)
    if "4p" in wanted:
        mode("4p standard", 4, Variant.STANDARD, args.games, args.seed)
    if "sf" in wanted:
        mode("Seven Followers", 4, Variant.SEVEN_FOLLOWERS, args.games, args.seed)


if __name__ == "__main__":
    main()
