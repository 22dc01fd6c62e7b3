"""The ``basic`` bot's pass (R-3.2, R-7.2): which three cards it gives, from its seat's view.

With three players (to the opponent on the left) and with four (to the partner) it
passes its lowest side cards from its shortest suits, never a boss, the A or a trump, so
it gets voids to trump boss tricks with, and its partner gets low cards to lose tricks
with; in Seven Followers (R-7.2) it gives a boss to its partner and its lowest cards to
the opponents. It reads only its hand (every card of which it may pass), the trump suit
and the variant: none of the estimates of who holds what that its play weighs
(service/bots/basic_bot.py).
"""

from __future__ import annotations

from service.rules import SeatView, Suit, Variant, card
from service.rules.cards import SUPER_TRUMP, Card


def basic_pass(view: SeatView) -> tuple[str, str, str]:
    """The three cards the basic bot passes from ``view``'s seat, in the order given."""
    r = view.round
    assert r is not None, "a seat that must act is in a round"
    legal = [card(i) for i in view.legal]
    if Variant(view.variant) is not Variant.STANDARD:
        # one card to each other seat, in the order seat+1, seat+2 (the
        # partner), seat+3. The partner gets a boss (the team's bosses are safest
        # where the team can capture them: together they hold more of a suit's
        # pair), the opponents the lowest cards.
        cheap = sorted(legal, key=lambda c: (c.is_boss, c is SUPER_TRUMP, c.rank))
        bosses = [c for c in legal if c.is_boss]
        to_partner = bosses[0] if bosses else cheap[-1]
        rest = [c for c in cheap if c is not to_partner]
        return (rest[0].id, to_partner.id, rest[1].id)
    chosen = pass_order(view)[:3]
    first, second, third = chosen
    return (first.id, second.id, third.id)


def pass_order(view: SeatView) -> list[Card]:
    """R-3.2: the seat's cards in the order the basic bot would give them (standard
    rules): low cards of the shortest suits first (voids to trump boss tricks with),
    side suits before trumps, and the bosses and the A last (given only when nothing
    else is left)."""
    r = view.round
    assert r is not None, "a seat that must act is in a round"
    legal = [card(i) for i in view.legal]
    trump = Suit(r.trump_suit) if r.trump_suit is not None else None
    counts: dict[Suit, int] = {}
    for c in legal:
        counts[c.suit] = counts.get(c.suit, 0) + 1
    chosen = sorted(
        (c for c in legal if not c.is_boss and c is not SUPER_TRUMP),
        key=lambda c: (c.suit is trump, counts[c.suit], c.rank, c.id),
    )
    chosen += [c for c in legal if c not in chosen]  # (a hand of bosses and the A only)
    return chosen
