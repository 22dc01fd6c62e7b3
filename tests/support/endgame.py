"""Positions with one clearly winning card, found by exhaustive search of a round's last
tricks: the oracle of the hand review's agreement (issue 46's goal; its test is
tests/application/review/test_agreement.py, its figure bench/review_agreement.py).

Why here and not in service/bots: an oracle for tests and the bench, nothing the
service plays or serves uses it. The minimax is the bots' (service/bots/endgame.py:
every hand known, the side to move maximising its share of the round, the others
minimising it), which the review also runs, on its simulator (service/bots/playout.py),
in the last tricks; here it runs on the rules engine (:class:`EngineNode`: the engine's
``legal_cards``, ``decide`` and ``evolve``; a round's value for a side is the review's
own :func:`service.bots.search.share` of the ``RoundEnded`` the engine records), so the
simulator is not judged by itself, and what is judged is the review's sampling and
scale as well. Slow (the engine makes new immutable states for every card), which is
why it solves only the last few tricks.

A clearly winning card (:func:`clear_winner`) must be fair to a searcher that sees only
the seat's view: the solver is run in every deal of the unknown cards consistent with
that view (:func:`worlds`, the deals the review's sampler draws from, enumerated), the
card must be sure of as much as any other card could bring in every one of them, and of
:data:`MARGIN` more on average over them (as a sampling search averages). A card that is
best only in the actual deal is no fault of a review that cannot see it. Positions
whose view leaves more than ``most`` deals are skipped (too slow to solve).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from service.application.review.compute import Position, positions
from service.bots import basic_move, endgame
from service.bots.playout import Outcome
from service.bots.sampler import Sampler, knowledge
from service.bots.search import share
from service.bots.selfplay import play_game
from service.rules import (
    GameConfig,
    GameState,
    PlayCard,
    Scoring,
    SeatViewer,
    Variant,
    decide,
    fold,
    legal_cards,
    redact,
    sort_cards,
)
from service.rules.cards import Card
from service.rules.events import Event, RoundEnded

MARGIN = 0.25
"""How much better on average over the consistent deals the winning card must be than
every other legal card (the contract's blunder: a loss of at least 0.25)."""


class EngineNode:
    """A position of a round on the rules engine (a :class:`service.bots.endgame.Node`):
    its legal cards are ``legal_cards``'s, a card is ``decide``d and its events folded
    in; the round's outcome is its ``RoundEnded``'s."""

    def __init__(self, state: GameState) -> None:
        self.state = state

    def turn(self) -> int:
        seat = self.state.turn()
        assert seat is not None
        return seat

    def legal(self) -> list[Card]:
        return list(legal_cards(self.state, self.turn()))

    def after(self, card: Card) -> tuple[EngineNode, Outcome | None]:
        events = decide(self.state, PlayCard(self.turn(), card))
        ended = next((e for e in events if isinstance(e, RoundEnded)), None)
        outcome = None if ended is None else Outcome(ended.winners, ended.points)
        return EngineNode(fold(events, self.state)), outcome


def card_values(state: GameState, side: int, optimistic: bool = False) -> dict[Card, float]:
    """Each legal card of the seat to play in ``state`` (every hand known): ``side``'s
    share of the round when that card is played and the round then played out by
    minimax, ``side``'s seats maximising and the others minimising it (``optimistic``:
    every seat maximising it, the best the card could bring)."""
    config = state.config
    assert config is not None

    def maximising(seat: int) -> bool:
        return optimistic or config.side_of(seat) == side

    def value(outcome: Outcome) -> float:
        return share(config, side, outcome)

    return endgame.card_values(EngineNode(state), maximising, value)


def worlds(
    config: GameConfig, state: GameState, seat: int, feed: Sequence[Event]
) -> list[GameState]:
    """``state`` with its hidden hands dealt every way consistent with ``seat``'s
    ``feed`` of the round (what the review's sampler draws from: service/bots/sampler.py),
    the seat's own hand as it is."""
    k = knowledge(config, seat, feed)
    others = [s for s in range(config.players) if s != seat]
    room = [k.sizes[s] - len(k.known[s]) for s in others]
    unknown = k.unknown(config.deck)
    assert state.round is not None
    found = []
    for split in _splits(unknown, room):
        hands = [set(known) for known in k.known]
        hands[seat] = set(k.hand)
        for s, cards in zip(others, split, strict=True):
            if any(c.suit in k.voids[s] for c in cards):
                break
            hands[s] |= set(cards)
        else:
            dealt = tuple(tuple(sort_cards(list(h))) for h in hands)
            found.append(replace(state, round=replace(state.round, hands=dealt)))
    return found


def _splits(cards: list[Card], room: list[int]) -> Iterator[list[tuple[Card, ...]]]:
    if not room:
        yield []
        return
    for first in combinations(cards, room[0]):
        rest = [c for c in cards if c not in first]
        for split in _splits(rest, room[1:]):
            yield [first, *split]


def world_count(config: GameConfig, seat: int, feed: Sequence[Event]) -> int:
    """How many deals are consistent with the seat's feed (the sampler counts them)."""
    return Sampler(knowledge(config, seat, feed), config.deck).worlds


@dataclass(frozen=True, slots=True)
class Verdict:
    """A position solved in every consistent deal: each legal card's (by id) mean sure
    value and mean hoped-for value (:func:`clear_winner`), and the clearly winning
    card's id, if there is one."""

    sure: dict[str, float]
    hoped: dict[str, float]
    deals: int
    winner: str | None


def clear_winner(states: Sequence[GameState], side: int, margin: float = MARGIN) -> Verdict:
    """The card of ``side``'s seat to play that is sure of at least what any other card
    could bring in every deal of ``states``, and of ``margin`` more on average, if any.

    What a card is sure of is its minimax value (the others against the seat). What
    another card could bring: with four players the same (the other team's interest is
    the seat's loss); with three, its value were every seat to play for the seat's side
    (the two others each play for themselves, not as one: the winning card must win
    however they play)."""
    config = states[0].config
    assert config is not None
    sure: dict[str, float] = {}
    hoped: dict[str, float] = {}
    candidates: set[str] | None = None
    for state in states:
        low = {c.id: v for c, v in card_values(state, side).items()}
        high = low
        if config.players == 3:
            high = {c.id: v for c, v in card_values(state, side, optimistic=True).items()}
        here = {c for c in low if all(low[c] >= high[o] - 1e-9 for o in high if o != c)}
        candidates = here if candidates is None else candidates & here
        for c, v in low.items():
            sure[c] = sure.get(c, 0.0) + v / len(states)
            hoped[c] = hoped.get(c, 0.0) + high[c] / len(states)
    winner = None
    for c in candidates or ():
        if all(sure[c] - hoped[o] >= margin for o in hoped if o != c):
            winner = c
    return Verdict(sure, hoped, len(states), winner)


@dataclass(frozen=True, slots=True)
class EndPosition:
    """A play of a game (its events, all of them; the play at ``at``) where the seat to
    play had one clearly winning card: ``card``."""

    events: tuple[Event, ...]
    at: Position
    card: str
    verdict: Verdict
    mode: str


@dataclass(frozen=True, slots=True)
class Mode:
    """A game's mode: its players, scoring and variant."""

    players: int
    scoring: Scoring
    variant: Variant = Variant.STANDARD

    @property
    def name(self) -> str:
        if self.variant is Variant.STANDARD:
            return f"{self.players}p {self.scoring.value}"
        return self.variant.value  # four players; the scoring plays no part


MODES = (
    Mode(4, Scoring.BASIC),
    Mode(3, Scoring.BASIC),
    Mode(4, Scoring.ADVANCED),
    Mode(3, Scoring.ADVANCED),
)
"""The standard game's modes."""

SEVEN_FOLLOWERS = (
    Mode(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
    Mode(4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
)
"""Seven Followers' modes (R-7): teams of two, a round of 14 tricks played out unless a
team seals enough suits, its outcome the suits each team sealed in it; a seat's share
of it, :func:`service.bots.search.share`, is its team's part of those suits."""


def game(seed: int, modes: Sequence[Mode] = MODES) -> list[Event]:
    """The events of a whole game the basic bot plays in every seat, seeded ``seed``,
    in the mode ``modes[seed % len(modes)]``."""
    mode = modes[seed % len(modes)]
    events: list[Event] = []
    rng = random.Random(seed)
    for step in play_game(mode.players, mode.scoring, mode.variant, rng=rng, bot=basic_move):
        events += step.events
    return events


@dataclass(frozen=True, slots=True)
class EndPlay:
    """A play of ``events`` (the play at ``at``) made from ``state``, seen by its seat
    as ``feed`` (its own feed of the round so far)."""

    at: Position
    state: GameState
    feed: list[Event]


def end_plays(events: Sequence[Event], cards_left: int) -> Iterator[EndPlay]:
    """The plays of ``events`` whose seat held ``cards_left`` cards and had a choice."""
    for at in positions(events):
        if at.kind != "play":
            continue
        state = fold(events[: at.index])
        assert state.round is not None
        if len(state.round.hands[at.seat]) != cards_left:
            continue
        if len(legal_cards(state, at.seat)) < 2:
            continue
        viewer = SeatViewer(at.seat)
        yield EndPlay(at, state, [redact(e, viewer) for e in events[at.start : at.index]])


def end_positions(
    per_mode: int,
    cards_left: int = 3,
    most: int = 400,
    first_seed: int = 1,
    modes: Sequence[Mode] = MODES,
) -> Iterator[EndPosition]:
    """``per_mode`` positions with one clearly winning card in each of ``modes``, in the
    games of :func:`game` seeded ``first_seed``, ``first_seed + 1``... (a seed plays one
    mode: two modes with the same seed would deal the same cards, and with four players
    the basic bot plays them alike in either scoring): of their :func:`end_plays`, those
    whose seat's view leaves at most ``most`` deals, in game order."""
    found = dict.fromkeys(modes, 0)
    seed = first_seed
    while min(found.values()) < per_mode:
        mode = modes[seed % len(modes)]
        events = game(seed, modes) if found[mode] < per_mode else []
        for play in end_plays(events, cards_left):
            config = play.state.config
            assert config is not None
            if world_count(config, play.at.seat, play.feed) > most:
                continue
            dealt = worlds(config, play.state, play.at.seat, play.feed)
            verdict = clear_winner(dealt, config.side_of(play.at.seat))
            if verdict.winner is not None:
                yield EndPosition(tuple(events), play.at, verdict.winner, verdict, mode.name)
                found[mode] += 1
                if found[mode] == per_mode:
                    break
        seed += 1
