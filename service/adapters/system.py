"""The outside world's clock and randomness."""

from __future__ import annotations

import random
import secrets
from datetime import UTC, datetime

from service.rules import DealRound, GameConfig


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ShufflingDealer:
    """Shuffles with the operating system's CSPRNG, or deterministically from a seed.

    A seeded shuffle depends only on (seed, round number), so an operator who gives a
    seed can reproduce every deal of the game.
    """

    def deal(self, config: GameConfig, seed: int | None, round_number: int) -> DealRound:
        deck = list(config.deck)
        if seed is None:
            secrets.SystemRandom().shuffle(deck)
        else:
            random.Random(f"yokai-septet:{seed}:{round_number}").shuffle(deck)
        size = config.hand_size
        hands = tuple(tuple(deck[i * size : (i + 1) * size]) for i in range(config.players))
        return DealRound(hands, None if config.seven_followers else deck[-1])
