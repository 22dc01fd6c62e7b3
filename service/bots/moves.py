"""What a bot answers: the move a client would send for its seat, in card ids."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from service.rules import SeatView


@dataclass(frozen=True, slots=True)
class PassMove:
    """Pass these three cards (R-3.2, R-7.2), in the order they are given."""

    cards: tuple[str, str, str]


@dataclass(frozen=True, slots=True)
class PlayMove:
    """Play this card (R-4.1)."""

    card: str


Move = PassMove | PlayMove

Bot = Callable[[SeatView, random.Random], Move | None]
"""A player: from what its seat may see, and a source of chance, the move to send (None
when the seat has nothing to do). It never sees another seat's hand, so a bot can sit at
a real table with exactly the information a human player has."""
