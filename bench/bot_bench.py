"""Bot benchmark: the ``basic`` bot against ``random`` ones, through the rules engine.

Run it with::

    .venv/bin/python -m bench.bot_bench --games 1000            # every mode, seed 2026
    .venv/bin/python -m bench.bot_bench --games 200 --seed 7 --modes 3p,sf

For each mode it plays ``--games`` whole games (default 1,000) with
:func:`service.bots.selfplay.play_game`, one bot per seat, and prints how often the
basic bot's side won the game, with a 95 % Wilson confidence interval, beside what a
random player in the same seat would win (1/3 with three players, 1/2 with four), and
the time the mode took:

- ``3p``: one basic seat against two random seats; the basic seat rotates 0, 1, 2 over
  the games; basic scoring (R-6.2: first to 2 round points);
- ``4p``: a basic team against a random team (R-2.2); the basic team alternates between
  seats 0 & 2 and seats 1 & 3; basic scoring;
- ``sf``: as ``4p`` in the Seven Followers variant (R-7: first team to seal 7 suits);
- ``3p-adv`` and ``4p-adv``: as ``3p`` and ``4p`` with advanced scoring (R-6.3: first to
  7 points), which shows whether the bot's choices also pay when bosses are weighed.

A game the basic side did not win (another side won, or a tie went the other way by
R-6.5) counts as not won. The deals come from a ``random.Random`` seeded from
``--seed`` and the mode, so a run is repeatable. It prints figures and asserts nothing.
The goal (issue 12): basic wins at least 65 % of games against random opponents.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass

from service.bots import Bot, basic_move, random_move
from service.bots.selfplay import play_game
from service.rules import GameConfig, Scoring, Variant


@dataclass(frozen=True, slots=True)
class Mode:
    name: str
    players: int
    scoring: Scoring
    variant: Variant
    label: str


MODES: dict[str, Mode] = {
    m.name: m
    for m in (
        Mode("3p", 3, Scoring.BASIC, Variant.STANDARD, "3p standard, basic scoring"),
        Mode("4p", 4, Scoring.BASIC, Variant.STANDARD, "4p standard, basic scoring"),
        Mode("sf", 4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS, "4p Seven Followers"),
        Mode("3p-adv", 3, Scoring.ADVANCED, Variant.STANDARD, "3p standard, advanced scoring"),
        Mode("4p-adv", 4, Scoring.ADVANCED, Variant.STANDARD, "4p standard, advanced scoring"),
    )
}


def basic_seats(players: int, game: int) -> tuple[int, ...]:
    """Which seats the basic bot plays in the ``game``-th game of a mode."""
    if players == 3:
        return (game % 3,)
    return (game % 2, game % 2 + 2)


def play(mode: Mode, game: int, rng: random.Random) -> bool:
    """Play one game of ``mode``; whether the basic side won it."""
    seats = basic_seats(mode.players, game)
    bots: list[Bot] = [basic_move if s in seats else random_move for s in range(mode.players)]
    last = None
    for step in play_game(mode.players, mode.scoring, mode.variant, rng=rng, bots=bots):
        last = step.after
    assert last is not None and last.winners is not None, "the game did not end"
    config = GameConfig(mode.players, mode.scoring, mode.variant)
    return config.side_of(seats[0]) in last.winners


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95 % with the default ``z``)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def run(mode: Mode, games: int, seed: int) -> None:
    rng = random.Random(f"{seed}/{mode.name}")
    started = time.perf_counter()
    wins = sum(play(mode, g, rng) for g in range(games))
    seconds = time.perf_counter() - started
    low, high = wilson(wins, games)
    baseline = 1 / 3 if mode.players == 3 else 1 / 2
    print(
        f"{mode.label:<30} {games:>5} games  basic wins {wins / games:6.1%}  "
        f"95% CI [{low:6.1%}, {high:6.1%}]  random baseline {baseline:5.1%}  "
        f"{seconds:6.1f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per mode")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the deals")
    parser.add_argument(
        "--modes",
        default=",".join(MODES),
        help=f"comma-separated, of {', '.join(MODES)} (default: all)",
    )
    args = parser.parse_args()
    names = [m for m in args.modes.split(",") if m]
    unknown = [m for m in names if m not in MODES]
    if unknown:
        parser.error(f"unknown modes: {', '.join(unknown)}")
    print(f"basic vs random, {args.games} games per mode, seed {args.seed}")
    for name in names:
        run(MODES[name], args.games, args.seed)


if __name__ == "__main__":
    main()
