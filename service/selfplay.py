"""Random self-play through the engine: for benchmarks, tests and load generation.

Players choose uniformly among their legal actions; the dealer shuffles with the
given ``random.Random``. Nothing here is used when serving real games.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from service.rules import (
    INITIAL,
    Action,
    Command,
    CreateGame,
    DealRound,
    Event,
    GameConfig,
    GameState,
    JoinSeat,
    PassCards,
    PlayCard,
    Scoring,
    Variant,
    deal_due,
    decide,
    evolve,
    expected_action,
    legal_cards,
    preset_deal,
)


def shuffled_deal(cfg: GameConfig, rng: random.Random) -> DealRound:
    """Shuffle the deck and deal it (R-3.1, R-7.2)."""
    deck = list(cfg.deck)
    rng.shuffle(deck)
    size = cfg.hand_size
    hands = tuple(tuple(deck[i * size : (i + 1) * size]) for i in range(cfg.players))
    trump = None if cfg.seven_followers else deck[-1]
    return DealRound(hands, trump)


def dealer_command(state: GameState, rng: random.Random) -> DealRound | None:
    """The deal that is due now, if any: the preset one, else a shuffle."""
    number = deal_due(state)
    if number is None:
        return None
    preset = preset_deal(state, number)
    if preset is not None:
        return DealRound(preset.hands, preset.trump)
    assert state.config is not None
    return shuffled_deal(state.config, rng)


def random_command(state: GameState, rng: random.Random) -> Command | None:
    """A uniformly random legal player command, or None when nobody may act."""
    assert state.config is not None
    seats = [s for s in range(state.config.players) if expected_action(state, s) is not None]
    if not seats:
        return None
    seat = rng.choice(seats)
    legal = legal_cards(state, seat)
    if expected_action(state, seat) is Action.PASS:
        return PassCards(seat, tuple(rng.sample(legal, 3)))
    return PlayCard(seat, rng.choice(legal))


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
) -> Iterator[Step]:
    """Play one random game from creation to its end, yielding every accepted command."""
    state = INITIAL
    pending: list[Command] = [CreateGame(players, scoring, variant)]
    pending += [JoinSeat(s, f"player {s}") for s in range(players)]
    for _ in range(max_steps):
        command: Command | None
        if pending:
            command = pending.pop(0)
        else:
            command = dealer_command(state, rng) or random_command(state, rng)
        if command is None:
            return
        events = decide(state, command)
        before = state
        for e in events:
            state = evolve(state, e)
        yield Step(command, events, before, state)
    raise RuntimeError(f"no end after {max_steps} steps")
