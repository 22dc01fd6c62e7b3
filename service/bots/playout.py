"""A round played on from a position, fast: the search bots' simulator (issue 31).

The engine (service/rules) decides and records every move as events and immutable
state, which a search that plays thousands of moves per decision cannot afford. This is
the same round reduced to mutable lists: hands, the trick, tricks and bosses taken, and
the seals. What ends the round and what it scores (R-5, R-6; R-7.6 to R-7.8 in Seven
Followers) it asks of the rules' own :mod:`service.rules.scoring`, and who takes a trick
of their :func:`~service.rules.playing.trick_winner`, as the engine does; what it keeps
itself is the bookkeeping they read, which tests/bots/test_playout.py holds to the
engine's by playing random rounds through both: the same legal cards, trick winners,
tricks and bosses taken, round ends, winners and points. :meth:`Playout.run` plays the
round out with the search bots' playout policy (service/bots/policy.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.bots.policy import model_card
from service.rules.cards import Card, Suit
from service.rules.config import GameConfig
from service.rules.playing import trick_winner
from service.rules.scoring import (
    bosses_scored,
    new_seals,
    round_end,
    round_points,
    seals_result,
    seven_followers_end,
    side_totals,
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the round ended: the winning sides and each side's points (R-6), and, in
    Seven Followers, the suits each team sealed in it (R-7.6)."""

    winners: tuple[int, ...]
    points: tuple[int, ...]
    seals: tuple[int, ...] = ()


class Playout:
    """A round from a position: ``hands`` by seat, the trick under way, who acts."""

    def __init__(
        self,
        config: GameConfig,
        hands: list[list[Card]],
        trick: list[tuple[int, Card]],
        turn: int,
        trump_suit: Suit | None,
        tricks_won: list[int],
        bosses: list[list[Card]],
        tricks_played: int,
        sealed: tuple[tuple[Suit, ...], ...] = ((), ()),
    ) -> None:
        self.cfg = config
        self.n = config.players
        self.hands = hands
        self.trick = trick
        self.turn = turn
        self.trump_suit = trump_suit
        self.tricks_won = tricks_won
        self.bosses = bosses
        self.tricks_played = tricks_played
        self.sealed = sealed  # by team: suits sealed before this round (the game's)
        self.seals = (list(sealed[0]), list(sealed[1]))  # by team: the game's so far
        self.outcome: Outcome | None = None
        # By side, kept as tricks are taken: what R-5 and the playout policy read.
        self.side_tricks = side_totals(config, tricks_won)
        self.side_bosses = side_totals(config, [len(b) for b in bosses])

    def copy(self) -> Playout:
        """The same position, to play on without changing this one (the exhaustive
        search of service/bots/endgame.py tries every card from a position)."""
        other = Playout.__new__(Playout)
        other.cfg, other.n, other.turn = self.cfg, self.n, self.turn
        other.hands = [h[:] for h in self.hands]
        other.trick = self.trick[:]
        other.trump_suit = self.trump_suit
        other.tricks_won = self.tricks_won[:]
        other.bosses = [b[:] for b in self.bosses]
        other.tricks_played = self.tricks_played
        other.sealed = self.sealed
        other.seals = (self.seals[0][:], self.seals[1][:])
        other.outcome = self.outcome
        other.side_tricks = self.side_tricks[:]
        other.side_bosses = self.side_bosses[:]
        return other

    def legal(self) -> list[Card]:
        """R-4.1, R-4.2: the led suit if the seat has it (the A is green), else any."""
        hand = self.hands[self.turn]
        if self.trick:
            led = self.trick[0][1].suit
            follow = [c for c in hand if c.suit is led]
            if follow:
                return follow
        return hand

    def play(self, card: Card) -> None:
        """The seat on turn plays ``card`` (a legal one); the trick and the round end
        when they do."""
        seat = self.turn
        self.hands[seat].remove(card)
        if self.trump_suit is None and self.cfg.seven_followers:
            self.trump_suit = card.suit  # the round's first card
        self.trick.append((seat, card))
        if len(self.trick) < self.n:
            self.turn = (seat + 1) % self.n
            return
        winner = trick_winner(self.trick, self.trump_suit)
        self.tricks_won[winner] += 1
        side = winner % 2 if self.n == 4 else winner
        self.side_tricks[side] += 1
        for _, c in self.trick:
            if c.is_boss:
                self.bosses[winner].append(c)
                self.side_bosses[side] += 1
        self.tricks_played += 1
        self.trick = []
        self.turn = winner
        if self.cfg.seven_followers:
            self.outcome = self._sealing(winner)
        else:
            self.outcome = self._standard_end(winner)

    def run(self) -> Outcome:
        """Play the round out, each seat as :func:`service.bots.policy.model_card` says
        (the basic bot's way of playing, reading the world's hands)."""
        while self.outcome is None:
            self.play(model_card(self, self.legal()))
        return self.outcome

    def _standard_end(self, winner: int) -> Outcome | None:
        """R-5 after a trick ``winner`` took, and R-6's points if the round is over."""
        cfg = self.cfg
        end = round_end(cfg, self.side_bosses, self.side_tricks, self.tricks_played, winner)
        if end is None:
            return None
        scored = bosses_scored(cfg, end, self.bosses, self.hands)
        return Outcome(end.winners, round_points(cfg, end, scored, self.trump_suit))

    def _sealing(self, winner: int) -> Outcome | None:
        """R-7.6 to R-7.8 after a trick: the suits the winner's team seals; the round's
        end after its last trick, or with the game when a team has sealed enough. Its
        outcome: the teams that sealed in it, and how many suits each."""
        cfg = self.cfg
        team = cfg.side_of(winner)
        seals = self.seals[team]
        seals.extend(new_seals(cfg, team, self.bosses, self.seals))
        if seven_followers_end(cfg, len(seals), self.tricks_played) is None:
            return None
        counts = tuple(len(self.seals[t]) - len(self.sealed[t]) for t in (0, 1))
        winners, points = seals_result(counts)
        return Outcome(winners, points, points)
