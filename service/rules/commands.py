"""Commands: what an actor asks the game to do. ``decide`` turns them into events."""

from __future__ import annotations

from dataclasses import dataclass

from service.rules.cards import Card
from service.rules.config import (
    BotLevel,
    FairShuffle,
    OnTimeout,
    Scoring,
    TurnClock,
    Variant,
    Visibility,
)
from service.rules.events import PresetDeal


@dataclass(frozen=True, slots=True)
class CreateGame:
    players: int
    scoring: Scoring
    variant: Variant = Variant.STANDARD
    seed: int | None = None
    deals: tuple[PresetDeal, ...] | None = None
    clock: TurnClock | None = None
    fairness: FairShuffle | None = None  # provably fair: the commitment, the sealed seed
    visibility: Visibility = Visibility.PRIVATE
    # By seat: the player each seat is reserved for (invitations), or None everywhere.
    reserved: tuple[str | None, ...] | None = None
    rated: bool = False  # ratings change with the result: players only, no seed or deals


@dataclass(frozen=True, slots=True)
class JoinSeat:
    seat: int
    name: str
    bot: BotLevel | None = None  # a bot takes the seat
    client_seed: str | None = None  # a provably fair game's seat's (required there)
    player: str | None = None  # who joins, when a player (a reserved seat is theirs only)


@dataclass(frozen=True, slots=True)
class DeclineSeat:
    """The player a seat is reserved for declines it: the seat is free for anyone."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class Expire:
    """End a game still waiting for players (the service's housekeeping)."""


@dataclass(frozen=True, slots=True)
class Rematch:
    """Name the game that plays a finished game again (once: the rematch is one game)."""

    game_id: str


@dataclass(frozen=True, slots=True)
class RevealSeed:
    """Reveal a finished fair game's server seed (hex): it must hash to the commitment."""

    server_seed: str


@dataclass(frozen=True, slots=True)
class Leave:
    """The seat's player leaves; ``bot`` plays the seat from now on."""

    seat: int
    bot: BotLevel = BotLevel.BASIC


@dataclass(frozen=True, slots=True)
class EraseSeat:
    """Record that the seat's player was erased (a person no longer plays it: the seat
    is a bot's, or the game is over or still waiting, where the seat is freed)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Resign:
    seat: int


@dataclass(frozen=True, slots=True)
class TimeOut:
    """These seats, all due to act, let their turn clock run out."""

    seats: tuple[int, ...]
    outcome: OnTimeout


@dataclass(frozen=True, slots=True)
class DealRound:
    """Start the next round with this deal (the caller shuffles; the engine never does)."""

    hands: tuple[tuple[Card, ...], ...]
    trump: Card | None


@dataclass(frozen=True, slots=True)
class PassCards:
    seat: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class PlayCard:
    seat: int
    card: Card


Command = (
    CreateGame
    | JoinSeat
    | DealRound
    | PassCards
    | PlayCard
    | Leave
    | EraseSeat
    | Resign
    | TimeOut
    | RevealSeed
    | DeclineSeat
    | Rematch
    | Expire
)
