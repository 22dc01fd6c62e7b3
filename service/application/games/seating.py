"""Whether a seat's tokens still act for it."""

from __future__ import annotations

from service.application.errors import SeatLeftError
from service.rules import GameState


def held_seat(state: GameState, seat: int) -> None:
    """A seat a bot has taken over (its player left) no longer answers to its tokens:
    neither its moves nor its hand (403 ``seat_left``)."""
    if state.bots and state.bots[seat] is not None:
        raise SeatLeftError("a bot plays this seat now: its tokens no longer act for it")
