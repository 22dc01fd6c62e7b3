"""Players that see only a seat's view: what ``observe(state, SeatViewer(seat))`` shows.

A bot takes a :class:`~service.rules.SeatView` and answers the move a client would send,
in card ids. Bots import nothing but the rules and the standard library, so the same bot
drives self-play here and the bot seats of real games (the worker:
service/application/games/handlers/advance.py). Levels: ``random`` (any legal move),
``basic`` (a heuristic: basic_bot.py, its pass basic_pass.py), by name in
:data:`BOTS`; ``strong`` and ``expert`` search over sampled worlds (search.py,
sampler.py, playout.py) and also read the seat's own feed: :func:`level_move` asks any
level (levels.py). ``match.py`` plays levels against each other on duplicate deals.
"""

from service.bots.basic_bot import basic_move
from service.bots.levels import BOTS, level_move
from service.bots.moves import Bot, Move, PassMove, PlayMove
from service.bots.random_bot import random_move

__all__ = ["BOTS", "Bot", "Move", "PassMove", "PlayMove", "basic_move", "level_move", "random_move"]
