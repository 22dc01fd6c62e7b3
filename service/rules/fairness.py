"""Checking a provably fair game's deals against its revealed server seed.

Pure and standard library only, as the rest of the rules: given a game's events, every
``RoundDealt`` of a finished fair game must be exactly what ``yokai-shuffle-v1`` deals
from the revealed seed and the seats' client seeds (docs/fairness.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from service.rules.config import GameConfig
from service.rules.events import Event, GameCreated, RoundDealt, SeatJoined, SeedRevealed
from service.rules.shuffle import fair_deal


def unfair_deal(events: Sequence[Event]) -> tuple[int, str] | None:
    """The index of the first event that breaks the game's commitment, and why; None when
    it holds, or there is nothing to check (not a fair game, or not revealed yet)."""
    config: GameConfig | None = None
    commitment: str | None = None
    seeds: dict[int, str] = {}
    revealed = next(
        ((i, e.server_seed) for i, e in enumerate(events) if isinstance(e, SeedRevealed)), None
    )
    if revealed is None:
        return None
    at, seed_hex = revealed
    seed = bytes.fromhex(seed_hex)
    for i, e in enumerate(events):
        match e:
            case GameCreated(fairness=fairness) if fairness is not None:
                config = GameConfig(e.players, e.scoring, e.variant, e.clock)
                commitment = fairness.commitment
                if hashlib.sha256(seed).hexdigest() != commitment:
                    return at, "the revealed seed does not hash to the commitment"
            case SeatJoined(seat=seat, client_seed=client) if client is not None:
                seeds[seat] = client
            case RoundDealt(number=number, hands=hands, trump=trump):
                if config is None or commitment is None:
                    return at, "a seed is revealed in a game that was not dealt fairly"
                if len(seeds) != config.players:
                    return i, "a round was dealt before every seat gave a client seed"
                clients = tuple(seeds[s] for s in range(config.players))
                expected = fair_deal(config, seed, number, clients)
                if expected.hands != hands or expected.trump != trump:
                    return i, f"round {number} is not the deal of the revealed seed"
    return None


__all__ = ["unfair_deal"]
