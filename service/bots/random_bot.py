"""The random bot: any legal move, uniformly. For self-play, load and smoke tests."""

from __future__ import annotations

import random

from service.bots.moves import Move, PassMove, PlayMove
from service.rules import Action, SeatView


def random_move(view: SeatView, rng: random.Random) -> Move | None:
    """Three distinct legal cards to pass, or one legal card to play, chosen uniformly;
    None when the seat has nothing to do."""
    if view.action == Action.PASS:
        first, second, third = rng.sample(view.legal, 3)
        return PassMove((first, second, third))
    if view.action == Action.PLAY:
        return PlayMove(rng.choice(view.legal))
    return None
