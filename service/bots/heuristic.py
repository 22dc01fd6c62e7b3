"""The basic bot: a deterministic heuristic player that sees only its seat's view.

What wins a round of Yokai Septet is capturing Boss Yokai (the 7s, R-5.1: four bosses
for a team, three for a player), while a side that takes seven tricks loses the round
(R-5.2); in Seven Followers a team seals a suit by capturing both its 7s (R-7.6). So
the bot:

- takes tricks that hold bosses (a boss it plays itself and wins is captured too), with
  the cheapest card that wins, and otherwise keeps its bosses out of tricks it cannot
  win;
- follows with its lowest card when the trick holds nothing worth taking, and ducks
  when its side is one trick from seven (standard game);
- lets a winning partner (four players) keep the trick, and drops a boss on it when it
  can do so without taking the trick from the partner;
- leads its lowest card from a side suit (not trumps, not a boss), so that it gives the
  lead away cheaply, unless it leads the round's first card in Seven Followers (which
  sets the trump suit: it leads from its longest suit then);
- passes (R-3.2, R-7.2) to create voids in short side suits with low cards; to its
  partner in four-player games it gives its strongest non-boss trumps, and in Seven
  Followers a boss to its partner and low cards to the opponents.

Deterministic: the same view gives the same move (``rng`` is not used). It never reads
anything but the view, so it can sit at a real table with a human's information.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from service.bots.moves import Move, PassMove, PlayMove
from service.rules import Action, Card, SeatView, card, trick_winner
from service.rules.cards import SUITS, SUPER_TRUMP, Suit


def basic_move(view: SeatView, rng: random.Random) -> Move | None:
    """The basic bot's move for this seat (None when it has nothing to do)."""
    legal = [card(i) for i in view.legal]
    if not legal:
        return None
    if view.action == Action.PASS:
        return PassMove(_pass(view, legal))
    if view.action == Action.PLAY:
        return PlayMove(_play(view, legal).id)
    return None


# --- helpers --------------------------------------------------------------------------


def _trump(view: SeatView) -> Suit | None:
    r = view.round
    if r is None or r.trump_suit is None:
        return None
    return Suit(r.trump_suit)


def _seven_followers(view: SeatView) -> bool:
    return view.variant != "standard"


def _side(view: SeatView, seat: int) -> int:
    team = view.seats[seat].team
    return team if team is not None else seat


def _cheap(c: Card, trump: Suit | None) -> tuple[int, int, int, int]:
    """A sort key: the cheapest card to give away first (no boss, no trump, no A, low)."""
    return (c is SUPER_TRUMP, c.is_boss, c.suit is trump, c.rank * 10 + c.order % 10)


def _strength(c: Card, trump: Suit | None) -> tuple[int, int, int]:
    """A sort key: the weakest winner first."""
    return (c is SUPER_TRUMP, c.suit is trump, c.rank)


# --- playing --------------------------------------------------------------------------


def _play(view: SeatView, legal: Sequence[Card]) -> Card:
    r = view.round
    assert r is not None
    trump = _trump(view)
    trick = [(p.seat, card(p.card)) for p in r.trick]
    if not trick:
        return _lead(view, legal, trump)
    me = view.seat
    led_trump = trump if trump is not None else trick[0][1].suit  # SF: first card sets it
    winner_now = trick_winner(trick, led_trump)
    last = len(trick) == view.players - 1
    partner_winning = view.players == 4 and _side(view, winner_now) == _side(view, me)
    bosses_in_trick = sum(1 for _, c in trick if c.is_boss)

    def wins(c: Card) -> bool:
        return trick_winner([*trick, (me, c)], led_trump) == me

    winners = sorted((c for c in legal if wins(c)), key=lambda c: _strength(c, led_trump))
    losers = sorted((c for c in legal if not wins(c)), key=lambda c: _cheap(c, led_trump))

    if partner_winning:
        # Feed the partner's trick a boss if one does not take it over; else duck.
        feed = [c for c in losers if c.is_boss]
        if feed and (last or bosses_in_trick or _sure(trick, winner_now, led_trump)):
            return feed[0]
        return losers[0] if losers else winners[0]

    danger = _one_from_seven(view)
    boss_winners = [c for c in winners if c.is_boss]
    worth = bosses_in_trick > 0 or bool(boss_winners)
    if winners and worth and not (danger and not _boss_round_win(view, trick)):
        # Take it: with one of our own bosses if that wins it (captured too), else with
        # the cheapest winner; a card that could still be beaten is risked only when the
        # trick already holds a boss.
        if boss_winners and (last or boss_winners[0].suit is led_trump):
            return boss_winners[0]
        if last or bosses_in_trick:
            return winners[0]
    if losers:
        non_boss = [c for c in losers if not c.is_boss]
        return (non_boss or losers)[0]
    return winners[0]  # every legal card wins: the cheapest


