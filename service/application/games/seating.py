"""Whom a request about a game speaks for (a seat, the public, the operators), and
whether a seat's tokens still act for it."""

from __future__ import annotations

from uuid import UUID

from service.application.errors import SeatLeftError
from service.application.identity.principals import Anonymous, Operator, Principal, seat_of
from service.rules import OPERATOR, PUBLIC, GameState, SeatViewer, Viewer


def held_seat(state: GameState, seat: int) -> None:
    """A seat a bot has taken over (its player left) no longer answers to its tokens:
    neither its moves nor its hand (403 ``seat_left``)."""
    if state.bots and state.bots[seat] is not None:
        raise SeatLeftError("a bot plays this seat now: its tokens no longer act for it")


def viewer_of(game_id: UUID, principal: Principal) -> Viewer:
    """Whom a stream or a record is for: anyone without a token sees the public view, an operator
    everything, a seat (or the player holding it) that seat; any other token is refused
    as the seat's view refuses it (401, 403)."""
    if isinstance(principal, Anonymous):
        return PUBLIC
    if isinstance(principal, Operator):
        return OPERATOR
    return SeatViewer(seat_of(game_id, principal))
