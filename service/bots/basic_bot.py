"""The ``basic`` bot: a deterministic heuristic player that decides from its seat's view.

What wins a round (docs/rules.md) is capturing Boss Yokai, the 7s: four for a team, three for
a player (R-5.1), while a side that takes seven tricks loses the round (R-5.2); in Seven
Followers a team seals a suit by capturing both its 7s in one round (R-7.6) and wins
when all seven suits are sealed (R-7.7). So a trick is worth the bosses in it to the
side that takes it, minus the risk its trick count brings.

How it plays a card: it scores every legal card and plays the best one. A card's score
is the chance that its side ends up holding the trick times what the trick is worth to
it, plus the chance that an opponent takes it times what it is worth to them (counted
against the bot), minus a little for spending a strong card:

- *the chance to hold the trick*: each opponent still to play could beat the card if it
  holds a higher card of the led suit (or the A), or is void in that suit and holds a
  trump. The bot knows which cards it has not seen (the deck minus its hand, the trump
  card, the trick, the last trick and every captured boss, which are public: R-4.4) and
  estimates who holds them from the hand sizes; cards it passed are in a known hand; a
  seat that did not follow suit in the current or last trick is void in it. Opponents
  are assumed to beat the card whenever they can;
- *what a trick is worth*: winning the round when the bosses reach the threshold
  (R-5.1) or on the last trick (R-5.3), losing it on a seventh trick (R-5.2), else the
  bosses (growing as the side nears the threshold) minus a cost for the trick that
  grows with the tricks already taken. With three players and basic scoring the round
  results are weighed by what they do to the game (R-6.2, R-6.4, R-6.5: when another
  player takes seven tricks, this player and the third score). Bosses that the seats
  still to play may have to drop into the trick (they must follow suit) count too;
- *in Seven Followers* tricks cost nothing; a boss is worth more when its twin is
  already in the team's captured cards (a seal) and little once the suit is sealed.

This gives the expected behaviour: it follows with its lowest card when it cannot win
a trick; takes a trick holding bosses with its cheapest sure winner; keeps its own
bosses out of tricks it would lose and plays them when they capture themselves; does not
overtake its partner's winning card, and drops a boss on it when the partner surely
holds the trick; ducks when its side has six tricks unless the trick brings the round's
deciding boss; leads whatever loses the lead most cheaply unless a lead wins bosses.

The round's first lead in Seven Followers sets the trump suit (R-7.4): the bot leads its
strongest suit. Its pass (R-3.2, R-7.2) is service/bots/basic_pass.py's.

Deterministic: the same view gives the same move (``rng`` is not used), and it reads
nothing but the view, so it can sit at a real table with a human's information.
bench/bot_bench.py measures it against random players. What the rules decide (R-5's
thresholds, the game's end and R-6.5's tie-break, the short variant's closed suits) it
reads from the rules' GameConfig and service/rules/scoring.py.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Sequence

from service.bots.basic_pass import basic_pass
from service.bots.moves import Move, PassMove, PlayMove
from service.rules import (
    Action,
    Card,
    GameConfig,
    Scoring,
    SeatView,
    Suit,
    Variant,
    card,
    trick_winner,
)
from service.rules.cards import SUPER_TRUMP
from service.rules.scoring import game_winner

# The weights below were tuned with bench/bot_bench.py against random players, and
# checked against a simpler "take boss tricks, duck the rest" bot so as not to overfit
# random opponents. Values are on the scale of a round: +1 won, -1 lost.

# A side's captured bosses are worth (bosses / threshold) ** BOSS_CURVE of a round win:
# each boss is worth more the nearer it brings the side to the threshold.
BOSS_CURVE = 1.5
# Taking a trick costs TRICK_WEIGHT * ((t + 1)**2 - t**2) / 36 with t tricks taken: the
# nearer to seven, the dearer.
TRICK_WEIGHT = 1.0
# How much a card's power to win later tricks weighs: small, it breaks near-ties, so the
# bot spends its lowest loser and its cheapest winner.
POWER_WEIGHT = 0.05
# The chance that a seat still to play, holding the led suit's boss, drops it into the
# trick (it must follow suit, and may have nothing else).
DROP = 0.6
# Three players, basic scoring: a player one point from the game counts this many times
# as much as one with no points when weighing a round's result for the game.
NEAR_WIN_WEIGHT = 3.0
# Seven Followers: the worth of a captured boss that seals its suit (its twin is already
# in the team's captured cards), of one that does not yet, and of one whose suit the
# team has sealed (it only denies the other team).
SF_SEAL = 0.6
SF_BOSS = 0.25
SF_SEALED = 0.05
SF_DROPPED = 0.2  # the worth of a boss other seats are expected to drop into the trick


def basic_move(view: SeatView, rng: random.Random) -> Move | None:
    """The basic bot's move for ``view``'s seat; None when the seat has nothing to do.

    ``rng`` is not used (it is in the signature of every bot): the move is a function of
    the view alone."""
    del rng
    if not view.legal:
        return None
    if view.action == Action.PASS:
        return PassMove(basic_pass(view))
    if view.action == Action.PLAY:
        return PlayMove(_Table(view).play().id)
    return None


LOWEST_RANK = {suit: i + 1 for i, suit in enumerate(Suit)}
"""The lowest rank of each suit (R-1.1: green starts at 1, each next suit one higher)."""


def power(c: Card, trump: Suit | None) -> float:
    """How well ``c`` wins tricks later: the A, then trumps, then by rank. (Also the
    search bots' playout policy's, service/bots/policy.py.)"""
    if c is SUPER_TRUMP:
        return 1.0
    rel = (c.rank - LOWEST_RANK[c.suit]) / 6
    return 0.6 + 0.4 * rel if c.suit is trump else 0.5 * rel


def sf_first_lead(hand: Collection[Card], legal: Collection[Card]) -> Card:
    """Seven Followers: the round's first card sets the trump suit (R-7.4), so lead the
    suit ``hand`` is strongest in (length and height), with its lowest card of ``legal``
    that is not a boss. (Also the playout policy's.)"""

    def strength(suit: Suit) -> float:
        cards = [c for c in hand if c.suit is suit]
        return len(cards) + sum((c.rank - LOWEST_RANK[suit]) / 6 for c in cards)

    suit = max({c.suit for c in legal}, key=lambda s: (strength(s), s.value))
    return min((c for c in legal if c.suit is suit), key=lambda c: (c.is_boss, c.rank, c.id))


class _Table:
    """What the seat knows, worked out once from its view, and how it weighs moves."""

    def __init__(self, view: SeatView) -> None:
        r = view.round
        assert r is not None, "a seat that must act is in a round"
        self.view = view
        self.n = view.players
        self.me = view.seat
        self.cfg = GameConfig(view.players, Scoring(view.scoring), Variant(view.variant))
        self.sf = self.cfg.seven_followers
        self.hand = [card(i) for i in view.hand]
        self.legal = [card(i) for i in view.legal]
        self.trump = Suit(r.trump_suit) if r.trump_suit is not None else None
        self.trick = [(p.seat, card(p.card)) for p in r.trick]
        # This seat has not played in the current trick: one card per trick left.
        self.last_trick_now = len(self.hand) == 1
        self.void: dict[int, set[Suit]] = {s: set() for s in range(self.n)}
        known: set[Card] = set(self.hand)
        known.update(c for _, c in self.trick)
        self._note_voids(self.trick)
        if r.trump is not None:
            known.add(card(r.trump))  # out of play
        if r.last_trick is not None:
            last = [(p.seat, card(p.card)) for p in r.last_trick.cards]
            known.update(c for _, c in last)
            self._note_voids(last)
        for seat in view.seats:
            known.update(card(i) for i in seat.bosses)
        # Cards that may be in another hand, or in a trick the view no longer shows.
        self.unseen = [c for c in self.cfg.deck if c not in known]
        # Cards this seat passed went to a known hand.
        self.holder: dict[Card, int] = {}
        p = view.pass_
        if p is not None and p.received and p.received[0] is not None:
            for cid, to in zip(p.given, p.to, strict=True):
                if card(cid) not in known:
                    self.holder[card(cid)] = to
        self.sizes = [s.hand_size for s in view.seats]
        others = sum(self.sizes) - self.sizes[self.me]
        self.others = max(others, 1)
        # Every unseen boss is in a hand (a played boss is captured, and public); the
        # other unseen cards are in hands only in the proportion the hand sizes leave.
        unseen_bosses = sum(1 for c in self.unseen if c.is_boss)
        pool = max(1, len(self.unseen) - unseen_bosses)
        self.live = min(1.0, max(0, others - unseen_bosses) / pool)
        self._void_cache: dict[tuple[int, Suit], float] = {}

    def _note_voids(self, trick: Sequence[tuple[int, Card]]) -> None:
        """A seat that did not follow the led suit has none of it (R-4.1)."""
        if trick:
            led = trick[0][1].suit
            for seat, c in trick[1:]:
                if c.suit is not led:
                    self.void[seat].add(led)

    # --- sides ------------------------------------------------------------------------

    def side(self, seat: int) -> int:
        """R-2.2 / R-2.3: the team with four players, the seat itself with three."""
        return seat % 2 if self.n == 4 else seat

    def friend(self, seat: int) -> bool:
        return self.side(seat) == self.side(self.me)

    def side_tricks(self, seat: int) -> int:
        side = self.side(seat)
        return sum(s.tricks_won for s in self.view.seats if self.side(s.seat) == side)

    def side_bosses(self, seat: int) -> list[Card]:
        side = self.side(seat)
        return [card(i) for s in self.view.seats if self.side(s.seat) == side for i in s.bosses]

    # --- chances ----------------------------------------------------------------------

    def holds(self, seat: int, c: Card) -> float:
        """The chance that ``seat`` (another seat) holds the unseen card ``c`` now."""
        if c.suit in self.void[seat]:
            return 0.0
        known = self.holder.get(c)
        if known is not None:
            return self.live if known == seat else 0.0
        share = self.sizes[seat] / self.others
        return share if c.is_boss else share * self.live

    def void_chance(self, seat: int, suit: Suit) -> float:
        """The chance that ``seat`` holds no card of ``suit``."""
        key = (seat, suit)
        if key not in self._void_cache:
            p = 1.0
            if suit not in self.void[seat]:
                for c in self.unseen:
                    if c.suit is suit:
                        p *= 1.0 - self.holds(seat, c)
            self._void_cache[key] = p
        return self._void_cache[key]

    def beat_chance(self, seat: int, best: Card, led: Suit, trump: Suit | None) -> float:
        """The chance that ``seat`` can play a card beating ``best`` (R-4.3): a higher
        card of the led suit (or the A when green is led), or, when void in the led
        suit, a card beating it from another suit."""
        if best is SUPER_TRUMP:
            return 0.0
        no_follower = 1.0  # no beating card of the led suit
        no_other = 1.0  # no beating card of another suit (playable only when void)
        for c in self.unseen:
            if c is SUPER_TRUMP:
                beats = True
            elif best.suit is trump:
                beats = c.suit is trump and c.rank > best.rank
            else:
                beats = (c.suit is best.suit and c.rank > best.rank) or c.suit is trump
            if beats:
                if c.suit is led:
                    no_follower *= 1.0 - self.holds(seat, c)
                else:
                    no_other *= 1.0 - self.holds(seat, c)
        void = self.void_chance(seat, led)
        return 1.0 - no_follower * (1.0 - void * (1.0 - no_other))

    # --- values -----------------------------------------------------------------------

    def threshold(self) -> int:
        """R-5.1: the captured bosses that win the round."""
        return self.cfg.bosses_to_win

    def boss_value(self, have: int, more: float) -> float:
        """What ``more`` bosses are worth to a side that has captured ``have``."""
        t = self.threshold()
        return math.pow((have + more) / t, BOSS_CURVE) - math.pow(have / t, BOSS_CURVE)

    def trick_cost(self, taken: int) -> float:
        """What one more trick costs a side that has taken ``taken`` (R-5.2): the step
        from ``(taken / 6) ** 2`` to ``((taken + 1) / 6) ** 2``."""
        return TRICK_WEIGHT * (2 * taken + 1) / 36

    def value_if_won(self, seat: int, bosses: Sequence[Card], extra: float) -> float:
        """What ``seat`` taking the trick with ``bosses`` in it (and ``extra`` more
        expected) is worth to this seat."""
        sign = 1.0 if self.friend(seat) else -1.0
        if self.sf:
            return sign * self.sf_value(seat, bosses, extra)
        have = len(self.side_bosses(seat))
        if have + len(bosses) >= self.threshold():
            return self.round_won_by(seat)  # checked first
        taken = self.side_tricks(seat)
        if taken + 1 >= self.cfg.tricks_to_lose:
            return self.seven_taken_by(seat)  # the others win
        if self.last_trick_now:
            return self.round_won_by(seat)
        return sign * (self.boss_value(have, len(bosses) + extra) - self.trick_cost(taken))

    def weigh_game(self) -> bool:
        """Whether round results are weighed by the game: three players, basic scoring
        (a round there can give two players a point, R-6.4)."""
        return self.n == 3 and self.cfg.scoring is Scoring.BASIC

    def round_won_by(self, seat: int) -> float:
        """What ``seat``'s side winning the round is worth to this seat."""
        if not self.weigh_game():
            return 1.0 if self.friend(seat) else -1.0
        scores = list(self.view.scores)
        scores[seat] += 1
        return self.game_value(scores, None) - self.game_value(list(self.view.scores), None)

    def seven_taken_by(self, seat: int) -> float:
        """What ``seat``'s side taking its seventh trick is worth to this seat: every
        other side wins the round (R-5.2, R-6.4)."""
        if not self.weigh_game():
            return -1.0 if self.friend(seat) else 1.0
        scores = [x + (s != seat) for s, x in enumerate(self.view.scores)]
        return self.game_value(scores, seat) - self.game_value(list(self.view.scores), None)

    def game_value(self, scores: list[int], seven: int | None) -> float:
        """Three players, basic scoring: how good ``scores`` are for this seat, from -1
        (another player has won the game) to 1 (this one has). ``seven`` is the player
        who took seven tricks in the round that made them, for R-6.5's tie-break."""
        # Two sides tie at the target only when both score in one round,
        # which only does, and ``seven`` is given then (game_winner asserts it).
        winner = game_winner(self.cfg, scores, seven)
        if winner is not None:
            return 1.0 if winner == self.me else -1.0
        weights = [NEAR_WIN_WEIGHT if x == 1 else 1.0 for x in scores]
        return 2 * weights[self.me] / sum(weights) - 1

    def sf_value(self, seat: int, bosses: Sequence[Card], extra: float) -> float:
        """Seven Followers: what capturing ``bosses`` is worth to ``seat``'s team (R-7.6,
        R-7.7; in the short variant R-7.8 a suit sealed by either team is closed)."""
        team = self.side(seat)
        seals = self.view.seals or ((), ())
        closed = set(seals[team]) | (set(seals[1 - team]) if self.cfg.exclusive_seals else set())
        target = self.cfg.target_score
        sealed = len(seals[team])
        have = self.side_bosses(seat)
        v = 0.0
        for b in bosses:
            if b.suit.value in closed:
                v += SF_SEALED
            elif any(c.suit is b.suit for c in have):
                sealed += 1
                if sealed >= target:
                    return 1.0  # the game is won
                v += SF_SEAL
                closed.add(b.suit.value)
            else:
                v += SF_BOSS
            have.append(b)
        return v + SF_DROPPED * extra

    # --- playing ----------------------------------------------------------------------

    def play(self) -> Card:
        if self.sf and self.trump is None and not self.trick:
            return sf_first_lead(self.hand, self.legal)
        best, best_value = self.legal[0], float("-inf")
        for c in self.legal:  # in hand order: the first of equal scores
            v = self.evaluate(c)
            if v > best_value + 1e-9:
                best, best_value = c, v
        return best

    def evaluate(self, c: Card) -> float:
        """The expected worth of playing ``c`` now (see the module docstring)."""
        trick = [*self.trick, (self.me, c)]
        led = trick[0][1].suit
        trump = self.trump if self.trump is not None else led
        winner = trick_winner(trick, trump)
        best = next(x for s, x in trick if s == winner)
        to_play = [(self.me + i) % self.n for i in range(1, self.n - len(self.trick))]
        bosses = [x for _, x in trick if x.is_boss]
        extra = self.expected_drops(to_play, led)
        if self.friend(winner):
            # It holds unless an opponent still to play beats it (a partner still to
            # play only helps).
            p_friend = 1.0
            for s in to_play:
                if not self.friend(s):
                    p_friend *= 1.0 - self.beat_chance(s, best, led, trump)
            foe = next((s for s in to_play if not self.friend(s)), winner)
        else:
            p_friend, foe = 0.0, winner
        v = p_friend * self.value_if_won(self.me, bosses, extra)
        if p_friend < 1.0:
            v += (1.0 - p_friend) * self.value_if_won(foe, bosses, extra)
        return v - POWER_WEIGHT * power(c, trump)

    def expected_drops(self, to_play: Sequence[int], led: Suit) -> float:
        """How many bosses of the led suit the seats still to play are expected to add
        to the trick."""
        e = 0.0
        for s in to_play:
            for c in self.unseen:
                if c.is_boss and c.suit is led:
                    e += DROP * self.holds(s, c)
        return e
