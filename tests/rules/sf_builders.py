"""Deal construction for the Seven Followers rule tests (docs/rules.md R-7).

Every helper builds complete, valid 56-card deals through the public engine API. The
central idea: a round is scripted as 14 single-suit tricks (two per suit, every seat
holding exactly two cards of every suit), so nobody is ever void, the trump suit never
decides a trick, and the winner of every trick -- hence who captures which 7 -- is
known in advance. Passes are then "undone" to find the hands that must be dealt so
that, after the R-7.2 exchange, every seat holds exactly the scripted cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.rules import (
    INITIAL,
    SEVEN_FOLLOWERS_DECK,
    Card,
    CreateGame,
    DealRound,
    Event,
    JoinSeat,
    PassCards,
    Phase,
    PresetDeal,
    Scoring,
    Suit,
    Variant,
    card,
    deal_due,
    legal_cards,
    preset_deal,
)
from tests.rules.scenario import Table, cards

PLAYERS = 4
HAND_SIZE = 14
SUPER_TRUMP_ID = "green-1"
SF_IDS: tuple[str, ...] = tuple(c.id for c in SEVEN_FOLLOWERS_DECK)

Trick = tuple[str, str, str, str]
"""The card each seat plays in one trick, indexed by seat (0, 1, 2, 3), not play order."""

Pass = tuple[str, str, str]
"""One seat's pass in target order: the card for seat+1, for seat+2, for seat+3."""

SuitPlan = tuple[Suit, int, int]
"""(suit, seat winning the trick with ``<suit>-7``, seat winning the one with ``-7b``)."""


def team_of(seat: int) -> int:
    """R-2.2: seats 0 and 2 are team 0, seats 1 and 3 team 1."""
    return seat % 2


def sevens(suit: Suit) -> tuple[str, str]:
    """The two bosses of ``suit`` (R-7.1)."""
    return f"{suit}-7", f"{suit}-7b"


def strength(card_id: str) -> int:
    """A card's strength inside its own suit: the A above everything, else its rank."""
    return 100 if card_id == SUPER_TRUMP_ID else card(card_id).rank


def expected_winner(trick: Sequence[tuple[int, str]], trump: Suit) -> int:
    """An independent oracle for R-4.3 / R-7.5, on (seat, card id) pairs in play order.

    The A wins; else the strongest trump; else the strongest card of the led suit; two
    equally strong cards (the two 7s of one suit) go to the one played first.
    """
    for seat, cid in trick:
        if cid == SUPER_TRUMP_ID:
            return seat
    led = card(trick[0][1]).suit
    for suit in (trump, led):
        contenders = [(seat, cid) for seat, cid in trick if card(cid).suit is suit]
        if contenders:
            best = max(strength(cid) for _, cid in contenders)
            # max() over equals would pick any; the first played is the rule.
            return next(seat for seat, cid in contenders if strength(cid) == best)
    raise AssertionError("unreachable: the led card is of the led suit")


def _assign(trick_cards: Sequence[str], winner: int) -> Trick:
    top = max(trick_cards, key=strength)
    rest = [c for c in trick_cards if c != top]
    out = ["", "", "", ""]
    out[winner] = top
    for seat, cid in zip((s for s in range(PLAYERS) if s != winner), rest, strict=True):
        out[seat] = cid
    return (out[0], out[1], out[2], out[3])


def suit_tricks(suit: Suit, win_a: int, win_b: int) -> tuple[Trick, Trick]:
    """Two tricks of ``suit`` using all 8 of its cards, one 7 in each.

    The first holds ``<suit>-7`` and the suit's strongest other card and goes to seat
    ``win_a``; the second holds ``<suit>-7b`` and goes to seat ``win_b``. A team seals
    the suit in that round iff both seats belong to it (R-7.6).
    """
    seven, seven_b = sevens(suit)
    others = sorted(
        (c.id for c in SEVEN_FOLLOWERS_DECK if c.suit is suit and c.id not in (seven, seven_b)),
        key=strength,
        reverse=True,
    )
    first = _assign([seven, others[0], others[2], others[3]], win_a)
    second = _assign([seven_b, others[1], others[4], others[5]], win_b)
    return first, second


def unpass(
    after: Sequence[Sequence[str]], passes: Sequence[Pass] | None = None
) -> tuple[tuple[tuple[str, ...], ...], tuple[Pass, ...]]:
    """The hands to deal, and the passes to make, so that the hands after the R-7.2
    exchange are exactly ``after``.

    ``passes[s][i]`` must lie in ``after[(s + 1 + i) % 4]`` (it arrives there). By default
    seat s gives seat+1 that seat's 1st card (canonical order), seat+2 its 2nd and seat+3
    its 3rd; the 1st card of the A's holder is the A, so by default the A is passed.
    """
    post = [sorted(h, key=lambda i: card(i).order) for h in after]
    assert len(post) == PLAYERS and all(len(h) == HAND_SIZE for h in post)
    assert sorted(i for h in post for i in h) == sorted(SF_IDS), "every card exactly once"
    if passes is None:
        passes = tuple(
            (post[(s + 1) % 4][0], post[(s + 2) % 4][1], post[(s + 3) % 4][2])
            for s in range(PLAYERS)
        )
    received: list[set[str]] = [set() for _ in range(PLAYERS)]
    for giver, given in enumerate(passes):
        assert len(given) == 3
        for offset, cid in enumerate(given, start=1):
            target = (giver + offset) % PLAYERS
            assert cid in post[target], f"{cid} does not end in seat {target}'s hand"
            received[target].add(cid)
    assert sum(len(r) for r in received) == 3 * PLAYERS, "a card is passed twice"
    dealt = tuple(
        tuple(sorted([c for c in post[s] if c not in received[s]] + list(passes[s])))
        for s in range(PLAYERS)
    )
    return dealt, tuple((p[0], p[1], p[2]) for p in passes)


