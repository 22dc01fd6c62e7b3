"""Search bots (issue 31): Perfect Information Monte Carlo over sampled hidden hands.

Why PIMC rather than Information-Set MCTS: a round of Yokai Septet is short (12 to 16
tricks) and its outcome is settled by a handful of decisions per seat, so evaluating
each legal card over many sampled worlds, each played out, already separates the cards;
PIMC is simple enough to be fast in pure Python with a lean simulator
(service/bots/playout.py, held to the engine by tests/bots/test_playout.py), is
embarrassingly parallel over worlds, and is what expert trick-taking programs (GIB in
Bridge, Kermit in Skat) found strong in practice. ISMCTS would share one tree over the
information set but pays for tree bookkeeping per playout, which costs more moves per
decision than pure Python can spare at 100 ms.

Known pitfalls, and how this design answers them:
- *Samples that ignore what was seen* are worthless: the worlds come from
  :mod:`service.bots.sampler`, uniform over the deals consistent with the seat's own
  feed (its hand, its passes, the A's holder, shown voids, hand sizes).
- *Strategy fusion* (choosing as if the right card for each world could be picked in
  each): PIMC decides one card for all worlds, by its average over them (and keeps the
  basic bot's card unless another is surely better: *Few worlds* below). The playouts
  after it (:func:`service.bots.policy.model_card`) play every seat as the basic bot
  does, reading the sampled world's hands to see whether the seats still to play can
  beat a card, where basic estimates it: so each playout credits every seat alike with
  knowing the world within the current trick, but with no deeper planning than basic's.
- *Opponent modelling*: the seats the search bots meet are mostly basic bots, so the
  playouts play as basic plays (its weights, its Seven Followers first lead). With a
  playout policy that leads a random low card and knew nothing of what the later seats
  hold, the expert won 56 % of 100 four-player games against basic; with this one,
  docs/benchmarks.md gives the figures.
- *Non-locality* (what a card says to the others): not modelled beyond what the sampler
  reads from the feed (voids, passes, the A's holder).
- *Teams*: with four players a card is scored by its team's outcome (the partner's hand
  is sampled like the opponents': the seat does not see it); with three, by the seat's.
- *Few worlds*: over ten worlds a card's mean moves by 0.2 when one world's round turns
  (basic scoring: a round is won or lost, ±1), so the highest mean is often highest by
  chance, and in basic scoring many cards tie. The bots play the basic bot's card
  unless the best card is ahead of it, world by world over the same worlds, by more than
  one standard error of the differences (:func:`surely_better`): basic is the prior, the
  search corrects it where its worlds agree. ``strong`` against basic, basic scoring,
  400 games: 57.5 % taking the highest mean (ties to the lowest card), 65.8 % breaking
  exact ties by basic's card, 70.8 % so; advanced scoring 75.8 % (docs/benchmarks.md).

A decision's value is the round's outcome for the seat's side: its points (R-6) less
the others' average (Seven Followers: suits sealed); the review (issue 46) scores the
same playouts by the side's share of the round instead (:func:`share`; in Seven
Followers of the round's whole outcome, the suits sealed before the play added back:
service/application/review/compute.py ``round_share``). The playouts are
deterministic, so the cards compared in a world meet the same answers unless they change
them. A :class:`Budget` is a number of worlds: with it alone, a decision is a function of
the seat's view, its feed and the seed only (no clock is read: tests/bots/test_search.py),
which is what the review and ``yokai bots match`` use. The live bots add a time cap
(``YOKAI_BOT_MOVE_MS``, counted from the decision's start: a world is not begun when, at
the average time a world has taken, it would end past it) to keep their 1 s turn goal;
under load that cap may cut a decision short, so their moves then follow the machine's
load as well as the seed.

Passing (R-3.2, R-7.2) is the basic bot's. A pass searched the same way (the basic
bot's pass and sets of the seat's weakest cards compared over sampled deals, the other
seats passing their weakest, the round then played out) was tried and measured worse:
three players, expert against basic, 30.8 % of 39 games against 40 to 50 % of 30 with
the basic bot's passes (docs/benchmarks.md); picked as the best of noisy means, the
searched passes paid the winner's curse. It was taken out until a better model of the
others' passes and of the round's lead earns its place.

The hand review (issue 46) values a play with few cards left exactly in each world
(``play_values(..., solve=)``: service/bots/endgame.py's minimax instead of a playout),
where the playouts' seats miss refutations; the bots do not: ``strong`` solving its
last 3 cards won 55.8 % of 400 games against basic (basic scoring), 57.5 % without
(measured before the basic prior above): no gain for its cost.
It still values passes, to say what a seat gave up:
:func:`pass_values` plays a bounded set of candidates (:func:`pass_candidates`) out over
deals sampled from the seat's feed, the others passing as basic does; a bot does not
choose by it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import combinations

from service.bots.basic_bot import basic_move
from service.bots.basic_pass import basic_pass, pass_order
from service.bots.endgame import PlayoutNode, card_values
from service.bots.moves import Move, PlayMove
from service.bots.playout import Outcome, Playout
from service.bots.sampler import Sampler, knowledge
from service.rules import (
    Action,
    GameConfig,
    GameState,
    PassCards,
    SeatView,
    SeatViewer,
    Variant,
    card,
    decide,
    evolve,
    fold,
    observe,
    sort_cards,
)
from service.rules.cards import SUPER_TRUMP, Card, Suit
from service.rules.events import Event, RoundDealt


@dataclass(frozen=True, slots=True)
class Budget:
    """At most ``worlds`` sampled worlds, each playing every option out once, and at most
    ``ms`` milliseconds (None: no time limit and no clock read; the worlds alone bound
    it, and the decision depends on the seed alone)."""

    worlds: int
    ms: float | None = None


Score = Callable[[GameConfig, int, Outcome], float]
"""What a round's outcome is worth to a side (the config, the side, the outcome)."""


