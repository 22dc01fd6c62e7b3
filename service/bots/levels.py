"""The bot levels a seat can be played at, by name (the values of rules.BotLevel)."""

from __future__ import annotations

from service.bots.basic_bot import basic_move
from service.bots.moves import Bot
from service.bots.random_bot import random_move

BOTS: dict[str, Bot] = {"random": random_move, "basic": basic_move}