def _sure(trick: list[tuple[int, Card]], winner: int, trump: Suit | None) -> bool:
    """Whether the winning card of the trick is the A or a high trump (likely to hold)."""
    best = next(c for s, c in trick if s == winner)
    return best is SUPER_TRUMP or (best.suit is trump and best.rank >= _top(best.suit) - 1)


def _top(suit: Suit) -> int:
    """The highest rank of a suit (R-1.1: each suit is a run of seven)."""
    return SUITS.index(suit) + 7


def _lead(view: SeatView, legal: Sequence[Card], trump: Suit | None) -> Card:
    r = view.round
    assert r is not None
    if _seven_followers(view) and r.trump_suit is None:
        # The round's first card sets the trump suit: lead from the longest suit, its
        # lowest card that is not a boss.
        counts = Counter(c.suit for c in legal)
        suit = max(counts, key=lambda s: (counts[s], -list(Suit).index(s)))
        in_suit = sorted((c for c in legal if c.suit is suit), key=lambda c: _cheap(c, None))
        return in_suit[0]
    # A boss that surely wins (the A's company aside): the A itself, when holding bosses
    # to capture is not the question; else the cheapest side card.
    return sorted(legal, key=lambda c: _cheap(c, trump))[0]


def _one_from_seven(view: SeatView) -> bool:
    """Standard game: the bot's side has six tricks, so a seventh loses the round."""
    if _seven_followers(view):
        return False
    side = _side(view, view.seat)
    taken = sum(s.tricks_won for s in view.seats if _side(view, s.seat) == side)
    return taken >= 6


def _boss_round_win(view: SeatView, trick: list[tuple[int, Card]]) -> bool:
    """Whether taking this trick would give the bot's side the bosses to win the round
    (R-5.1, which is checked before R-5.2)."""
    side = _side(view, view.seat)
    held = sum(len(s.bosses) for s in view.seats if _side(view, s.seat) == side)
    threshold = 4 if view.players == 4 else 3
    return held + sum(1 for _, c in trick if c.is_boss) >= threshold


# --- passing --------------------------------------------------------------------------


def _pass(view: SeatView, legal: Sequence[Card]) -> tuple[str, str, str]:
    trump = _trump(view)
    if _seven_followers(view):
        # One card to each other seat, in the order seat+1, seat+2 (the partner), seat+3.
        cheap = sorted(legal, key=lambda c: _cheap(c, None))
        bosses = [c for c in legal if c.is_boss]
        to_partner = bosses[0] if bosses else cheap[-1]
        rest = [c for c in cheap if c is not to_partner]
        return (rest[0].id, to_partner.id, rest[1].id)
    chosen: list[Card] = []
    if view.players == 4:
        # Strong trumps (not bosses) help the partner take boss tricks.
        trumps = sorted(
            (c for c in legal if c.suit is trump and not c.is_boss and c is not SUPER_TRUMP),
            key=lambda c: -c.rank,
        )
        chosen += trumps[:1]
    # Then void short side suits: their lowest cards, shortest suit first.
    counts = Counter(c.suit for c in legal)
    side = sorted(
        (c for c in legal if c.suit is not trump and not c.is_boss and c is not SUPER_TRUMP),
        key=lambda c: (counts[c.suit], c.rank),
    )
    for c in side:
        if len(chosen) == 3:
            break
        if c not in chosen:
            chosen.append(c)
    for c in sorted(legal, key=lambda c: _cheap(c, trump)):
        if len(chosen) == 3:
            break
        if c not in chosen:
            chosen.append(c)
    first, second, third = chosen[:3]
    return (first.id, second.id, third.id)
