"""The hand review's agreement with exhaustive search (issue 46's goal: ≥ 95 % of 100).

Run it with::

    nice -n 19 .venv/bin/python -m bench.review_agreement                 # 100 positions
    nice -n 19 .venv/bin/python -m bench.review_agreement --solved 0      # playouts alone

The positions are tests/support/endgame.py's: plays of games the basic bot plays in
every seat (the standard game's four modes in turn, seeded 1, 2, ...), where the seat
to play holds ``--cards-left`` cards and has one clearly winning card, found by
exhaustive search in every deal consistent with its view (at most ``--most`` deals).
Each is reviewed as the worker reviews it (service/application/review/compute.py,
``review``, with ``YOKAI_REVIEW_SEED``'s default, 46), ``--solved`` being the hand size
up to which the review searches each world exhaustively (its default, ``SOLVED``; 0:
its playouts alone). Prints how often the review names the card best (its ``best``;
the card the seat played comes first among equal values), how often the card's value
is strictly the highest, by mode, with 95 % Wilson intervals, and the misses.
"""

from __future__ import annotations

import argparse
import time

from service.application.review.compute import SOLVED, review
from service.bots.match import wilson
from tests.support.endgame import end_positions

SEED = 46  # YOKAI_REVIEW_SEED's default


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--cards-left", type=int, default=3)
    parser.add_argument("--most", type=int, default=400, help="consistent deals at most")
    parser.add_argument("--solved", type=int, default=SOLVED)
    args = parser.parse_args()
    started = time.process_time()
    named = strict = 0
    modes: dict[str, list[int]] = {}
    for p in end_positions(args.positions, args.cards_left, args.most):
        d = review(p.events, p.at, SEED, solved=args.solved)
        value = {o.cards: o.value for o in d.options}
        agrees = d.best == p.card
        named += agrees
        strict += all(value[p.card] > v for c, v in value.items() if c != p.card)
        mode = modes.setdefault(p.mode, [0, 0])
        mode[0] += agrees
        mode[1] += 1
        if not agrees:
            print(
                f"miss: {p.mode} seq {d.seq} seat {d.seat}: clear {p.card}, review {d.best} "
                f"(played {d.chosen}); review {value}; "
                f"sure {_rounded(p.verdict.sure)} over {p.verdict.deals} deals"
            )
    n = args.positions
    for name, (agreed, total) in sorted(modes.items()):
        print(f"{name:12} {agreed:3} of {total:3}")
    print(f"named best  {_rate(named, n)}")
    print(f"strictly    {_rate(strict, n)}")
    print(f"cpu {time.process_time() - started:.0f} s")


def _rate(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k} of {n} ({100 * k / n:.1f} %, 95 % CI [{100 * low:.1f}, {100 * high:.1f}])"


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {c: round(v, 2) for c, v in values.items()}


if __name__ == "__main__":
    main()