def value(config: GameConfig, side: int, outcome: Outcome) -> float:
    """The round's outcome for ``side``: its points less the other sides' average."""
    others = [p for s, p in enumerate(outcome.points) if s != side]
    return outcome.points[side] - sum(others) / len(others)


def share(config: GameConfig, side: int, outcome: Outcome) -> float:
    """``side``'s share of the round's outcome, in [0, 1]: of its points (R-6; Seven
    Followers: of the suits sealed), else of its winners, else an equal part."""
    total = sum(outcome.points)
    if total > 0:
        return outcome.points[side] / total
    if outcome.winners:
        return 1 / len(outcome.winners) if side in outcome.winners else 0.0
    return 1 / config.sides


def search_move(
    config: GameConfig,
    view: SeatView,
    feed: Sequence[Event],
    rng: random.Random,
    budget: Budget,
    clock: Callable[[], float] = time.perf_counter,
) -> Move | None:
    """The move of ``view``'s seat, from the seat's view and its feed of the round (the
    events as the seat's own feed shows them); ``clock`` is read only under a time cap."""
    if not view.legal:
        return None
    if view.action == Action.PASS:
        return basic_move(view, rng)  # passes are the basic bot's: the module's docstring
    if view.action != Action.PLAY:
        return None
    if len(view.legal) == 1:
        return PlayMove(view.legal[0])
    worlds = world_values(config, view, feed, rng, budget, value, clock)
    best = max(worlds, key=lambda i: (_mean(worlds[i]), -card(i).order))
    basic = basic_move(view, rng)
    assert isinstance(basic, PlayMove)
    if basic.card != best and not surely_better(worlds[best], worlds[basic.card]):
        return basic  # the search's worlds do not tell the two apart: the module's docstring
    return PlayMove(best)


SURE = 1.0
"""How many standard errors of the worlds' differences the search's best card must be
ahead of the basic bot's card to be played instead (:func:`surely_better`)."""


def surely_better(best: Sequence[float], other: Sequence[float], sure: float | None = None) -> bool:
    """Whether ``best``'s values, world by world, are above ``other``'s by more than
    ``sure`` (default :data:`SURE`) standard errors of their mean difference (the same
    worlds: the comparison is paired). One world is never sure (a live bot's time cap
    may leave it one); a lead in one world of n, the others even, is exactly one
    standard error, so not more: compared in squares with a margin for rounding, which
    would otherwise decide that frequent case."""
    diffs = [b - o for b, o in zip(best, other, strict=True)]
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    spread = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    k = SURE if sure is None else sure
    return mean > 0 and mean * mean * n > k * k * spread * (1 + 1e-9)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def play_values(
    config: GameConfig,
    view: SeatView,
    feed: Sequence[Event],
    rng: random.Random,
    budget: Budget,
    score: Score = value,
    clock: Callable[[], float] = time.perf_counter,
    solve: int = 0,
) -> dict[str, float]:
    """Each legal card of ``view``'s seat (which must play) by id: its mean ``score``
    for the seat's side over the sampled worlds, each played out after it; or, when the
    seat holds at most ``solve`` cards, each world's rest of the round searched
    exhaustively (:func:`service.bots.endgame.card_values`) instead of played out."""
    worlds = world_values(config, view, feed, rng, budget, score, clock, solve)
    return {c: _mean(v) for c, v in worlds.items()}


