"""Independent re-implementations of docs/rules.md, used as oracles by the rule tests.

Everything here is written from docs/rules.md, not from the engine: it reads only the
plain data of cards (id, suit, rank) and the engine's enums for naming, and never
calls the engine's rule functions (``trick_winner``, ``legal_cards``, ``decide`` …).
:class:`Model` plays a whole game from the same commands the engine receives, so a
test can compare every event the engine records with what the rules say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from service.rules import Card, RoundEndReason, Scoring, Suit, Variant

# the 7 of every suit is a boss (R-7.1: both copies in Seven Followers).
BOSS_RANK = 7
# the A ("Super Trump") and the card that replaces it for the lead.
A_ID = "green-1"
BLUE_13_ID = "blue-13"

# stars (four players) and points (three players) of each suit's boss.
STARS_4P: Mapping[str, int] = MappingProxyType(
    {"green": 0, "purple": 0, "pink": 1, "yellow": 1, "black": 1, "red": 2, "blue": 2}
)
POINTS_3P: Mapping[str, int] = MappingProxyType(
    {"green": 0, "purple": 1, "pink": 1, "yellow": 2, "black": 2, "red": 3, "blue": 3}
)
SUIT_NAMES: tuple[str, ...] = ("green", "purple", "pink", "yellow", "black", "red", "blue")

PASS_SIZE = 3


def is_boss(c: Card) -> bool:
    """R-1.2, R-7.1."""
    return c.rank == BOSS_RANK


def side_of(players: int, seat: int) -> int:
    """R-2.2 (partners sit across: team = seat mod 2) / R-2.3 (everyone alone)."""
    return seat % 2 if players == 4 else seat


def side_count(players: int) -> int:
    return 2 if players == 4 else 3


def seats_of_side(players: int, side: int) -> tuple[int, ...]:
    return tuple(s for s in range(players) if side_of(players, s) == side)


def trick_winner(trick: Sequence[tuple[int, Card]], trump_suit: Suit | str | None) -> int:
    """R-4.3: the A if played; else the highest trump; else the highest of the led suit.

    R-7.5: of two equal cards (the two 7s of one suit) the one played first wins.
    """
    if not trick:
        raise ValueError("an empty trick has no winner")
    for seat, c in trick:
        if c.id == A_ID:
            return seat
    led = str(trick[0][1].suit)
    trumps = [(i, seat, c) for i, (seat, c) in enumerate(trick) if str(c.suit) == str(trump_suit)]
    pool = trumps or [(i, seat, c) for i, (seat, c) in enumerate(trick) if str(c.suit) == led]
    # Highest rank; among equal ranks the earliest card (smallest index).
    _, seat, _ = max(pool, key=lambda x: (x[2].rank, -x[0]))
    return seat


def legal_plays(hand: Iterable[Card], trick: Sequence[tuple[int, Card]]) -> frozenset[Card]:
    """R-4.1 / R-4.2: the leader plays anything; others follow the led suit if they can."""
    cards = frozenset(hand)
    if not trick:
        return cards
    led = str(trick[0][1].suit)
    following = frozenset(c for c in cards if str(c.suit) == led)
    return following or cards


def pass_receivers(players: int, seven_followers: bool, seat: int) -> tuple[int, ...]:
    """Who receives each of the three cards a seat passes, in the order it names them.

    R-3.2: all three to the partner (four players) or to the left (three players).
    R-7.2: one card to each other player; the engine's command names them in seat order
    after the giver (the rules do not say how the receiver of each card is chosen).
    """
    if seven_followers:
        return tuple((seat + k) % players for k in (1, 2, 3))
    target = (seat + 2) % players if players == 4 else (seat + 1) % players
    return (target,) * PASS_SIZE


def first_leader(hands: Sequence[Iterable[Card]], trump: Card | None) -> int:
    """R-3.3 (after the exchange, Ruling) and R-7.3: the holder of the A leads; if the A is
    the turned-up trump card, the holder of blue-13 leads."""
    wanted = BLUE_13_ID if trump is not None and trump.id == A_ID else A_ID
    holders = [seat for seat, hand in enumerate(hands) if any(c.id == wanted for c in hand)]
    if len(holders) != 1:
        raise AssertionError(f"{wanted} is held by {holders}")
    return holders[0]


@dataclass(frozen=True, slots=True)
class StandardEnd:
    """Why a standard round ends (R-5) and who wins it."""

    reason: RoundEndReason
    winners: tuple[int, ...]  # sides
    loser: int | None  # the side that took 7 tricks


def standard_round_end(
    players: int,
    tricks_won: Sequence[int],
    bosses_captured: Sequence[int],
    cards_left: int,
    last_trick_winner: int,
) -> StandardEnd | None:
    """R-5, checked in its order after a trick (R-5.4). Counts are by seat."""
    sides = side_count(players)
    bosses = [0] * sides
    tricks = [0] * sides
    for seat in range(players):
        bosses[side_of(players, seat)] += bosses_captured[seat]
        tricks[side_of(players, seat)] += tricks_won[seat]
    threshold = 4 if players == 4 else 3
    holding = [side for side in range(sides) if bosses[side] >= threshold]
    if holding:
        if len(holding) != 1:
            raise AssertionError(f"two sides reached the boss threshold: {bosses}")
        return StandardEnd(RoundEndReason.BOSSES, (holding[0],), None)
    seven = [side for side in range(sides) if tricks[side] >= 7]
    if seven:
        if len(seven) != 1:
            raise AssertionError(f"two sides took seven tricks: {tricks}")
        loser = seven[0]
        return StandardEnd(
            RoundEndReason.SEVEN_TRICKS,
            tuple(side for side in range(sides) if side != loser),
            loser,
        )
    if cards_left == 0:
        return StandardEnd(RoundEndReason.LAST_TRICK, (side_of(players, last_trick_winner),), None)
    return None


def standard_points(
    players: int,
    scoring: Scoring,
    end: StandardEnd,
    bosses_taken: Iterable[Card],
    trump_suit: Suit | str | None,
) -> tuple[int, ...]:
    """R-6.2 - R-6.4: what each side scores for a round; ``bosses_taken`` are those of the
    (first) winner, R-5.2's hand bosses included."""
    points = [0] * side_count(players)
    for side in end.winners:
        if scoring is Scoring.BASIC:
            points[side] = 1
        elif players == 3 and end.reason is RoundEndReason.SEVEN_TRICKS:
            points[side] = 3
        else:
            table = STARS_4P if players == 4 else POINTS_3P
            points[side] = sum(
                table[str(c.suit)] for c in bosses_taken if str(c.suit) != str(trump_suit)
            )
    return tuple(points)


