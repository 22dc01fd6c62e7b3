"""Cards, suits and decks (docs/rules.md R-1, R-7.1)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


class Suit(StrEnum):
    """The seven suits, weakest first (R-1.1)."""

    GREEN = "green"
    PURPLE = "purple"
    PINK = "pink"
    YELLOW = "yellow"
    BLACK = "black"
    RED = "red"
    BLUE = "blue"


SUITS: tuple[Suit, ...] = tuple(Suit)

BOSS_RANK = 7

# stars count in four-player games, points (stars plus the
# three-player icons) in three-player games.
STARS: MappingProxyType[Suit, int] = MappingProxyType(
    {
        Suit.GREEN: 0,
        Suit.PURPLE: 0,
        Suit.PINK: 1,
        Suit.YELLOW: 1,
        Suit.BLACK: 1,
        Suit.RED: 2,
        Suit.BLUE: 2,
    }
)
POINTS_3P: MappingProxyType[Suit, int] = MappingProxyType(
    {
        Suit.GREEN: 0,
        Suit.PURPLE: 1,
        Suit.PINK: 1,
        Suit.YELLOW: 2,
        Suit.BLACK: 2,
        Suit.RED: 3,
        Suit.BLUE: 3,
    }
)


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card. Cards are interned: every card exists once, so identity is equality.

    Obtain cards with :func:`card` or from the deck tuples, never by calling ``Card``.
    """

    id: str
    suit: Suit
    rank: int
    order: int  # position in the canonical sort order of hands
    is_boss: bool

    def __repr__(self) -> str:
        return self.id


class UnknownCardError(ValueError):
    """A card id that names no card of the deck in use."""

    def __init__(self, card_id: str) -> None:
        super().__init__(f"unknown card id {card_id!r}")
        self.card_id = card_id


def _build() -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    standard: list[Card] = []
    second_sevens: list[Card] = []
    order = 0
    for low, suit in enumerate(SUITS, start=1):
        for rank in range(low, low + 7):
            standard.append(Card(f"{suit}-{rank}", suit, rank, order, rank == BOSS_RANK))
            order += 1
            if rank == BOSS_RANK:
                # the second 7 sorts right after the first.
                second_sevens.append(Card(f"{suit}-7b", suit, BOSS_RANK, order, True))
                order += 1
    return tuple(standard), tuple(second_sevens)


_STANDARD, _SECOND_SEVENS = _build()

STANDARD_DECK: tuple[Card, ...] = _STANDARD
"""The 49 cards of the base game (R-1.1)."""

SEVEN_FOLLOWERS_DECK: tuple[Card, ...] = tuple(
    sorted(_STANDARD + _SECOND_SEVENS, key=lambda c: c.order)
)
"""The 56 cards of the Seven Followers variant (R-7.1)."""

_BY_ID: dict[str, Card] = {c.id: c for c in SEVEN_FOLLOWERS_DECK}

SUPER_TRUMP: Card = _BY_ID["green-1"]  # the "A"
BLUE_13: Card = _BY_ID["blue-13"]


def card(card_id: str) -> Card:
    """The card with this id (R-1.4, R-7.1), or :class:`UnknownCardError`."""
    try:
        return _BY_ID[card_id]
    except (KeyError, TypeError):
        raise UnknownCardError(str(card_id)) from None


def sort_cards(cards: tuple[Card, ...] | list[Card]) -> tuple[Card, ...]:
    """Cards in the canonical order: by suit, then rank (the second 7 after the first)."""
    return tuple(sorted(cards, key=_order))


def _order(c: Card) -> int:
    return c.order
