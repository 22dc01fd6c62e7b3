"""Building game states for rule tests from chosen deals, through the public engine API."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from service.rules import (
    INITIAL,
    Card,
    Command,
    CreateGame,
    DealRound,
    Event,
    GameState,
    JoinSeat,
    PassCards,
    PlayCard,
    Scoring,
    Variant,
    card,
    decide,
    fold,
)


def cards(ids: str) -> tuple[Card, ...]:
    """``"green-1 blue-13"`` -> the cards with those ids, in that order."""
    return tuple(card(i) for i in ids.split())


@dataclass
class Table:
    """A game under test: the current state (no game yet, unless given) and every event
    so far."""

    state: GameState = INITIAL
    events: list[Event] = field(default_factory=list)

    def do(self, command: Command) -> tuple[Event, ...]:
        """Decide and apply ``command``; returns the events it caused."""
        new = decide(self.state, command)
        self.state = fold(new, self.state)
        self.events.extend(new)
        return new

    def hand(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds now (a round must be under way)."""
        assert self.state.round is not None
        return self.state.round.hands[seat]

    def play(self, seat: int, card_id: str) -> tuple[Event, ...]:
        return self.do(PlayCard(seat, card(card_id)))

    def pass_cards(self, seat: int, ids: str) -> tuple[Event, ...]:
        return self.do(PassCards(seat, cards(ids)))

    def deal(self, hands: Sequence[Iterable[str] | str], trump: str | None) -> tuple[Event, ...]:
        return self.do(DealRound(_hands(hands), card(trump) if trump else None))


def _hands(hands: Sequence[Iterable[str] | str]) -> tuple[tuple[Card, ...], ...]:
    return tuple(cards(h) if isinstance(h, str) else tuple(card(i) for i in h) for h in hands)


def new_table(
    players: int = 4,
    scoring: Scoring = Scoring.BASIC,
    variant: Variant = Variant.STANDARD,
) -> Table:
    """A created game with every seat joined: the first deal is due."""
    table = Table()
    table.do(CreateGame(players, scoring, variant))
    for seat in range(players):
        table.do(JoinSeat(seat, f"player {seat}"))
    return table


def dealt_table(
    hands: Sequence[Iterable[str] | str],
    trump: str | None,
    scoring: Scoring = Scoring.BASIC,
    variant: Variant = Variant.STANDARD,
) -> Table:
    """A game whose first round was dealt these hands (seat order) and trump card."""
    table = new_table(len(hands), scoring, variant)
    table.deal(hands, trump)
    return table
