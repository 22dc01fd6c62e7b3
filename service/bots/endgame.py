"""A round's last tricks solved exactly, every hand known: minimax with alpha-beta.

In a sampled world the search (service/bots/search.py) plays the round out after each
candidate card with the basic bot's policy, for every seat, its own included. Near the
end of a round that is where its values go wrong: a playout seat misses a refutation,
or the seat's own later cards are played worse than they could be. With few cards left
the rest of the round is small enough to search exhaustively, as GIB valued bridge
cards over sampled deals with a double-dummy solver: :func:`card_values` gives each
candidate its value against the best answers, the side to move maximising the round's
score and every other seat minimising it (with four players, two teams: exact; with
three, *paranoid*: the two others play as one against the seat, so a card's value is
what the seat is sure of).

The search reads no rule of its own: a :class:`Node` is a position of a round that
knows its seat to play, its legal cards, the position after a card and the round's
outcome once it is over; :class:`PlayoutNode` is the search's simulator's
(service/bots/playout.py), tests/support/endgame.py has one played by the rules engine,
the oracle of the hand review's agreement (issue 46).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from service.bots.playout import Outcome, Playout
from service.rules.cards import Card

Value = Callable[[Outcome], float]
"""What a round's outcome is worth to the side the search plays for."""


class Node(Protocol):
    """A position of a round being played, every hand known."""

    def turn(self) -> int:
        """The seat to play."""
        ...

    def legal(self) -> list[Card]:
        """The cards it may play."""
        ...

    def after(self, card: Card) -> tuple[Node, Outcome | None]:
        """The position after ``card``, and the round's outcome if that ended it."""
        ...


def card_values(node: Node, maximising: Callable[[int], bool], value: Value) -> dict[Card, float]:
    """Each legal card of ``node``'s seat to play: ``value`` of the round's outcome when
    that card is played and the round then played out by minimax, the seats for which
    ``maximising`` is true playing for the highest value, the others for the lowest."""
    inf = float("inf")
    return {c: _after(node, c, maximising, value, -inf, inf) for c in node.legal()}


def _after(
    node: Node,
    c: Card,
    maximising: Callable[[int], bool],
    value: Value,
    alpha: float,
    beta: float,
) -> float:
    child, outcome = node.after(c)
    if outcome is not None:
        return value(outcome)
    high = maximising(child.turn())
    best = float("-inf") if high else float("inf")
    for card in child.legal():
        v = _after(child, card, maximising, value, alpha, beta)
        if high:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break  # the seat before would not let the play come here
    return best


class PlayoutNode:
    """A :class:`Node` on the search's simulator: a copy of the playout per card."""

    def __init__(self, sim: Playout) -> None:
        self.sim = sim

    def turn(self) -> int:
        return self.sim.turn

    def legal(self) -> list[Card]:
        return self.sim.legal()

    def after(self, card: Card) -> tuple[PlayoutNode, Outcome | None]:
        sim = self.sim.copy()
        sim.play(card)
        return PlayoutNode(sim), sim.outcome
