"""The bot levels a seat can be played at, by name (BotLevel values)."""

from __future__ import annotations

from service.bots.moves import Bot
from service.bots.random_bot import random_move

BOTS: dict[str, Bot] = {"random": random_move, "basic": random_move}
