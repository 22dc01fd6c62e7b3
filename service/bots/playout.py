"""A round played on from a position, fast: the search bots' simulator (issue 31).

The engine (service/rules) decides and records every move as events and immutable
state, which a search that plays thousands of moves per decision cannot afford. This is
the same round reduced to mutable lists: hands, the trick, tricks and bosses taken, and
the round's end as R-5 (R-7.7 for Seven Followers) and its points as R-6 say. It
reuses the engine's own :func:`~service.rules.engine.trick_winner`, and
tests/bots/test_playout.py plays random rounds through both and requires the same
tricks, round ends, winners and points. :meth:`Playout.run` plays the round out with
the search bots' playout policy (service/bots/policy.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from service.bots.policy import model_card
from service.rules.cards import POINTS_3P, STARS, Card, Suit
from service.rules.config import GameConfig, Scoring
from service.rules.engine import trick_winner


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
        self.last_winner: int | None = None
        self.round_seals: tuple[list[Suit], list[Suit]] = ([], [])  # by team, this round
        self.outcome: Outcome | None = None
        # By side, kept as tricks are taken: what R-5 and the playout policy read.
        self.side_tricks = self._sides(tricks_won)
        self.side_bosses = self._sides([len(b) for b in bosses])

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
        self.last_winner = winner
        if self.cfg.seven_followers:
            self.outcome = self._sealing(winner)
        else:
            self.outcome = self._standard_end()

    def run(self) -> Outcome:
        """Play the round out, each seat as :func:`service.bots.policy.model_card` says
        (the basic bot's way of playing, reading the world's hands)."""
        while self.outcome is None:
            self.play(model_card(self, self.legal()))
        return self.outcome

    def _sides(self, per_seat: list[int]) -> list[int]:
        totals = [0] * self.cfg.sides
        for seat, value in enumerate(per_seat):
            totals[self.cfg.side_of(seat)] += value
        return totals

    def _standard_end(self) -> Outcome | None:
        """R-5 in its order (R-5.4), and R-6's points."""
        cfg = self.cfg
        bosses = self.side_bosses
        tricks = self.side_tricks
        loser = None
        if any(b >= (4 if self.n == 4 else 3) for b in bosses):
            winners: tuple[int, ...] = (bosses.index(max(bosses)),)
        elif any(t >= 7 for t in tricks):
            loser = tricks.index(max(tricks))
            winners = tuple(s for s in range(cfg.sides) if s != loser)
        elif self.tricks_played == cfg.tricks_per_round:
            assert self.last_winner is not None
            winners = (cfg.side_of(self.last_winner),)
        else:
            return None
        points = [0] * cfg.sides
        for w in winners:
            if cfg.scoring is Scoring.BASIC:
                points[w] = 1
            elif loser is not None and self.n == 3:
                points[w] = 3
            else:
                taken = [c for seat in cfg.seats_of(w) for c in self.bosses[seat]]
                if loser is not None:  # the bosses in every hand too
                    taken += [c for hand in self.hands for c in hand if c.is_boss]
                value = STARS if self.n == 4 else POINTS_3P
                points[w] = sum(value[c.suit] for c in taken if c.suit is not self.trump_suit)
        return Outcome(winners, tuple(points))

    def _sealing(self, winner: int) -> Outcome | None:
        """R-7.6 to R-7.8 after a trick: the winner's team seals a suit whose two 7s it
        has captured this round (the short variant: not one the other team sealed); the
        round ends after its last trick, or with the game when a team has sealed enough.
        Its outcome: the teams that sealed in it, and how many suits each."""
        cfg = self.cfg
        team = cfg.side_of(winner)
        short = cfg.target_score == 4
        taken = [c.suit for seat in cfg.seats_of(team) for c in self.bosses[seat]]
        mine = self.round_seals[team]
        for suit in set(taken):
            if suit in self.sealed[team] or suit in mine:
                continue
            if short and (suit in self.sealed[1 - team] or suit in self.round_seals[1 - team]):
                continue
            if taken.count(suit) == 2:
                mine.append(suit)
        over = len(self.sealed[team]) + len(mine) >= cfg.target_score
        if not over and self.tricks_played < cfg.tricks_per_round:
            return None
        counts = (len(self.round_seals[0]), len(self.round_seals[1]))
        return Outcome(tuple(t for t in (0, 1) if counts[t]), counts, counts)