def standard_game_winner(
    players: int, scoring: Scoring, scores: Sequence[int], end: StandardEnd
) -> tuple[int, ...] | None:
    """R-6.2 / R-6.3 / R-6.5: the side that wins the game after a round, or None."""
    target = 2 if scoring is Scoring.BASIC else 7
    best = max(scores)
    if best < target:
        return None
    leaders = [side for side, score in enumerate(scores) if score == best]
    if len(leaders) == 1:
        return (leaders[0],)
    if players != 3 or end.loser is None:
        raise AssertionError(f"a tie the rules do not foresee: {scores} after {end}")
    return ((end.loser + 1) % players,)  # the left of the 7-trick taker


def seven_followers_target(variant: Variant) -> int:
    """R-7.7: all seven suits; R-7.8: four in the short variant."""
    return 4 if variant is Variant.SEVEN_FOLLOWERS_SHORT else 7


def new_seals(
    team: int,
    captured_this_round: Iterable[Card],
    seals: Sequence[frozenset[str]],
    short: bool,
) -> frozenset[str]:
    """R-7.6 / R-7.8: the suits ``team`` seals now, from the cards it captured this round."""
    sevens: dict[str, int] = {}
    for c in captured_this_round:
        if is_boss(c):
            sevens[str(c.suit)] = sevens.get(str(c.suit), 0) + 1
    return frozenset(
        suit
        for suit, count in sevens.items()
        if count == 2 and suit not in seals[team] and not (short and suit in seals[1 - team])
    )


# --- a whole game -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Exchange:
    """R-3.2 / R-7.2: the passes once everyone chose, and who leads (R-3.3, R-3.4, R-7.3)."""

    moves: frozenset[tuple[int, int, Card]]  # (giver, receiver, card)
    leader: int