def world_values(
    config: GameConfig,
    view: SeatView,
    feed: Sequence[Event],
    rng: random.Random,
    budget: Budget,
    score: Score = value,
    clock: Callable[[], float] = time.perf_counter,
    solve: int = 0,
) -> dict[str, list[float]]:
    """Each legal card's ``score`` in each sampled world, in the worlds' order
    (:func:`play_values` gives their means)."""
    started = clock() if budget.ms is not None else 0.0
    legal = [card(i) for i in view.legal]
    seat = view.seat
    round_ = view.round
    assert round_ is not None and view.action == Action.PLAY
    sampler = Sampler(knowledge(config, seat, feed), config.deck)
    side = config.side_of(seat)
    trump = Suit(round_.trump_suit) if round_.trump_suit else None
    trick = [(p.seat, card(p.card)) for p in round_.trick]
    tricks_won = [s.tricks_won for s in view.seats]
    bosses = [[card(i) for i in s.bosses] for s in view.seats]
    totals: dict[Card, list[float]] = {c: [] for c in legal}

    def ours(s: int) -> bool:
        return config.side_of(s) == side

    deadline = None if budget.ms is None else started + budget.ms / 1000
    done = 0
    while done < budget.worlds:
        hands = [sorted(h, key=_order) for h in sampler.draw(rng)]
        world = Playout(
            config,
            hands,
            list(trick),
            seat,
            trump,
            list(tricks_won),
            [list(b) for b in bosses],
            round_.tricks_played,
            sealed_of(view),
        )
        if len(hands[seat]) <= solve:
            solved = card_values(PlayoutNode(world), ours, partial(score, config, side))
            for c in legal:
                totals[c].append(solved[c])
        else:
            for c in legal:
                sim = world.copy()
                sim.play(c)
                totals[c].append(score(config, side, sim.outcome or sim.run()))
        done += 1
        if deadline is not None:
            now = clock()
            if now + (now - started) / done > deadline:
                break  # the next world would likely end past the deadline
    return {c.id: totals[c] for c in legal}


def sealed_of(view: SeatView) -> tuple[tuple[Suit, ...], tuple[Suit, ...]]:
    """The suits each team has sealed in the game so far (Seven Followers; else none)."""
    if not view.seals:
        return ((), ())
    return (tuple(Suit(x) for x in view.seals[0]), tuple(Suit(x) for x in view.seals[1]))


def pass_values(
    config: GameConfig,
    before: GameState,
    feed: Sequence[Event],
    seat: int,
    candidates: Sequence[tuple[Card, ...]],
    rng: random.Random,
    budget: Budget,
    score: Score = share,
) -> list[float]:
    """Each candidate pass of ``seat`` (which must pass): its mean ``score`` for the
    seat's side over deals sampled from the seat's ``feed`` of the round, the other
    seats passing as the basic bot does and the round then played out as the playouts
    play it. ``before`` is the game as it stood before the round was dealt (its scores
    and seals: nothing of the round's hands). No clock: the worlds alone bound it."""
    dealt = next(e for e in reversed(feed) if isinstance(e, RoundDealt))
    sampler = Sampler(knowledge(config, seat, feed), config.deck)
    side = config.side_of(seat)
    totals = [0.0] * len(candidates)
    for _ in range(budget.worlds):
        hands = tuple(sort_cards(list(h)) for h in sampler.draw(rng))
        state = evolve(before, RoundDealt(dealt.number, hands, dealt.trump))
        for other in range(config.players):
            view = observe(state, SeatViewer(other))
            if other != seat and view.action == Action.PASS:
                given = PassCards(other, tuple(card(i) for i in basic_pass(view)))
                state = fold(decide(state, given), state)
        for k, cards in enumerate(candidates):
            after = fold(decide(state, PassCards(seat, tuple(cards))), state)
            totals[k] += score(config, side, playout_of(config, after).run())
    return [t / budget.worlds for t in totals]


def pass_candidates(
    view: SeatView, chosen: Sequence[str], most: int = 10
) -> list[tuple[Card, ...]]:
    """A bounded set of passes to compare for ``view``'s seat (which must pass):
    ``chosen`` first, then the basic bot's pass and its neighbours (the three of the
    five cards it would most readily give; Seven Followers: another card to the
    partner, or other low cards to the opponents), no two of the same cards."""
    hand = [card(i) for i in view.legal]
    order = [card(i) for i in basic_pass(view)]
    found: list[tuple[Card, ...]] = [tuple(card(i) for i in chosen), tuple(order)]
    if Variant(view.variant) is Variant.STANDARD:
        ranked = order + [c for c in pass_order(view) if c not in order]
        found += [tuple(t) for t in combinations(ranked[:5], 3)]
    else:  # (to seat + 1, to the partner, to seat + 3)
        cheap = sorted(hand, key=lambda c: (c.is_boss, c is SUPER_TRUMP, c.rank))
        partners = [c for c in hand if c.is_boss][:3] or cheap[-3:]
        for to_partner in partners:
            rest = [c for c in cheap if c is not to_partner][:3]
            found += [(a, to_partner, b) for a, b in combinations(rest, 2)]
    unique: dict[frozenset[Card], tuple[Card, ...]] = {}
    for cards in found:
        unique.setdefault(frozenset(cards), cards)
    return list(unique.values())[:most]


def playout_of(config: GameConfig, state: GameState) -> Playout:
    """The round of ``state`` (being played) as a :class:`Playout` to run."""
    r = state.round
    turn = state.turn()
    assert r is not None and turn is not None
    sealed = (tuple(state.seals[0]), tuple(state.seals[1])) if state.seals else ((), ())
    return Playout(
        config,
        [list(h) for h in r.hands],
        list(r.trick),
        turn,
        r.trump_suit,
        list(r.tricks_won),
        [list(b) for b in r.bosses],
        r.tricks_played,
        sealed,
    )


def _order(c: Card) -> int:
    return c.order
