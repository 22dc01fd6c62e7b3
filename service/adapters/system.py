"""The outside world's clock and randomness."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from service.rules import DealRound, GameConfig, deal_shuffled, round_message, seed_key


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ShufflingDealer:
    """Deals with the rules' shuffle (``SHUFFLE_ALGORITHM``): from a seed, or from fresh
    operating-system randomness.

    The message is the round number, so each round of a game is a different shuffle. A
    seeded game's key is derived from the seed alone: its deals depend only on (seed,
    round number, algorithm), so an operator who gives a seed can reproduce every deal of
    the game. An unseeded game draws a new 32-byte key from the CSPRNG for every deal, so
    nothing a player sees predicts the next one.
    """

    def deal(self, config: GameConfig, seed: int | None, round_number: int) -> DealRound:
        key = secrets.token_bytes(32) if seed is None else seed_key(seed)
        return deal_shuffled(config, key, round_message(round_number))