@dataclass(frozen=True)
class ScriptedRound:
    """A complete round: what is dealt, what each seat passes, and the 14 tricks."""

    dealt: tuple[tuple[str, ...], ...]
    passes: tuple[Pass, ...]
    tricks: tuple[Trick, ...]

    def preset(self) -> PresetDeal:
        """This round's deal as an operator gives it (docs/api.md ``deals``)."""
        return PresetDeal(tuple(cards(" ".join(h)) for h in self.dealt), None)

    @property
    def holder_of_a(self) -> int:
        """The seat holding green-1 once the passes are exchanged."""
        return next(s for s in range(PLAYERS) if SUPER_TRUMP_ID in self.after_pass[s])

    @property
    def after_pass(self) -> tuple[frozenset[str], ...]:
        return tuple(frozenset(t[s] for t in self.tricks) for s in range(PLAYERS))


def scripted_round(plan: Sequence[SuitPlan]) -> ScriptedRound:
    """A round whose tricks follow ``plan``: two tricks per suit, in the plan's order."""
    assert sorted(s for s, _, _ in plan) == sorted(Suit), "every suit exactly once"
    tricks = tuple(t for suit, a, b in plan for t in suit_tricks(suit, a, b))
    dealt, passes = unpass([[t[s] for t in tricks] for s in range(PLAYERS)])
    return ScriptedRound(dealt, passes, tricks)


def complete_hands(partial: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Four 14-card hands: the cards named per seat, then the rest of the 56-card deck
    given one by one (canonical order) to the seat with the most room left."""
    hands = [list(p.split()) for p in partial]
    assert len(hands) == PLAYERS
    named = [c for h in hands for c in h]
    assert len(set(named)) == len(named), "a card is named twice"
    for cid in SF_IDS:
        if cid in named:
            continue
        seat = max(range(PLAYERS), key=lambda s: (HAND_SIZE - len(hands[s]), -s))
        hands[seat].append(cid)
    assert all(len(h) == HAND_SIZE for h in hands), "a seat was named more than 14 cards"
    return tuple(tuple(h) for h in hands)


def sf_table(
    variant: Variant = Variant.SEVEN_FOLLOWERS, deals: Sequence[PresetDeal] | None = None
) -> Table:
    """A created Seven Followers game with all four seats joined: round 1 is due."""
    table = Table(INITIAL)
    table.do(CreateGame(PLAYERS, Scoring.BASIC, variant, None, tuple(deals) if deals else None))
    for seat in range(PLAYERS):
        table.do(JoinSeat(seat, f"player {seat}"))
    return table


def deal_preset(table: Table) -> tuple[Event, ...]:
    """Deal the round that is due from the operator's preset deals, as the service does."""
    number = deal_due(table.state)
    assert number is not None, "no deal is due"
    preset = preset_deal(table.state, number)
    assert preset is not None, f"no preset deal for round {number}"
    return table.do(DealRound(preset.hands, preset.trump))


def pass_all(table: Table, passes: Sequence[Pass]) -> tuple[Event, ...]:
    out: list[Event] = []
    for seat, given in enumerate(passes):
        out.extend(table.do(PassCards(seat, cards(" ".join(given)))))
    return tuple(out)


def start_round(table: Table, rnd: ScriptedRound, *, preset: bool = False) -> None:
    """Deal ``rnd`` (or the due preset deal) and make its passes: the first trick is next."""
    if preset:
        deal_preset(table)
    else:
        table.deal(rnd.dealt, None)
    pass_all(table, rnd.passes)
    assert table.state.phase is Phase.PLAYING


def play_trick(table: Table, trick: Trick) -> tuple[Event, ...]:
    """Play one trick from whoever leads now; ``trick`` gives each seat's card by seat."""
    leader = table.state.turn()
    assert leader is not None, "nobody is to play"
    out: list[Event] = []
    for k in range(PLAYERS):
        seat = (leader + k) % PLAYERS
        out.extend(table.play(seat, trick[seat]))
    return tuple(out)


def play_tricks(table: Table, tricks: Sequence[Trick]) -> list[tuple[Event, ...]]:
    """Play several tricks; the events of each trick, in order."""
    return [play_trick(table, t) for t in tricks]


def play_rest_of_round(table: Table) -> list[tuple[tuple[tuple[int, str], ...], int]]:
    """Finish the current round, every seat playing its first legal card.

    Returns each completed trick as ((seat, card id) in play order, winner seat).
    """
    r = table.state.round
    assert r is not None
    number = r.number
    done: list[tuple[tuple[tuple[int, str], ...], int]] = []
    while table.state.phase is Phase.PLAYING and table.state.round is not None:
        if table.state.round.number != number:  # pragma: no cover - the phase changes first
            break
        seat = table.state.turn()
        assert seat is not None
        choice: Card = legal_cards(table.state, seat)[0]
        before = table.state.round.trick
        table.play(seat, choice.id)
        after = table.state.round
        if after is not None and after.last_trick is not None and not after.trick:
            played = (*((s, c.id) for s, c in before), (seat, choice.id))
            done.append((played, after.last_trick.winner))
    return done