@dataclass(frozen=True, slots=True)
class RoundEnd:
    reason: RoundEndReason
    winners: tuple[int, ...]
    points: tuple[int, ...]
    bosses: frozenset[Card]


@dataclass(frozen=True, slots=True)
class TrickOutcome:
    number: int
    winner: int
    seals: frozenset[tuple[int, str]]  # (team, suit), Seven Followers
    round_end: RoundEnd | None
    game_winners: tuple[int, ...] | None


class Model:
    """A game played by docs/rules.md alone, fed the same accepted commands as the engine."""

    def __init__(self, players: int, scoring: Scoring, variant: Variant) -> None:
        self.players = players
        self.scoring = scoring
        self.variant = variant
        self.seven_followers = variant is not Variant.STANDARD
        self.deck_size = 56 if self.seven_followers else 49
        self.hand_size = 14 if self.seven_followers else (12 if players == 4 else 16)
        self.phase = "dealing"
        self.round_number = 0
        self.hands: list[set[Card]] = [set() for _ in range(players)]
        self.trump: Card | None = None
        self.trump_suit: str | None = None
        self.given: list[tuple[Card, ...] | None] = [None] * players
        self.received: list[list[Card]] = [[] for _ in range(players)]
        self.leader: int | None = None
        self.trick: list[tuple[int, Card]] = []
        self.tricks_played = 0
        self.tricks_won = [0] * players
        self.captured: list[list[Card]] = [[] for _ in range(players)]
        self.last_trick_winner: int | None = None
        self.scores = [0] * side_count(players)
        self.seals: list[frozenset[str]] = [frozenset(), frozenset()]
        self.round_seals: list[set[str]] = [set(), set()]
        self.rounds_ended = 0
        self.winners: tuple[int, ...] | None = None

    # --- questions -----------------------------------------------------------------

    def turn(self) -> int | None:
        if self.phase != "playing" or self.leader is None:
            return None
        return (self.leader + len(self.trick)) % self.players

    def action(self, seat: int) -> str | None:
        """ "pass", "play" or None: what ``seat`` may do now."""
        if not 0 <= seat < self.players:
            return None
        if self.phase == "passing":
            return "pass" if self.given[seat] is None else None
        return "play" if self.turn() == seat else None

    def legal(self, seat: int) -> frozenset[Card]:
        action = self.action(seat)
        if action == "pass":
            return frozenset(self.hands[seat])
        if action == "play":
            return legal_plays(self.hands[seat], self.trick)
        return frozenset()

    def bosses_captured(self, seat: int) -> list[Card]:
        return [c for c in self.captured[seat] if is_boss(c)]

    # --- commands ------------------------------------------------------------------

    def deal(self, hands: Sequence[Sequence[Card]], trump: Card | None) -> None:
        """R-3.1 / R-7.2."""
        assert self.phase == "dealing", self.phase
        self.round_number += 1
        self.hands = [set(h) for h in hands]
        self.trump = trump
        self.trump_suit = str(trump.suit) if trump is not None else None
        self.given = [None] * self.players
        self.received = [[] for _ in range(self.players)]
        # later standard rounds are led by the last trick's winner.
        if not self.seven_followers and self.round_number > 1:
            self.leader = self.last_trick_winner
        else:
            self.leader = None
        self.trick = []
        self.tricks_played = 0
        self.tricks_won = [0] * self.players
        self.captured = [[] for _ in range(self.players)]
        self.round_seals = [set(), set()]
        self.phase = "passing"

    def pass_cards(self, seat: int, cards: Sequence[Card]) -> Exchange | None:
        """R-3.2 / R-7.2: passes are secret; cards move only when every seat has chosen."""
        assert self.action(seat) == "pass"
        assert len(cards) == PASS_SIZE and len(set(cards)) == PASS_SIZE
        assert all(c in self.hands[seat] for c in cards)
        self.given[seat] = tuple(cards)
        if any(g is None for g in self.given):
            return None
        moves: set[tuple[int, int, Card]] = set()
        for giver, given in enumerate(self.given):
            assert given is not None
            receivers = pass_receivers(self.players, self.seven_followers, giver)
            moves.update((giver, to, c) for to, c in zip(receivers, given, strict=True))
        for giver, _, c in moves:
            self.hands[giver].remove(c)
        for _, receiver, c in moves:
            self.hands[receiver].add(c)
            self.received[receiver].append(c)
        if self.leader is None:  # R-3.3 (first round), R-7.3 (every round)
            self.leader = first_leader(self.hands, self.trump)
        self.phase = "playing"
        return Exchange(frozenset(moves), self.leader)

    def play(self, seat: int, c: Card) -> TrickOutcome | None:
        """R-4: one card; after a full trick, R-5 / R-6 or R-7.6 - R-7.8."""
        assert self.turn() == seat and c in self.legal(seat)
        if self.trump_suit is None:  # the round's first card sets the trump suit
            self.trump_suit = str(c.suit)
        self.hands[seat].remove(c)
        self.trick.append((seat, c))
        if len(self.trick) < self.players:
            return None
        winner = trick_winner(self.trick, self.trump_suit)
        self.tricks_played += 1
        self.tricks_won[winner] += 1
        self.captured[winner].extend(card for _, card in self.trick)
        self.trick = []
        self.leader = winner
        self.last_trick_winner = winner
        if self.seven_followers:
            return self._seven_followers_after_trick(winner)
        return self._standard_after_trick(winner)

    def _standard_after_trick(self, winner: int) -> TrickOutcome:
        n = self.players
        end = standard_round_end(
            n,
            self.tricks_won,
            [len(self.bosses_captured(s)) for s in range(n)],
            sum(len(h) for h in self.hands),
            winner,
        )
        if end is None:
            return TrickOutcome(self.tricks_played, winner, frozenset(), None, None)
        taken: list[Card] = []
        if not (n == 3 and end.reason is RoundEndReason.SEVEN_TRICKS):
            for seat in seats_of_side(n, end.winners[0]):
                taken.extend(self.bosses_captured(seat))
            if end.reason is RoundEndReason.SEVEN_TRICKS:  # bosses in any hand
                taken.extend(c for hand in self.hands for c in hand if is_boss(c))
        points = standard_points(n, self.scoring, end, taken, self.trump_suit)
        self.scores = [a + b for a, b in zip(self.scores, points, strict=True)]
        game = standard_game_winner(n, self.scoring, self.scores, end)
        self._end_round(game)
        result = RoundEnd(end.reason, end.winners, points, frozenset(taken))
        return TrickOutcome(self.tricks_played, winner, frozenset(), result, game)

    def _seven_followers_after_trick(self, winner: int) -> TrickOutcome:
        team = side_of(self.players, winner)
        captured = [c for seat in seats_of_side(self.players, team) for c in self.captured[seat]]
        short = self.variant is Variant.SEVEN_FOLLOWERS_SHORT
        sealed = new_seals(team, captured, self.seals, short)
        self.seals[team] = self.seals[team] | sealed
        self.round_seals[team] |= sealed
        self.scores[team] = len(self.seals[team])  # the score is the number of seals
        seals = frozenset((team, s) for s in sealed)
        reason: RoundEndReason | None = None
        game: tuple[int, ...] | None = None
        if len(self.seals[team]) >= seven_followers_target(self.variant):
            reason = RoundEndReason.SEALED
            game = (team,)
        elif self.tricks_played == self.hand_size:
            reason = RoundEndReason.ALL_TRICKS
        if reason is None:
            return TrickOutcome(self.tricks_played, winner, seals, None, None)
        bosses = frozenset(
            c
            for t in (0, 1)
            for seat in seats_of_side(self.players, t)
            for c in self.captured[seat]
            if is_boss(c) and str(c.suit) in self.round_seals[t]
        )
        result = RoundEnd(
            reason,
            tuple(t for t in (0, 1) if self.round_seals[t]),
            (len(self.round_seals[0]), len(self.round_seals[1])),
            bosses,
        )
        self._end_round(game)
        return TrickOutcome(self.tricks_played, winner, seals, result, game)

    def _end_round(self, game: tuple[int, ...] | None) -> None:
        self.rounds_ended += 1
        self.phase = "finished" if game is not None else "dealing"
        self.winners = game
