"""The outside world's clock and randomness."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from uuid import UUID

from service.adapters.dealing.seed_vault import FairnessKeyError, SeedVault, new_fair_shuffle
from service.rules import (
    DealRound,
    FairShuffle,
    GameConfig,
    deal_shuffled,
    fair_deal,
    round_message,
    seed_key,
)


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ShufflingDealer:
    """Deals with the rules' shuffle (``SHUFFLE_ALGORITHM``).

    The message is the round number, so each round of a game is a different shuffle. A
    seeded game's key is derived from the seed alone: its deals depend only on (seed,
    round number, algorithm), so an operator who gives a seed can reproduce every deal of
    the game. With a ``vault`` every other game is provably fair (docs/fairness.md): a
    secret server seed, committed to at creation and sealed in the game's history, is
    the key of every deal, with the seats' client seeds in the message. Without one
    (tests, benchmarks) such a game draws a new key from the CSPRNG for every deal.
    """

    def __init__(self, vault: SeedVault | None = None) -> None:
        self._vault = vault

    def deal(self, config: GameConfig, seed: int | None, round_number: int) -> DealRound:
        key = secrets.token_bytes(32) if seed is None else seed_key(seed)
        return deal_shuffled(config, key, round_message(round_number))

    def commit(self, game_id: UUID) -> FairShuffle | None:
        return None if self._vault is None else new_fair_shuffle(self._vault, game_id)

    def client_seed(self) -> str:
        return secrets.token_hex(16)

    def fair_deal(
        self,
        game_id: UUID,
        config: GameConfig,
        fairness: FairShuffle,
        client_seeds: tuple[str, ...],
        round_number: int,
    ) -> DealRound:
        if self._vault is None or fairness.sealed is None:
            raise FairnessKeyError("this service has no fairness key to deal a fair game")
        seed = self._vault.open(game_id, fairness.sealed)
        return fair_deal(config, seed, round_number, client_seeds)

    def reveal(self, game_id: UUID, fairness: FairShuffle) -> str:
        if self._vault is None or fairness.sealed is None:
            raise FairnessKeyError("this service has no fairness key to reveal a seed")
        return self._vault.open(game_id, fairness.sealed).hex()
