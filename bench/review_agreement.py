"""The hand review's agreement with exhaustive search (issue 46's goal: ≥ 95 % of 100).

Run it with::

    nice -n 19 .venv/bin/python -m bench.review_agreement                 # every mode
    nice -n 19 .venv/bin/python -m bench.review_agreement --solved 0      # playouts alone
    nice -n 19 .venv/bin/python -m bench.review_agreement --modes standard

The positions are tests/support/endgame.py's: plays of games the basic bot plays in
every seat, ``--per-mode`` of them in each mode (``--modes``: the standard game's four,
3 and 4 players in basic and advanced scoring, and Seven Followers' two, its full and
short variants; the games seeded 1, 2, ..., each seed playing one mode, in turn), where
the seat to play holds ``--cards-left`` cards and has one clearly winning card, found
by exhaustive search in every deal consistent with its view (at most ``--most``
deals), the round's value being the review's (its share of the round's points; Seven
Followers: of the suits sealed in the round). The same number in every mode, so that
each mode's figure is as sure as the others': 25 each make the goal's 100 standard
positions and 50 of Seven Followers.
Each is reviewed as the worker reviews it (service/application/review/compute.py,
``review``, with ``YOKAI_REVIEW_SEED``'s default, 46), ``--solved`` being the hand size
up to which the review searches each world exhaustively (its default, ``SOLVED``; 0:
its playouts alone). Prints how often the review names the card best (its ``best``;
the card the seat played comes first among equal values) by mode, for the standard
modes, Seven Followers' and all, and how often the card's value is strictly the
highest, with 95 % Wilson intervals, and the misses.
"""

from __future__ import annotations

import argparse
import time

from service.application.review.compute import SOLVED, review
from service.bots.match import wilson
from tests.support.endgame import MODES, SEVEN_FOLLOWERS, end_positions

SEED = 46  # YOKAI_REVIEW_SEED's default
SETS = {"all": MODES + SEVEN_FOLLOWERS, "standard": MODES, "seven_followers": SEVEN_FOLLOWERS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-mode", type=int, default=25)
    parser.add_argument("--modes", choices=sorted(SETS), default="all")
    parser.add_argument("--cards-left", type=int, default=3)
    parser.add_argument("--most", type=int, default=400, help="consistent deals at most")
    parser.add_argument("--solved", type=int, default=SOLVED)
    args = parser.parse_args()
    started = time.process_time()
    modes = SETS[args.modes]
    named = {m.name: 0 for m in modes}
    strict = 0
    for p in end_positions(args.per_mode, args.cards_left, args.most, modes=modes):
        d = review(p.events, p.at, SEED, solved=args.solved)
        value = {o.cards: o.value for o in d.options}
        named[p.mode] += d.best == p.card
        strict += all(value[p.card] > v for c, v in value.items() if c != p.card)
        if d.best != p.card:
            print(
                f"miss: {p.mode} seq {d.seq} seat {d.seat}: clear {p.card}, review "
                f"{d.best} (played {d.chosen}); review {value}; "
                f"sure {_rounded(p.verdict.sure)} over {p.verdict.deals} deals"
            )
    for mode in modes:
        print(f"{mode.name:22} {_rate(named[mode.name], args.per_mode)}")
    for name, group in SETS.items():
        if all(m in modes for m in group):
            total = sum(named[m.name] for m in group)
            print(f"{'set ' + name:22} {_rate(total, args.per_mode * len(group))}")
    print(f"strictly highest       {_rate(strict, args.per_mode * len(named))}")
    print(f"cpu {time.process_time() - started:.0f} s")


def _rate(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k} of {n} ({100 * k / n:.1f} %, 95 % CI [{100 * low:.1f}, {100 * high:.1f}])"


def _rounded(values: dict[str, float]) -> dict[str, float]:
    return {c: round(v, 2) for c, v in values.items()}


if __name__ == "__main__":
    main()
