"""The bot levels a seat can be played at, by name (the values of rules.BotLevel).

``random`` and ``basic`` decide from the seat's view alone (:data:`BOTS`); ``strong``
and ``expert`` search (service/bots/search.py) and also read the seat's own feed of the
round, within a budget (:data:`SEARCH`): ``expert`` samples six times the worlds, and
has three times the time. The worlds alone make a decision repeatable from the seed
(``timed=False``: ``yokai bots match``); the live bots also stop at their time cap, for
the 1 s turn goal. (With 20 worlds ``strong`` played as ``expert`` does, 41 of 80
games; with 10, and the basic bot's card kept unless the worlds surely favour another
(service/bots/search.py), it wins 71 % against ``basic`` in basic scoring and 76 % in
advanced, and ``expert`` beats it 66 % and 61 % of the time: docs/benchmarks.md.)
:func:`level_move` asks any of them.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import replace

from service.bots.basic_bot import basic_move
from service.bots.moves import Bot, Move
from service.bots.random_bot import random_move
from service.bots.search import Budget, search_move
from service.rules import GameConfig, SeatView
from service.rules.events import Event

BOTS: dict[str, Bot] = {"random": random_move, "basic": basic_move}

MOVE_MS = 250.0
"""The expert's time per move by default (YOKAI_BOT_MOVE_MS); the strong bot has a third."""

SEARCH: dict[str, Budget] = {
    "strong": Budget(worlds=10, ms=MOVE_MS / 3),
    "expert": Budget(worlds=60, ms=MOVE_MS),
}

DESCRIPTIONS = {
    "random": "plays any legal card",
    "basic": "a heuristic that reads only the table: takes boss tricks, ducks the rest",
    "strong": "searches: plays each card out over 10 sampled deals of the hidden hands,"
    " and plays as basic unless they surely favour another card",
    "expert": "searches: plays each card out over 60 sampled deals of the hidden hands,"
    " and plays as basic unless they surely favour another card",
}


def budget(level: str, move_ms: float | None = None, *, timed: bool = True) -> Budget:
    """A search level's budget; ``move_ms`` (YOKAI_BOT_MOVE_MS) sets the expert's time,
    the strong bot's being a third of it; untimed, its worlds alone (no clock)."""
    found = SEARCH[level]
    if not timed:
        return replace(found, ms=None)
    if move_ms is None:
        return found
    return replace(found, ms=move_ms if level == "expert" else move_ms / 3)


def level_move(
    level: str,
    config: GameConfig,
    view: SeatView,
    feed: Callable[[], Sequence[Event]],
    rng: random.Random,
    move_ms: float | None = None,
    *,
    timed: bool = True,
) -> Move | None:
    """The move of ``view``'s seat as the bot of ``level`` makes it; ``feed`` gives the
    seat's own feed of the round (read only by the search levels); ``timed=False``: the
    search levels' worlds alone bound them, and the move depends on the seed alone."""
    if level in BOTS:
        return BOTS[level](view, rng)
    return search_move(config, view, feed(), rng, budget(level, move_ms, timed=timed))
