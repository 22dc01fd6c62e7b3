"""A dealer the test scripts."""

from __future__ import annotations

from uuid import UUID

from service.rules import DealRound, FairShuffle, GameConfig


class DealerScriptExhaustedError(AssertionError):
    """The dealer was asked for a deal the test did not script."""


class ScriptedDealer:
    """Deals the given rounds in order, recording each ``(seed, round_number)`` it is
    asked for; asked for more than it was given, it fails the test."""

    def __init__(self, *deals: DealRound) -> None:
        self.script = list(deals)
        self.asked: list[tuple[int | None, int]] = []

    def deal(self, config: GameConfig, seed: int | None, round_number: int) -> DealRound:
        self.asked.append((seed, round_number))
        if not self.script:
            raise DealerScriptExhaustedError(
                f"no deal scripted for round {round_number} (seed {seed})"
            )
        return self.script.pop(0)

    def commit(self, game_id: UUID) -> FairShuffle | None:
        return None  # its games are dealt from the script, not fairly

    def client_seed(self) -> str:  # pragma: no cover - never asked: no fair games
        raise AssertionError("a scripted dealer deals no fair game")

    def fair_deal(  # pragma: no cover - never asked: no fair games
        self,
        game_id: UUID,
        config: GameConfig,
        fairness: FairShuffle,
        client_seeds: tuple[str, ...],
        round_number: int,
    ) -> DealRound:
        raise AssertionError("a scripted dealer deals no fair game")

    def reveal(self, game_id: UUID, fairness: FairShuffle) -> str:  # pragma: no cover
        raise AssertionError("a scripted dealer deals no fair game")
