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
  each): PIMC decides one card for all worlds, by its average over them, and the
  playouts after it use a policy that does not see the world either: each seat plays a
  random legal card, so the evaluation never credits a seat with perfect information.
  This underestimates good play on both sides alike.
- *Non-locality* (what a card says to the others): not modelled; the other seats'
  plays in a playout are random.
- *Teams*: with four players a card is scored by its team's outcome (the partner's hand
  is sampled like the opponents': the seat does not see it); with three, by the seat's.

A decision's value is the round's outcome for the seat's side: its points (R-6) less
the others' average (Seven Followers: suits sealed). Each world's playouts share one
random stream across the cards compared (common random numbers), so the comparison is
between cards, not between streams. A budget bounds the worlds and the time
(``YOKAI_BOT_MOVE_MS``); with the time not binding, a decision is a function of the
seat's feed and the seed only (tests/bots/test_search.py).

Passing (R-3.2, R-7.2) is searched the same way over a few candidate passes: the basic
bot's, and sets of the seat's weakest cards (never the A or a boss, the basic bot's own
rule for a pass it keeps). Each world is a deal of the unknown cards; the other seats
pass their three weakest cards; the round is then played out from its first trick. Who
leads a round after the first is the last round's last trick winner, which the seat's
view does not show: a world draws it at random then (R-3.3 and R-7.3 decide it from
the hands).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from service.bots.basic_bot import basic_move
from service.bots.moves import Move, PassMove, PlayMove
from service.bots.playout import Outcome, Playout, strength
from service.bots.sampler import ACE, BLUE_13, Sampler, knowledge
from service.rules import Action, GameConfig, SeatView, card
from service.rules.cards import Card, Suit
from service.rules.events import Event


@dataclass(frozen=True, slots=True)
class Budget:
    """At most ``worlds`` sampled worlds, each playing every legal card out once, and
    at most ``ms`` milliseconds (None: no time limit; the worlds alone bound it)."""

    worlds: int
    ms: float | None = None


def value(config: GameConfig, side: int, outcome: Outcome) -> float:
    """The round's outcome for ``side``: its points less the other sides' average."""
    others = [p for s, p in enumerate(outcome.points) if s != side]
    return outcome.points[side] - sum(others) / len(others)


def search_move(
    config: GameConfig,
    view: SeatView,
    feed: Sequence[Event],
    rng: random.Random,
    budget: Budget,
) -> Move | None:
    """The move of ``view``'s seat, from the seat's view and its feed of the round (the
    events as the seat's own feed shows them)."""
    if not view.legal:
        return None
    if view.action == Action.PASS:
        return search_pass(config, view, feed, rng, budget)
    if view.action != Action.PLAY:
        return None
    legal = [card(i) for i in view.legal]
    if len(legal) == 1:
        return PlayMove(legal[0].id)
    seat = view.seat
    round_ = view.round
    assert round_ is not None
    k = knowledge(config, seat, feed)
    sampler = Sampler(k, config.deck)
    side = config.side_of(seat)
    trump = Suit(round_.trump_suit) if round_.trump_suit else None
    trick = [(p.seat, card(p.card)) for p in round_.trick]
    tricks_won = [s.tricks_won for s in view.seats]
    bosses = [[card(i) for i in s.bosses] for s in view.seats]
    sealed = (
        (tuple(Suit(x) for x in view.seals[0]), tuple(Suit(x) for x in view.seals[1]))
        if view.seals
        else ((), ())
    )
    totals = dict.fromkeys(legal, 0.0)
    deadline = None if budget.ms is None else time.perf_counter() + budget.ms / 1000
    for _ in range(budget.worlds):
        hands = sampler.draw(rng)
        stream = rng.getrandbits(64)
        for c in legal:
            sim = Playout(
                config,
                [sorted(h, key=_order) for h in hands],
                list(trick),
                seat,
                trump,
                list(tricks_won),
                [list(b) for b in bosses],
                round_.tricks_played,
                sealed,
            )
            sim.play(c)
            outcome = sim.outcome or sim.run(random.Random(stream))
            totals[c] += value(config, side, outcome)
        if deadline is not None and time.perf_counter() > deadline:
            break
    best = max(legal, key=lambda c: (totals[c], -c.order))
    return PlayMove(best.id)


def _order(c: Card) -> int:
    return c.order


def weakest(hand: Sequence[Card], n: int) -> list[Card]:
    """The ``n`` weakest cards to give away: never the A or a boss if others will do."""
    spare = sorted((c for c in hand if c is not ACE and not c.is_boss), key=strength)
    rest = sorted((c for c in hand if c not in spare), key=strength)
    return (spare + rest)[:n]


CANDIDATES = 8
"""Passes compared at most: the basic bot's and sets of the seat's weakest cards."""


def search_pass(
    config: GameConfig,
    view: SeatView,
    feed: Sequence[Event],
    rng: random.Random,
    budget: Budget,
) -> Move | None:
    """The seat's pass, searched over sampled deals (the module's docstring)."""
    basic = basic_move(view, rng)
    if not isinstance(basic, PassMove):
        return basic
    seat = view.seat
    hand = [card(i) for i in view.hand]
    pool = weakest(hand, 6)
    candidates = [tuple(card(i) for i in basic.cards)]
    for combo in itertools.combinations(pool, 3):
        if len(candidates) >= CANDIDATES:
            break
        if set(combo) != set(candidates[0]):
            candidates.append(combo)
    k = knowledge(config, seat, feed)
    sampler = Sampler(k, config.deck)
    round_ = view.round
    assert round_ is not None
    trump = card(round_.trump) if round_.trump else None
    side = config.side_of(seat)
    sealed = (
        (tuple(Suit(x) for x in view.seals[0]), tuple(Suit(x) for x in view.seals[1]))
        if view.seals
        else ((), ())
    )
    ace_leads = config.seven_followers or round_.number == 1
    totals = dict.fromkeys(candidates, 0.0)
    deadline = None if budget.ms is None else time.perf_counter() + budget.ms / 1000
    for _ in range(max(1, budget.worlds // 2)):
        dealt = sampler.draw(rng)
        stream = rng.getrandbits(64)
        others = {s: weakest(sorted(dealt[s], key=_order), 3) for s in range(config.players)}
        for given in candidates:
            chance = random.Random(stream)
            hands = [list(h) for h in dealt]
            for giver in range(config.players):
                passed = given if giver == seat else others[giver]
                for to, c in zip(config.pass_targets(giver), passed, strict=True):
                    hands[giver].remove(c)
                    hands[to].append(c)
            if ace_leads:
                wanted = BLUE_13 if trump is ACE else ACE
                leader = next(s for s, h in enumerate(hands) if wanted in h)
            else:
                leader = chance.randrange(config.players)
            sim = Playout(
                config,
                [sorted(h, key=_order) for h in hands],
                [],
                leader,
                trump.suit if trump is not None else None,
                [0] * config.players,
                [[] for _ in range(config.players)],
                0,
                sealed,
            )
            totals[given] += value(config, side, sim.run(chance))
        if deadline is not None and time.perf_counter() > deadline:
            break
    best = max(candidates, key=lambda g: (totals[g], g == candidates[0]))
    return PassMove((best[0].id, best[1].id, best[2].id))
