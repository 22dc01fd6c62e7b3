"""Players that see only a seat's view: what ``observe(state, SeatViewer(seat))`` shows.

A bot takes a :class:`~service.rules.SeatView` and answers the move a client would send,
in card ids. Bots import nothing but the rules and the standard library, so the same bot
can drive self-play here and, later, a seat of a real game through the application.
"""

from service.bots.moves import Bot, Move, PassMove, PlayMove
from service.bots.random_bot import random_move

__all__ = ["Bot", "Move", "PassMove", "PlayMove", "random_move"]
