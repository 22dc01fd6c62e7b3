"""The search bots' playout policy: the basic bot's way of playing, on a sampled world.

A PIMC playout (service/bots/search.py) plays the round out after each candidate card,
and what a card is worth depends on how the others answer it. The seats the search bots
meet are mostly ``basic`` bots (service/bots/basic_bot.py), and basic plays well enough
for a partner too, so the playouts play as basic does: each legal card is scored by
who ends up holding the trick times what the trick is worth to that side (the bosses in
it, weighed by how near they bring the side to R-5.1's threshold, less a cost per
trick growing towards R-5.2's seventh; a decided round counts ±1), less a little for
spending a strong card; the best card is played. The same weights as basic's.

What differs from basic is what the player knows. Basic estimates from the cards it has
not seen whether the seats still to play can beat a card; here the world is sampled,
so the policy reads their hands: a seat beats the card if it holds a card that does
and may play it (R-4.1, R-4.2). That is what makes it cheap enough to run thousands of
times a decision (no loops over unseen cards), at the price of modelling basic as if
its guesses were right: the mistakes basic makes from not knowing are not modelled.
Seven Followers (R-7.4 to R-7.7): the first lead sets trump, so it is led from the
longest and highest suit; captured bosses are worth more when they seal a suit.

Only the rules are read, and only through the :class:`~service.bots.playout.Playout`'s
state: the cards played are always legal (tests/bots/test_policy.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.bots.basic_bot import (  # basic's weights: its docstring says how they were tuned
    BOSS_CURVE,
    DROP,
    POWER_WEIGHT,
    SF_BOSS,
    SF_DROPPED,
    SF_SEAL,
    SF_SEALED,
    power,
    sf_first_lead,
)
from service.rules.cards import SUPER_TRUMP, Card, Suit
from service.rules.playing import trick_winner

if TYPE_CHECKING:
    from service.bots.playout import Playout


def _beats(hand: list[Card], best: Card, led: Suit, trump: Suit) -> bool:
    """Whether a seat holding ``hand`` can play a card beating ``best`` (R-4.1 to
    R-4.3): a higher card of the led suit or the A when it follows, else the A or a
    trump (a higher one when ``best`` is a trump)."""
    if best is SUPER_TRUMP:
        return False
    follows = off_beats = False
    for c in hand:
        if c is SUPER_TRUMP:
            beats = True
        elif c.suit is best.suit:
            beats = c.rank > best.rank
        else:
            beats = c.suit is trump
        if c.suit is led:
            if beats:
                return True
            follows = True
        elif beats:
            off_beats = True
    return off_beats and not follows


def _boss_value(have: int, more: float, threshold: int) -> float:
    curve: float = ((have + more) / threshold) ** BOSS_CURVE - (have / threshold) ** BOSS_CURVE
    return curve


def model_card(sim: Playout, legal: list[Card]) -> Card:
    """The card the seat on turn plays (one of ``legal``, in the hand's order the first
    of the best)."""
    if len(legal) == 1:
        return legal[0]
    cfg = sim.cfg
    if cfg.seven_followers and sim.trump_suit is None and not sim.trick:
        return sf_first_lead(sim.hands[sim.turn], legal)
    n, seat, trick = sim.n, sim.turn, sim.trick
    four = n == 4
    side = seat % 2 if four else seat
    to_play = [(seat + i) % n for i in range(1, n - len(trick))]
    foes = [s for s in to_play if (s % 2 if four else s) != side]
    worth = _Worth(sim, side, len(sim.hands[seat]) == 1)
    drops: dict[Suit, float] = {}
    in_trick = sum(1 for _, x in trick if x.is_boss)
    if trick:
        led: Suit = trick[0][1].suit
        top_seat = trick_winner(trick, sim.trump_suit or led)
        top = next(x for s, x in trick if s == top_seat)
    best_card, best_value = legal[0], float("-inf")
    for c in legal:
        if not trick:
            led, winner, best = c.suit, seat, c
        elif top is SUPER_TRUMP or not (
            c is SUPER_TRUMP
            or (c.suit is top.suit and c.rank > top.rank)
            or (c.suit is not top.suit and c.suit is (sim.trump_suit or led))
        ):
            winner, best = top_seat, top
        else:
            winner, best = seat, c
        trump = sim.trump_suit or led
        extra = drops.get(led)
        if extra is None:
            extra = DROP * sum(
                1 for s in to_play for x in sim.hands[s] if x.is_boss and x.suit is led
            )
            drops[led] = extra
        if (winner % 2 if four else winner) == side:
            taker = next((s for s in foes if _beats(sim.hands[s], best, led, trump)), seat)
        else:
            taker = winner
        bosses = in_trick + c.is_boss
        v = worth(taker, trick, c, bosses, extra) - POWER_WEIGHT * power(c, trump)
        if v > best_value + 1e-9:
            best_card, best_value = c, v
    return best_card


class _Worth:
    """What a seat taking the trick is worth to ``side`` (basic's ``value_if_won``),
    with the sides' bosses and tricks counted once per decision."""

    def __init__(self, sim: Playout, side: int, last: bool) -> None:
        self.sim, self.side, self.last = sim, side, last
        cfg = sim.cfg
        self.sf = cfg.seven_followers
        self.threshold = cfg.bosses_to_win
        self.seventh = cfg.tricks_to_lose
        self.have = sim.side_bosses
        self.taken = sim.side_tricks

    def __call__(
        self, taker: int, trick: list[tuple[int, Card]], c: Card, bosses: int, extra: float
    ) -> float:
        sim = self.sim
        taker_side = taker % 2 if sim.n == 4 else taker
        sign = 1.0 if taker_side == self.side else -1.0
        if self.sf:
            captured = [x for _, x in trick if x.is_boss] + ([c] if c.is_boss else [])
            return sign * _sf_worth(sim, taker_side, captured, extra)
        have, threshold = self.have[taker_side], self.threshold
        if have + bosses >= threshold:
            return sign
        taken = self.taken[taker_side]
        if taken + 1 >= self.seventh:
            return -sign
        if self.last:
            return sign
        return sign * (_boss_value(have, bosses + extra, threshold) - (2 * taken + 1) / 36)


def _sf_worth(sim: Playout, team: int, bosses: list[Card], extra: float) -> float:
    """Seven Followers: what capturing ``bosses`` is worth to ``team`` (basic's
    ``sf_value``: R-7.6, R-7.7, R-7.8)."""
    closed = set(sim.seals[team])
    if sim.cfg.exclusive_seals:
        closed |= set(sim.seals[1 - team])
    sealed = len(sim.seals[team])
    have = {c.suit for s in sim.cfg.seats_of(team) for c in sim.bosses[s]}
    v = 0.0
    for b in bosses:
        if b.suit in closed:
            v += SF_SEALED
        elif b.suit in have:
            sealed += 1
            if sealed >= sim.cfg.target_score:
                return 1.0
            v += SF_SEAL
            closed.add(b.suit)
        else:
            v += SF_BOSS
        have.add(b.suit)
    return v + SF_DROPPED * extra
