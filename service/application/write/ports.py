"""What the write path needs besides the event store: sealed idempotency outcomes and a dealer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from service.rules import DealRound, FairShuffle, GameConfig


@dataclass(frozen=True, slots=True)
class SealedRecord:
    """What an idempotent command left under its key: its outcome, encrypted with the
    client's raw key (only the key's digest is stored). ``legacy_status`` is set only on
    records written before outcomes were stored (a rendered response and its status)."""

    fingerprint: str
    sealed: bytes
    legacy_status: int | None = None


class DuplicateKeyError(Exception):
    """Another command stored its outcome under this idempotency key first."""


class IdempotencyStore(Protocol):
    def lock(self, scope: str, key_sha256: str) -> None:
        """Hold this key until the transaction ends: a twin request waits, then replays."""
        ...

    def get(self, scope: str, key_sha256: str) -> SealedRecord | None: ...

    def add(self, scope: str, key_sha256: str, record: SealedRecord, created_at: datetime) -> None:
        """Store an outcome; :class:`DuplicateKeyError` if the key is taken."""
        ...

    def expire(self, before: datetime, limit: int) -> int:
        """Forget at most ``limit`` outcomes stored before ``before`` (done at once); how
        many were forgotten."""
        ...


class Dealer(Protocol):
    def deal(self, config: GameConfig, seed: int | None, round_number: int) -> DealRound:
        """A shuffled deal: from ``seed`` deterministically, else from a secure source."""
        ...

    def commit(self, game_id: UUID) -> FairShuffle | None:
        """A new game's commitment to a secret server seed, sealed (docs/fairness.md);
        None when this dealer does not deal fairly (a test's scripted dealer)."""
        ...

    def client_seed(self) -> str:
        """A client seed for a seat of a fair game whose player gave none."""
        ...

    def fair_deal(
        self,
        game_id: UUID,
        config: GameConfig,
        fairness: FairShuffle,
        client_seeds: tuple[str, ...],
        round_number: int,
    ) -> DealRound:
        """Round ``round_number``'s deal of a fair game, from its sealed server seed."""
        ...

    def reveal(self, game_id: UUID, fairness: FairShuffle) -> str:
        """A fair game's server seed, in hex, to reveal once the game is over."""
        ...
