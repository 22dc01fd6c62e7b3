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
  each): PIMC decides one card for all worlds, by its average over them. The playouts
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

A decision's value is the round's outcome for the seat's side: its points (R-6) less
the others' average (Seven Followers: suits sealed). The playouts are deterministic, so
the cards compared in a world meet the same answers unless they change them. A budget
bounds the worlds and the time (``YOKAI_BOT_MOVE_MS``, counted from the decision's
start: a world is not begun when, at the average time a world has taken, it would end
past it); with the time not binding, a decision is a function of the seat's feed and
the seed only (tests/bots/test_search.py).

Passing (R-3.2, R-7.2) is the basic bot's. A pass searched the same way (the basic
bot's pass and sets of the seat's weakest cards compared over sampled deals, the other
seats passing their weakest, the round then played out) was tried and measured worse:
three players, expert against basic, 30.8 % of 39 games against 40 to 50 % of 30 with
the basic bot's passes (docs/benchmarks.md); picked as the best of noisy means, the
searched passes paid the winner's curse. It was taken out until a better model of the
others' passes and of the round's lead earns its place.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from service.bots.basic_bot import basic_move
from service.bots.moves import Move, PlayMove
from service.bots.playout import Outcome, Playout
from service.bots.sampler import Sampler, knowledge
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
    started = time.perf_counter()
    if view.action == Action.PASS:
        return basic_move(view, rng)  # passes are the basic bot's: the module's docstring
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
    deadline = None if budget.ms is None else started + budget.ms / 1000
    for done in range(1, budget.worlds + 1):
        hands = [sorted(h, key=_order) for h in sampler.draw(rng)]
        for c in legal:
            sim = Playout(
                config,
                [h[:] for h in hands],
                list(trick),
                seat,
                trump,
                list(tricks_won),
                [list(b) for b in bosses],
                round_.tricks_played,
                sealed,
            )
            sim.play(c)
            outcome = sim.outcome or sim.run()
            totals[c] += value(config, side, outcome)
        if deadline is not None:
            now = time.perf_counter()
            if now + (now - started) / done > deadline:
                break  # the next world would likely end past the deadline
    best = max(legal, key=lambda c: (totals[c], -c.order))
    return PlayMove(best.id)


def _order(c: Card) -> int:
    return c.order
