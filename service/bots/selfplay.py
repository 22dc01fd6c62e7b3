"""Self-play through the engine: for benchmarks, tests and load generation.

The driver plays referee: it reads the whole state to know which seats must act and
which deal is due, as the service does. The players are bots: each is asked for its
move from its own seat's view only, and answers in card ids as a client would. Due
rounds are dealt with the rules' shuffle, keyed from the given ``random.Random``, so a
seeded ``rng`` replays the same game. Nothing here is used when serving real games.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from service.bots.moves import Bot, Move, PassMove
from service.bots.random_bot import random_move
from service.rules import (
    INITIAL,
    Command,
    CreateGame,
    DealRound,
    Event,
    GameState,
    JoinSeat,
    PassCards,
    PlayCard,
    Scoring,
    SeatViewer,
    Variant,
    card,
    deal_due,
    deal_shuffled,
    decide,
    expected_action,
    fold,
    observe,
    preset_deal,
    round_message,
)


def dealer_command(state: GameState, rng: random.Random) -> DealRound | None:
    """The deal that is due now, if any: the preset one, else the rules' shuffle with a
    key drawn from ``rng`` and the round number as the message (as the service does)."""
    number = deal_due(state)
    if number is None:
        return None
    preset = preset_deal(state, number)
    if preset is not None:
        return DealRound(preset.hands, preset.trump)
    assert state.config is not None
    return deal_shuffled(state.config, rng.randbytes(32), round_message(number))


def bot_command(state: GameState, bot: Bot | Sequence[Bot], rng: random.Random) -> Command | None:
    """The move of a seat that must act (chosen at random when several must pass), as
    ``bot`` makes it from that seat's view; None when nobody may act. ``bot`` is one bot
    for every seat, or a sequence of one bot per seat."""
    assert state.config is not None
    seats = [s for s in range(state.config.players) if expected_action(state, s) is not None]
    if not seats:
        return None
    seat = rng.choice(seats)
    player = bot if callable(bot) else bot[seat]
    move = player(observe(state, SeatViewer(seat)), rng)
    if move is None:
        raise RuntimeError(f"the bot made no move for seat {seat}, which must act")
    return to_command(seat, move)


def to_command(seat: int, move: Move) -> Command:
    """The engine command for a client's move: card ids become cards."""
    if isinstance(move, PassMove):
        return PassCards(seat, tuple(card(i) for i in move.cards))
    return PlayCard(seat, card(move.card))


@dataclass(frozen=True, slots=True)
class Step:
    """One accepted command and what it caused."""

    command: Command
    events: tuple[Event, ...]
    before: GameState
    after: GameState


def play_game(
    players: int,
    scoring: Scoring,
    variant: Variant = Variant.STANDARD,
    *,
    rng: random.Random,
    max_steps: int = 200_000,
    bot: Bot = random_move,
    bots: Sequence[Bot] | None = None,
) -> Iterator[Step]:
    """Play one game from creation to its end, yielding every accepted command.

    Every seat is played by ``bot``, unless ``bots`` gives one bot per seat (in seat
    order), e.g. ``bots=[basic_move, random_move, basic_move, random_move]``.
    """
    if bots is not None and len(bots) != players:
        raise ValueError(f"bots gives {len(bots)} bots for {players} seats")
    players_bots: Bot | Sequence[Bot] = bot if bots is None else tuple(bots)
    state = INITIAL
    pending: list[Command] = [CreateGame(players, scoring, variant)]
    pending += [JoinSeat(s, f"player {s}") for s in range(players)]
    for _ in range(max_steps):
        command: Command | None
        if pending:
            command = pending.pop(0)
        else:
            command = dealer_command(state, rng) or bot_command(state, players_bots, rng)
        if command is None:
            return
        events = decide(state, command)
        before, state = state, fold(events, state)
        yield Step(command, events, before, state)
    raise RuntimeError(f"no end after {max_steps} steps")
