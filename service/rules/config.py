"""The options a game is created with, and what follows from them (R-2, R-3, R-5, R-6, R-7)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from service.rules.cards import POINTS_3P, SEVEN_FOLLOWERS_DECK, STANDARD_DECK, STARS, Card, Suit


class Scoring(StrEnum):
    BASIC = "basic"
    ADVANCED = "advanced"


class Variant(StrEnum):
    STANDARD = "standard"
    SEVEN_FOLLOWERS = "seven_followers"
    SEVEN_FOLLOWERS_SHORT = "seven_followers_short"


class Visibility(StrEnum):
    """Who finds the game: whoever has its link, or (public) anyone, in the lobby."""

    PRIVATE = "private"
    PUBLIC = "public"


PLAYER_COUNTS = (3, 4)


class OnTimeout(StrEnum):
    """What happens to a seat that lets its turn clock run out."""

    AUTOPLAY = "autoplay"  # the seat's move is made for it, as the basic bot would
    FORFEIT = "forfeit"  # the seat's side loses the game


class BotLevel(StrEnum):
    """How a bot seat plays (the bots themselves live in service.bots)."""

    RANDOM = "random"
    BASIC = "basic"
    STRONG = "strong"  # searches sampled worlds (service/bots/search.py)
    EXPERT = "expert"  # the same, with three times the worlds and the time


MAX_TURN_SECONDS = 14 * 24 * 3600  # two weeks

CLIENT_SEED_MAX = 64
"""A client seed is 1 to this many printable ASCII characters (docs/fairness.md)."""


def client_seed_problem(seed: str) -> str | None:
    """Why ``seed`` is not a client seed, or None when it is one."""
    if not 1 <= len(seed) <= CLIENT_SEED_MAX:
        return f"a client seed has 1 to {CLIENT_SEED_MAX} characters"
    if any(not " " <= ch <= "~" for ch in seed):
        return "a client seed is printable ASCII (space to ~)"
    return None


@dataclass(frozen=True, slots=True)
class FairShuffle:
    """A provably fair game's commitment (docs/fairness.md): the SHA-256 of its secret
    server seed, in hex, and the seed as the service sealed it (opaque to the rules;
    None in what a viewer who is not an operator sees)."""

    commitment: str
    sealed: str | None = None


@dataclass(frozen=True, slots=True)
class TurnClock:
    """How long each seat has to act, and what happens when it does not."""

    turn_seconds: int
    on_timeout: OnTimeout


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Players, scoring, variant and turn clock, with the numbers that follow from them."""

    players: int
    scoring: Scoring
    variant: Variant
    clock: TurnClock | None = None
    visibility: Visibility = Visibility.PRIVATE
    rated: bool = False
    # Derived once, here, so the hot paths of the engine and of the search bots'
    # playouts read plain attributes.
    sides: int = field(init=False)
    deck: tuple[Card, ...] = field(init=False)
    hand_size: int = field(init=False)
    tricks_per_round: int = field(init=False)
    seven_followers: bool = field(init=False)
    bosses_to_win: int = field(init=False)
    """R-5.1: the captured bosses that win a side the round."""
    tricks_to_lose: int = field(init=False)
    """R-5.2: the tricks that lose a side the round."""
    boss_points: Mapping[Suit, int] = field(init=False, compare=False)  # (a dict: unhashable)
    """R-6.3: what each suit's boss scores, stars (four players) or points (three)."""
    seven_tricks_points: int | None = field(init=False)
    """R-6.4: what each winner of a round ended by R-5.2 scores with three players, the
    bosses not counted; None with four, whose winner counts them."""
    target_score: int = field(init=False)
    """R-6.2 / R-6.3 / R-7.7 / R-7.8: what a side needs to end the game."""
    exclusive_seals: bool = field(init=False)
    """R-7.8: a suit one team has sealed is closed to the other (the short variant)."""

    def __post_init__(self) -> None:
        sf = self.variant is not Variant.STANDARD
        four = self.players == 4
        basic = self.scoring is Scoring.BASIC
        object.__setattr__(self, "seven_followers", sf)
        object.__setattr__(self, "sides", 2 if four else 3)
        object.__setattr__(self, "deck", SEVEN_FOLLOWERS_DECK if sf else STANDARD_DECK)
        # 12 cards each with four players, 16 with three: 14.
        hand = 14 if sf else (12 if four else 16)
        object.__setattr__(self, "hand_size", hand)
        object.__setattr__(self, "tricks_per_round", hand)
        object.__setattr__(self, "bosses_to_win", 4 if four else 3)
        object.__setattr__(self, "tricks_to_lose", 7)
        object.__setattr__(self, "boss_points", STARS if four else POINTS_3P)
        object.__setattr__(self, "seven_tricks_points", None if four else (1 if basic else 3))
        if self.variant is Variant.SEVEN_FOLLOWERS:
            target = 7
        elif self.variant is Variant.SEVEN_FOLLOWERS_SHORT:
            target = 4
        else:
            target = 2 if basic else 7
        object.__setattr__(self, "target_score", target)
        object.__setattr__(self, "exclusive_seals", self.variant is Variant.SEVEN_FOLLOWERS_SHORT)

    def side_of(self, seat: int) -> int:
        """R-2.2 / R-2.3: the team (four players) or the seat itself (three players)."""
        return seat % 2 if self.players == 4 else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        if self.players == 4:
            return (side, side + 2)
        return (side,)

    def pass_targets(self, seat: int) -> tuple[int, ...]:
        """Where each of a seat's three passed cards goes, in the order they are given.

        R-3.2: the partner (four players) or the left neighbour (three players);
        R-7.2: one card to each other player, in seat order after the giver.
        """
        n = self.players
        if self.seven_followers:
            return ((seat + 1) % n, (seat + 2) % n, (seat + 3) % n)
        target = (seat + 2) % n if n == 4 else (seat + 1) % n
        return (target, target, target)
