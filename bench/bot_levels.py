"""The four bot levels against each other: a round-robin table (issue 31).

Run it with::

    .venv/bin/python -m bench.bot_levels --games 40                 # every mode
    .venv/bin/python -m bench.bot_levels --games 100 --modes 4p-adv --pairs expert:basic

For each mode and each pair of levels ``a:b`` it runs :func:`service.bots.match.match`
(what ``yokai bots match`` runs: duplicate deals, every seat deciding from its own view
and feed) and prints ``a``'s win rate with its 95 % Wilson interval and both levels'
milliseconds per decision (p50 and p99). Modes:

- ``4p-adv``: four players, advanced scoring (a team of ``a`` against a team of ``b``);
- ``3p-adv``: three players, advanced scoring (one ``a`` seat against two ``b`` seats:
  equal strength wins a third);
- ``sf``: Seven Followers (a team against a team).

The search levels are bound by their worlds, not by a clock (issue 46), so a run is
repeatable from its seed whatever the machine's load; their ms per decision say what
the live bots' time cap (YOKAI_BOT_MOVE_MS: 250 ms for ``expert``, a third for
``strong``) would cut. Prints figures; asserts
nothing. The issue's goals: ``expert`` against ``basic`` in ``4p-adv`` at least 65 %
(the interval's low end above 60 %), ``strong`` 58 %, ``expert`` beats ``strong``;
``3p-adv`` an ``expert`` seat at least 45 %; ``sf`` an ``expert`` team at least 60 %;
``expert`` p99 at most 300 ms a move, ``strong`` 100 ms.
"""

from __future__ import annotations

import argparse
import time

from service.bots.match import match
from service.rules import Scoring, Variant

MODES = {
    "4p-adv": (4, Variant.STANDARD, Scoring.ADVANCED),
    "3p-adv": (3, Variant.STANDARD, Scoring.ADVANCED),
    "sf": (4, Variant.SEVEN_FOLLOWERS, Scoring.BASIC),
}
PAIRS = ("expert:basic", "strong:basic", "expert:strong", "basic:random", "strong:random")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games per pair and mode")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--pairs", default=",".join(PAIRS))
    args = parser.parse_args()
    print(
        f"{'mode':7} {'a:b':14} {'games':>5} {'a wins':>7} {'95 % CI':>15} "
        f"{'a ms p50/p99':>14} {'b ms p50/p99':>14} {'s':>5}"
    )
    for mode in args.modes.split(","):
        players, variant, scoring = MODES[mode]
        for pair in args.pairs.split(","):
            a, b = pair.split(":")
            started = time.monotonic()
            found = match(a, b, players, variant, scoring, args.games, args.seed)
            low, high = found["ci95"]
            ms = found["ms_per_move"]
            print(
                f"{mode:7} {pair:14} {found['games']:5d} {found['a_rate'] * 100:6.1f}% "
                f"[{low * 100:5.1f}, {high * 100:5.1f}] "
                f"{ms['a']['p50']:6.1f}/{ms['a']['p99']:6.1f} "
                f"{ms['b']['p50']:6.1f}/{ms['b']['p99']:6.1f} "
                f"{time.monotonic() - started:5.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
