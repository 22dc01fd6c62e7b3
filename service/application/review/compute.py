"""One decision of a finished game valued from its seat's view, by the bots' search.

A position is read from the game's history as the seat saw it at that moment: its view
(``observe(state, SeatViewer(seat))``) and its own feed of the round
(``redact(event, SeatViewer(seat))``); the search samples the hidden hands from that
feed alone (service/bots/sampler.py), so the worlds never hold a card the seat could
not place. A play's options are its legal cards
(:func:`service.bots.search.play_values`); a pass's, the chosen pass and the basic
bot's neighbours (:func:`~service.bots.search.pass_candidates`, at most ten), played
out from sampled deals (:func:`~service.bots.search.pass_values`), whose state before
the deal holds the game's scores and seals and nothing of the round's hands.

Deterministic: each decision has its own random stream, seeded by the review's seed
(``YOKAI_REVIEW_SEED``), the seat, the round and how many events of the round the seat
has seen: what the seat's view determines, not the game's id; and a fixed number of
worlds bounds it, not a clock. The same game reviewed twice, or two games identical
from a seat's view, give that seat the same values.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from service.application.review.model import Decision, Option, decided
from service.bots.levels import SEARCH
from service.bots.playout import Outcome
from service.bots.search import Budget, Score, pass_candidates, pass_values, play_values, share
from service.rules import GameConfig, SeatViewer, fold, observe, redact
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    Event,
    RoundDealt,
    SuitSealed,
    TrickTaken,
)
from service.rules.scoring import seals_result

PLAY_WORLDS = SEARCH["expert"].worlds
"""Sampled worlds per play, the ``expert``'s: each plays every legal card out once (or
solves the rest of the round, with :data:`SOLVED` cards or fewer in hand)."""

SOLVED = 4
"""A play with at most this many cards in the seat's hand has each world's rest of the
round searched exhaustively (service/bots/endgame.py) rather than played out: the
playouts' seats miss refutations there that an expert sees (docs/benchmarks.md, the
review's agreement)."""

PASS_WORLDS = 40
"""Sampled deals per pass: each plays every candidate pass's round out once (the same
deals for every candidate, so their differences are less noisy than their values)."""


@dataclass(frozen=True, slots=True)
class Position:
    """A decision to review: the event at ``index`` of the game's events (its ``seq``
    is ``index + 1``), made by ``seat``; ``start`` is its round's ``RoundDealt``."""

    index: int
    start: int
    round: int
    trick: int | None
    seat: int
    kind: str  # "pass" | "play"
    chosen: tuple[str, ...]  # the card played, or the cards passed in the order given


def positions(events: Sequence[Event]) -> list[Position]:
    """Every pass and play of the game, in game order."""
    found = []
    start, number, tricks = 0, 0, 0
    for i, e in enumerate(events):
        match e:
            case RoundDealt():
                start, number, tricks = i, e.number, 0
            case TrickTaken():
                tricks += 1
            case CardsPassed(seat=seat, cards=cards) if cards is not None:
                chosen = tuple(c.id for c in cards)
                found.append(Position(i, start, number, None, seat, "pass", chosen))
            case CardPlayed(seat=seat, card=played):
                found.append(Position(i, start, number, tricks + 1, seat, "play", (played.id,)))
    return found


def review(
    events: Sequence[Event],
    at: Position,
    seed: int,
    play_worlds: int = PLAY_WORLDS,
    pass_worlds: int = PASS_WORLDS,
    solved: int = SOLVED,
) -> Decision:
    """The decision at ``at`` valued from its seat's view then (``events``: the game's,
    as stored, every one), over ``play_worlds`` or ``pass_worlds`` sampled worlds; a
    play with at most ``solved`` cards in hand searched to the round's end in each."""
    state = fold(events[: at.index])
    config = state.config
    assert config is not None
    viewer = SeatViewer(at.seat)
    view = observe(state, viewer)
    feed = [redact(e, viewer) for e in events[at.start : at.index]]
    rng = random.Random(f"{seed}/{at.seat}/{at.round}/{len(feed)}")
    if at.kind == "play":
        budget = Budget(play_worlds)
        score = round_share(feed)
        values = play_values(config, view, feed, rng, budget, score, solve=solved)
        options = [Option(c, round(values[c], 4)) for c in view.legal]
        return decided(seq(at), at.round, at.trick, at.seat, "play", at.chosen[0], options)
    candidates = pass_candidates(view, at.chosen)
    before = fold(events[: at.start])
    found = pass_values(config, before, feed, at.seat, candidates, rng, Budget(pass_worlds))
    options = [
        Option(tuple(sorted(c.id for c in cards)), round(v, 4))
        for cards, v in zip(candidates, found, strict=True)
    ]
    chosen = tuple(sorted(at.chosen))
    return decided(seq(at), at.round, None, at.seat, "pass", chosen, options)


def round_share(feed: Sequence[Event]) -> Score:
    """:func:`~service.bots.search.share` of the round's outcome for a play whose seat's
    ``feed`` of the round is ``feed``. In Seven Followers the search's simulator counts
    the suits sealed from the play on (service/bots/playout.py: its ``sealed`` is the
    game's seals so far, this round's included), while the round's outcome (R-7.6, the
    engine's ``RoundEnded``) counts all of its seals: those sealed before the play are
    added back, without which a share is of the wrong whole (the side having sealed a
    suit before the play, a suit sealed by each team after it makes 2/3 of the round,
    not 1/2). The bots' score (points less the others') needs no such care: what was
    sealed before shifts every card's alike."""
    before = [0, 0]
    for e in feed:
        if isinstance(e, SuitSealed):
            before[e.team] += 1
    if not any(before):
        return share

    def score(config: GameConfig, side: int, outcome: Outcome) -> float:
        points = [p + b for p, b in zip(outcome.points, before, strict=True)]
        winners, counts = seals_result(points)
        return share(config, side, Outcome(winners, counts, counts))

    return score


def review_game(
    events: Sequence[Event],
    seed: int,
    play_worlds: int = PLAY_WORLDS,
    pass_worlds: int = PASS_WORLDS,
) -> list[Decision]:
    """Every decision of the game reviewed, in game order."""
    return [review(events, at, seed, play_worlds, pass_worlds) for at in positions(events)]


def seq(at: Position) -> int:
    return at.index + 1
