"""Turn clocks and bot turns: who must act in a game, by when, and when the worker must
next look at it.

The rules know no time. A seat's deadline is when its turn began (the recording time of
the event that gave it: :attr:`Loaded.turn_since`) plus the game's ``turn_seconds``; so
every view, feed and replay of the same events gives the same deadlines.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import overload

from service.application.games.cache import Loaded
from service.rules import (
    GameState,
    OperatorView,
    OperatorViewer,
    Phase,
    PublicView,
    PublicViewer,
    SeatView,
    SeatViewer,
    Viewer,
    expected_action,
    observe,
)


def due_seats(state: GameState) -> tuple[int, ...]:
    """The seats that must act now (several while passing, one while playing)."""
    cfg = state.config
    if cfg is None or state.phase not in (Phase.PASSING, Phase.PLAYING):
        return ()
    return tuple(s for s in range(cfg.players) if expected_action(state, s) is not None)


def turn_key(state: GameState) -> tuple[object, ...] | None:
    """What identifies the turn under way (None when nobody must act): while passing, the
    round; while playing, the round, the trick and the place in it. A new key is a new
    turn."""
    r = state.round
    if r is None or not due_seats(state):
        return None
    if state.phase is Phase.PASSING:
        return ("pass", r.number)
    return ("play", r.number, r.tricks_played, len(r.trick))


_BEGUN: list[tuple[Loaded, Loaded, tuple[int, ...]] | None] = [None]
"""The last answer of :func:`people_begun`, with the two games it was for (held, so no
other pair can share their identities): the webhooks and the pushes of one change ask
the same question, and a play pays for the answer once."""


def people_begun(before: Loaded, after: Loaded) -> tuple[int, ...]:
    """The seats a person holds that must act now, if a new turn began between ``before``
    and ``after`` (else none): whose inbox now says ``my_turn``."""
    last = _BEGUN[0]
    if last is not None and last[0] is before and last[1] is after:
        return last[2]
    state = after.state
    key = turn_key(state)
    seats: tuple[int, ...] = ()
    if key is not None and key != turn_key(before.state):
        seats = tuple(s for s in due_seats(state) if state.bots[s] is None)
    _BEGUN[0] = (before, after, seats)  # one assignment: threads see the old or the new
    return seats


def bot_turns(state: GameState) -> tuple[int, ...]:
    """The seats a bot plays that must act now."""
    return tuple(s for s in due_seats(state) if state.bots[s] is not None)


def deadline(game: Loaded) -> datetime | None:
    """By when the seats that must act now must do so, if the game has a turn clock."""
    cfg = game.state.config
    if cfg is None or cfg.clock is None or game.turn_since is None:
        return None
    if not due_seats(game.state):
        return None
    return game.turn_since + timedelta(seconds=cfg.clock.turn_seconds)


def wake_at(game: Loaded) -> datetime | None:
    """When the worker must next act on this game: at once when a bot must act, at the
    deadline when a clock runs, else never (None)."""
    if bot_turns(game.state):
        return game.turn_since or datetime.min.replace(tzinfo=UTC)
    return deadline(game)


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


@overload
def present(game: Loaded, viewer: SeatViewer) -> SeatView: ...
@overload
def present(game: Loaded, viewer: OperatorViewer) -> OperatorView: ...
@overload
def present(game: Loaded, viewer: PublicViewer) -> PublicView: ...
def present(game: Loaded, viewer: Viewer) -> PublicView:
    """The rules' view of the game for ``viewer``, with each seat's deadline filled in."""
    view = observe(game.state, viewer)
    due_by = deadline(game)
    if due_by is None:
        return view
    due = set(due_seats(game.state))
    text = rfc3339(due_by)
    seats = tuple(replace(s, deadline=text) if s.seat in due else s for s in view.seats)
    return replace(view, seats=seats)
