"""What a seat knows of the hidden hands, and worlds drawn uniformly from what it knows.

A search bot (issue 31) decides from its seat's information only: the round's events as
the seat's own feed shows them (``redact(event, SeatViewer(seat))``: the other hands and
the other passes are None there). :func:`knowledge` reads from them what constrains the
other seats' hands now:

- the seat's own hand (dealt, less what it passed, plus what it received, less what it
  played), and every card out: played, or the trump card (R-3.1);
- cards known to be in a hand: a card the seat passed (R-3.2, R-7.2) is in its
  receiver's hand until played; the seat that led a round whose lead goes to the A's
  holder (round 1, R-3.3; every Seven Followers round, R-7.3) holds the A (or, with the
  A as the trump card, blue-13) until it plays it;
- voids: a seat that did not follow the led suit has none of it (R-4.1, R-4.2: the A is
  green) for the rest of the round (nothing enters a hand after the passes);
- each seat's hand size.

:class:`Sampler` then draws the other seats' hands uniformly over every assignment of
the unknown cards consistent with that: the count of assignments is computed once per
decision by dynamic programming over suits (within a suit, which cards a seat gets is a
multinomial choice; across suits only the seats' remaining room couples them), and each
draw walks it back, so no draw is rejected and no consistent world is more likely than
another. Tests: tests/bots/test_sampler.py (every draw consistent, over random
positions; the distribution uniform where the worlds can be enumerated).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from math import comb

from service.rules.cards import SUITS, Card, Suit, card
from service.rules.config import GameConfig
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    Event,
    PassesExchanged,
    RoundDealt,
    TrickTaken,
)

ACE = card("green-1")
BLUE_13 = card("blue-13")


@dataclass
class Knowledge:
    """What ``seat`` knows of the round now (see the module's docstring)."""

    seat: int
    players: int
    hand: set[Card]
    out: set[Card]  # played, or the trump card
    known: list[set[Card]]  # by seat: cards known to be in that hand now
    voids: list[set[Suit]]  # by seat
    sizes: list[int]  # by seat: cards in hand now
    trump: Card | None
    trick: list[tuple[int, Card]] = field(default_factory=list)  # the trick under way

    def unknown(self, deck: Sequence[Card]) -> list[Card]:
        """The cards whose place the seat does not know: in the other hands."""
        placed = self.hand | self.out | set().union(*self.known)
        return [c for c in deck if c not in placed]


def knowledge(config: GameConfig, seat: int, events: Sequence[Event]) -> Knowledge:
    """The seat's knowledge from its feed's events (from the round's ``RoundDealt`` on:
    earlier events are ignored)."""
    start = max((i for i, e in enumerate(events) if isinstance(e, RoundDealt)), default=None)
    if start is None:
        raise ValueError("no round dealt")
    n = config.players
    dealt = events[start]
    assert isinstance(dealt, RoundDealt)
    mine = dealt.hands[seat]
    if mine is None:
        raise ValueError("the seat's own hand is not in its feed")
    k = Knowledge(
        seat=seat,
        players=n,
        hand=set(mine),
        out={dealt.trump} if dealt.trump is not None else set(),
        known=[set() for _ in range(n)],
        voids=[set() for _ in range(n)],
        sizes=[len(mine)] * n,
        trump=dealt.trump,
    )
    ace_leads = config.seven_followers or dealt.number == 1
    for e in events[start + 1 :]:
        match e:
            case CardsPassed(seat=giver, cards=cards) if giver == seat and cards is not None:
                pass  # where each goes is in the exchange
            case PassesExchanged(passes=passes, leader=leader):
                for p in passes:
                    if p.giver == seat and p.card is not None:
                        k.hand.discard(p.card)
                        k.known[p.receiver].add(p.card)
                    elif p.receiver == seat and p.card is not None:
                        k.hand.add(p.card)
                if ace_leads:
                    held = BLUE_13 if dealt.trump is ACE else ACE
                    if leader != seat:
                        k.known[leader].add(held)
            case CardPlayed(seat=who, card=played):
                if k.trick:
                    led = k.trick[0][1].suit
                    if played.suit is not led:
                        k.voids[who].add(led)
                k.trick.append((who, played))
                k.out.add(played)
                k.sizes[who] -= 1
                if who == seat:
                    k.hand.discard(played)
                else:
                    k.known[who].discard(played)
            case TrickTaken():
                k.trick = []
    return k


class Sampler:
    """Uniform draws of the other seats' hands given a seat's :class:`Knowledge`."""

    def __init__(self, k: Knowledge, deck: Sequence[Card]) -> None:
        self.k = k
        self.others = [s for s in range(k.players) if s != k.seat]
        room = [k.sizes[s] - len(k.known[s]) for s in self.others]
        if any(r < 0 for r in room):
            raise ValueError("a seat knows more cards than it holds")
        unknown = k.unknown(deck)
        if sum(room) != len(unknown):
            raise ValueError(f"{len(unknown)} unknown cards for {sum(room)} places")
        self.by_suit = [[c for c in unknown if c.suit is g] for g in SUITS]
        self.allowed = [
            [i for i, s in enumerate(self.others) if g not in k.voids[s]] for g in SUITS
        ]
        self.room = tuple(room)
        # ways[g][r]: assignments of suits g.. into remaining room r (a tuple by seat).
        self._ways: list[dict[tuple[int, ...], int]] = [{} for _ in range(len(SUITS) + 1)]
        if self._count(0, self.room) == 0:
            raise ValueError("no world is consistent with what the seat knows")

    def _splits(self, g: int, room: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        """The ways suit ``g``'s unknown cards can be split among the seats allowed to
        hold it within ``room``: (counts by seat, the number of card choices)."""
        cards, allowed = len(self.by_suit[g]), self.allowed[g]
        found: list[tuple[tuple[int, ...], int]] = []

        def split(i: int, left: int, counts: list[int], ways: int) -> None:
            if i == len(allowed) - 1 or not allowed:
                if not allowed:
                    if left == 0:
                        found.append((tuple(counts), ways))
                    return
                seat = allowed[i]
                if left <= room[seat]:
                    counts[seat] = left
                    found.append((tuple(counts), ways))
                    counts[seat] = 0
                return
            seat = allowed[i]
            for n in range(min(left, room[seat]) + 1):
                counts[seat] = n
                split(i + 1, left - n, counts, ways * comb(left, n))
            counts[seat] = 0

        split(0, cards, [0] * len(room), 1)
        return found

    def _count(self, g: int, room: tuple[int, ...]) -> int:
        if g == len(SUITS):
            return 1 if not any(room) else 0
        memo = self._ways[g]
        if room not in memo:
            memo[room] = sum(
                w * self._count(g + 1, tuple(r - c for r, c in zip(room, counts, strict=True)))
                for counts, w in self._splits(g, room)
            )
        return memo[room]

    @property
    def worlds(self) -> int:
        """How many assignments of the unknown cards are consistent."""
        return self._count(0, self.room)

    def draw(self, rng: random.Random) -> list[set[Card]]:
        """One world: every seat's hand now (the seat's own as it is)."""
        hands = [set(known) for known in self.k.known]
        hands[self.k.seat] = set(self.k.hand)
        room = self.room
        for g in range(len(SUITS)):
            options = []
            for counts, w in self._splits(g, room):
                rest = tuple(r - c for r, c in zip(room, counts, strict=True))
                weight = w * self._count(g + 1, rest)
                if weight:
                    options.append((counts, weight, rest))
            pick = rng.randrange(sum(w for _, w, _ in options))
            chosen = 0
            while pick >= options[chosen][1]:
                pick -= options[chosen][1]
                chosen += 1
            counts, _, rest = options[chosen]
            cards = self.by_suit[g][:]
            rng.shuffle(cards)
            at = 0
            for i, n in enumerate(counts):
                hands[self.others[i]].update(cards[at : at + n])
                at += n
            room = rest
        return hands
