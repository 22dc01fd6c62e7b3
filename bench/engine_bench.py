"""Engine benchmark: random bots play complete games through decide/evolve, and replay
throughput.

Prints figures; asserts nothing. Run: ``.venv/bin/python -m bench.engine_bench``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from service.bots.selfplay import play_game
from service.rules import Event, Scoring, Variant, fold, from_data, to_data

CONFIGS: list[tuple[int, Scoring, Variant]] = [
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (3, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
]


def bench(players: int, scoring: Scoring, variant: Variant, games: int, seed: int) -> None:
    rng = random.Random(seed)
    histories: list[list[Event]] = []
    t0 = time.perf_counter()
    for _ in range(games):
        events: list[Event] = []
        for step in play_game(players, scoring, variant, rng=rng):
            events.extend(step.events)
        histories.append(events)
    played = time.perf_counter() - t0
    total = sum(len(h) for h in histories)

    def fold_all() -> float:
        start = time.perf_counter()
        for h in histories:
            fold(h)
        return time.perf_counter() - start

    stored = [[(type(e).TYPE, to_data(e)) for e in h] for h in histories]

    def decode_fold_all() -> float:
        start = time.perf_counter()
        for h in stored:
            fold(from_data(t, d) for t, d in h)
        return time.perf_counter() - start

    fold_s = statistics.median(fold_all() for _ in range(5))
    decode_s = statistics.median(decode_fold_all() for _ in range(5))
    print(
        f"{players}p {scoring:<8} {variant:<21} games={games} events={total} "
        f"(mean {total / games:.0f}/game)\n"
        f"  self-play (decide+evolve+views+random bot): {games / played:8.1f} games/s\n"
        f"  replay, evolve only:                        {total / fold_s:10,.0f} events/s "
        f"({fold_s / total * 1e6:.2f} us/event)\n"
        f"  replay, decode JSON data + evolve:          {total / decode_s:10,.0f} events/s "
        f"({decode_s / total * 1e6:.2f} us/event)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    for players, scoring, variant in CONFIGS:
        bench(players, scoring, variant, args.games, args.seed)


if __name__ == "__main__":
    main()
