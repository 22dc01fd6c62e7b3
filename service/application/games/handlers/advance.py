"""What the worker does to a game that is due: a bot's move, or a turn clock running out.

The worker sends :class:`Advance` through the same wrapper as every command, so the same
rules, events, version guard and retries apply. What is due is decided from the game's
state in the command's own transaction: a seat that acted in the meantime is no longer
due, so a clock never acts after the seat did, and a second worker (or a second try
after a crash) finds nothing left to do. Racing appends are settled by the
``(game_id, seq)`` key, and the loser decides again on the new state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from uuid import UUID

from service import rules
from service.application.commands import Advance, ExpireGame
from service.application.games import codec, turnclocks
from service.application.identity.principals import Principal, require_operator
from service.application.ports import SYSTEM, TIMEOUT, Actor, ActorKind
from service.application.results import Advanced
from service.application.write.transaction import Transaction
from service.bots import Move, PassMove, level_move
from service.rules.events import RoundDealt

_CHANCE = random.SystemRandom()  # for the random bot: nothing to predict


def authorize_advance(cmd: Advance, principal: Principal) -> Actor:
    """Only the service itself (the worker acts as an operator) advances games."""
    require_operator(principal)
    return SYSTEM


def advance(cmd: Advance, actor: Actor, tx: Transaction) -> Advanced:
    game = tx.load(cmd.game_id, fresh=True)
    tx.rewake.add(cmd.game_id)  # the claim moved its wakeup to the lease's end
    state = game.state
    bots = turnclocks.bot_turns(state)
    if bots:  # one bot move per command: each is a commit clients see on its own
        seat = bots[0]
        level = state.bots[seat]
        assert level is not None
        move = _move(state, seat, level, lambda: _feed(tx, cmd.game_id, seat), tx.bot_move_ms)
        after = tx.apply(cmd.game_id, game, move, Actor(ActorKind.BOT, seat))
        return Advanced(cmd.game_id, after.version, True)
    due_by = turnclocks.deadline(game)
    cfg = state.config
    if due_by is not None and tx.now >= due_by and cfg is not None and cfg.clock is not None:
        late = turnclocks.due_seats(state)
        outcome = cfg.clock.on_timeout
        # The clock's acts are the system's, said to be a timeout's in the audit; the
        # deals and the seed's reveal that follow them stay plain system acts.
        after = tx.decide(cmd.game_id, game, rules.TimeOut(late, outcome), TIMEOUT)
        if outcome is rules.OnTimeout.AUTOPLAY:
            for seat in late:  # each late seat's move, as the basic bot makes it
                move = _move(after.state, seat, rules.BotLevel.BASIC, list, None)
                after = tx.decide(cmd.game_id, after, move, TIMEOUT)
        tx.flush()
        return Advanced(cmd.game_id, after.version, True)
    # Nothing is due (yet): the claim moved the wakeup to its lease's end; put it right.
    tx.uow.wakeups.set(cmd.game_id, turnclocks.wake_at(game), game.version)
    return Advanced(cmd.game_id, game.version, False)


def authorize_expire(cmd: ExpireGame, principal: Principal) -> Actor:
    require_operator(principal)
    return SYSTEM


def expire(cmd: ExpireGame, actor: Actor, tx: Transaction) -> Advanced:
    """End the game if it still waits for players and has not changed since the job
    chose it (a join in between keeps it)."""
    game = tx.load(cmd.game_id, fresh=True)
    summary = tx.uow.games.get(cmd.game_id)
    waiting = game.state.phase is rules.Phase.WAITING
    if not waiting or summary is None or summary.updated_at >= cmd.idle_since:
        return Advanced(cmd.game_id, game.version, False)
    after = tx.apply(cmd.game_id, game, rules.Expire(), actor)
    return Advanced(cmd.game_id, after.version, True)


def _move(
    state: rules.GameState,
    seat: int,
    level: rules.BotLevel,
    feed: Callable[[], Sequence[rules.Event]],
    move_ms: float | None,
) -> rules.Command:
    """The seat's move as the bot of ``level`` makes it, from the seat's view (and, for
    the search levels, the seat's own feed of the round) alone."""
    assert state.config is not None
    view = rules.observe(state, rules.SeatViewer(seat))
    move = level_move(level.value, state.config, view, feed, _CHANCE, move_ms)
    if move is None:  # pragma: no cover - a bot always answers a seat that must act
        raise RuntimeError(f"the {level} bot made no move for seat {seat}")
    return _command(seat, move)


def _feed(tx: Transaction, game_id: UUID, seat: int) -> list[rules.Event]:
    """The seat's own feed of the round under way: its events as the seat sees them."""
    events = [codec.decode(row) for row in tx.uow.events.load(game_id)]
    start = max(i for i, e in enumerate(events) if isinstance(e, RoundDealt))
    viewer = rules.SeatViewer(seat)
    return [rules.redact(e, viewer) for e in events[start:]]


def _command(seat: int, move: Move) -> rules.Command:
    if isinstance(move, PassMove):
        return rules.PassCards(seat, tuple(rules.card(i) for i in move.cards))
    return rules.PlayCard(seat, rules.card(move.card))
