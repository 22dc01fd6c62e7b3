"""Engine benchmark: random bots play complete games through decide/evolve, and replay
throughput.

Replay runs five rounds over every kind of game and prints the best round's rate (the
code's speed) and the median round's. Prints figures; asserts nothing.
Run: ``.venv/bin/python -m bench.engine_bench``.
"""

from __future__ import annotations

import argparse
import gc
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


ROUNDS = 5


class Config:
    """One kind of game: its histories, played once, and its replays' times."""

    def __init__(
        self, players: int, scoring: Scoring, variant: Variant, games: int, seed: int
    ) -> None:
        self.label = f"{players}p {scoring:<8} {variant:<21}"
        self.games = games
        rng = random.Random(seed)
        self.histories: list[list[Event]] = []
        t0 = time.perf_counter()
        for _ in range(games):
            events: list[Event] = []
            for step in play_game(players, scoring, variant, rng=rng):
                events.extend(step.events)
            self.histories.append(events)
        self.played = time.perf_counter() - t0
        self.events = sum(len(h) for h in self.histories)
        self.stored = [[(type(e).TYPE, to_data(e)) for e in h] for h in self.histories]
        self.fold_s: list[float] = []
        self.decode_s: list[float] = []

    def replay(self) -> None:
        start = time.perf_counter()
        for h in self.histories:
            fold(h)
        self.fold_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        for stored in self.stored:
            fold(from_data(t, d) for t, d in stored)
        self.decode_s.append(time.perf_counter() - start)

    def report(self) -> str:
        def rates(seconds: list[float]) -> str:
            best, middle = min(seconds), statistics.median(seconds)
            return (
                f"{self.events / best:10,.0f} events/s best, {self.events / middle:10,.0f} "
                f"median ({middle / self.events * 1e6:.2f} us/event)"
            )

        return (
            f"{self.label} games={self.games} events={self.events} "
            f"(mean {self.events / self.games:.0f}/game)\n"
            f"  self-play (decide+evolve+views+random bot): "
            f"{self.games / self.played:.1f} games/s\n"
            f"  replay, evolve only:               {rates(self.fold_s)}\n"
            f"  replay, decode JSON data + evolve: {rates(self.decode_s)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    configs = [Config(p, s, v, args.games, args.seed) for p, s, v in CONFIGS]
    # Every configuration's histories stay alive throughout: out of the collector's
    # sight, so that its passes cost what they would with one configuration's.
    gc.collect()
    gc.freeze()
    # Round after round over every configuration, so that a slow spell of the machine
    # (a virtual machine's speed here varies by a quarter from minute to minute) falls
    # on all of them, not on one; the best round is the code's speed (as timeit
    # advises), the median what a busy machine gives.
    for _ in range(ROUNDS):
        for config in configs:
            config.replay()
    for config in configs:
        print(config.report())


if __name__ == "__main__":
    main()
