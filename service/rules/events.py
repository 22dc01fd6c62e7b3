"""Events: past-tense facts about one game, stored as JSON and replayed with ``evolve``.

Every event is a frozen dataclass of plain values, declared once: its stored data
(``to_data``/``from_data``), and the schema of its ``data`` in the OpenAPI document, are
derived from its fields (:mod:`service.rules.fieldcodec` says how). Hidden fields (hands,
passes, the dealing plan) are ``None`` in the copies made for viewers that may not see
them (see :mod:`service.rules.observe`). A change to the shape of stored data bumps
:data:`SCHEMA_VERSION`, with an upcaster from the old version
(:mod:`service.application.games.codec`); golden fixtures of every stored version keep
replaying.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar

from service.rules.cards import Card, Suit
from service.rules.config import (
    BotLevel,
    FairShuffle,
    OnTimeout,
    Scoring,
    TurnClock,
    Variant,
    Visibility,
)
from service.rules.fieldcodec import STORED_WHEN_DEFAULT, record, stored_as

JSON = dict[str, Any]


class RoundEndReason(StrEnum):
    BOSSES = "bosses"
    SEVEN_TRICKS = "seven_tricks"
    LAST_TRICK = "last_trick"
    ALL_TRICKS = "all_tricks"
    SEALED = "sealed"  # the game ended mid-round
    FORFEIT = "forfeit"  # a seat let its turn clock run out (clock on_timeout "forfeit")
    RESIGN = "resign"  # a seat resigned


@dataclass(frozen=True, slots=True)
class PresetDeal:
    """One round's deal given by an operator: the hands by seat and the trump card."""

    hands: tuple[tuple[Card, ...], ...]
    trump: Card | None


@dataclass(frozen=True, slots=True)
class PassedCard:
    giver: int = field(metadata=stored_as("from"))
    receiver: int = field(metadata=stored_as("to"))
    card: Card | None  # None in copies for viewers who are neither giver nor receiver


@dataclass(frozen=True, slots=True)
class GameCreated:
    TYPE: ClassVar[str] = "GameCreated"
    players: int
    scoring: Scoring
    variant: Variant
    # The dealing plan (operators only): a seed for the shuffles and preset deals.
    seed: int | None = field(default=None, metadata=STORED_WHEN_DEFAULT)
    deals: tuple[PresetDeal, ...] | None = field(default=None, metadata=STORED_WHEN_DEFAULT)
    clock: TurnClock | None = None  # public: every seat plays by it
    fairness: FairShuffle | None = None  # a provably fair game's commitment
    visibility: Visibility = Visibility.PRIVATE  # public: listed in the lobby
    reserved: tuple[str | None, ...] | None = None  # by seat: the invited player's id
    rated: bool = False  # the result changes ratings; every seat's join names its player


@dataclass(frozen=True, slots=True)
class SeatJoined:
    TYPE: ClassVar[str] = "SeatJoined"
    seat: int
    name: str
    bot: BotLevel | None = None  # a bot took the seat
    client_seed: str | None = None  # a provably fair game's: public, part of every deal
    player: str | None = None  # the player who joined a seat reserved for them


@dataclass(frozen=True, slots=True)
class SeatDeclined:
    """The player a seat was reserved for declined it; the seat is free."""

    TYPE: ClassVar[str] = "SeatDeclined"
    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class SeatLeft:
    """The seat's player left; a bot plays the seat from now on."""

    TYPE: ClassVar[str] = "SeatLeft"
    seat: int
    bot: BotLevel


@dataclass(frozen=True, slots=True)
class SeatErased:
    """The personal data of the seat's player was erased (docs/privacy.md): the seat's
    name reads ERASED_NAME from now on; in a game still waiting for players the seat is
    free again. It records that an erasure happened (who and when are the event's
    actor and time), never what was erased."""

    TYPE: ClassVar[str] = "SeatErased"
    seat: int


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """The seat's turn clock ran out; ``outcome`` says what follows (the seat's move made
    for it, or the forfeit's round and game end)."""

    TYPE: ClassVar[str] = "TurnTimedOut"
    seat: int
    outcome: OnTimeout


@dataclass(frozen=True, slots=True)
class SeatResigned:
    """The seat gave up: the round and the game end, its side losing."""

    TYPE: ClassVar[str] = "SeatResigned"
    seat: int


@dataclass(frozen=True, slots=True)
class RoundDealt:
    TYPE: ClassVar[str] = "RoundDealt"
    number: int
    hands: tuple[tuple[Card, ...] | None, ...]
    trump: Card | None


@dataclass(frozen=True, slots=True)
class CardsPassed:
    TYPE: ClassVar[str] = "CardsPassed"
    seat: int
    cards: tuple[Card, ...] | None


@dataclass(frozen=True, slots=True)
class PassesExchanged:
    TYPE: ClassVar[str] = "PassesExchanged"
    passes: tuple[PassedCard, ...]
    leader: int


@dataclass(frozen=True, slots=True)
class CardPlayed:
    TYPE: ClassVar[str] = "CardPlayed"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickTaken:
    TYPE: ClassVar[str] = "TrickTaken"
    number: int
    winner: int


@dataclass(frozen=True, slots=True)
class SuitSealed:
    TYPE: ClassVar[str] = "SuitSealed"
    team: int
    suit: Suit


@dataclass(frozen=True, slots=True)
class RoundEnded:
    TYPE: ClassVar[str] = "RoundEnded"
    number: int
    reason: RoundEndReason
    winners: tuple[int, ...]
    points: tuple[int, ...]
    bosses_scored: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class GameEnded:
    TYPE: ClassVar[str] = "GameEnded"
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameExpired:
    """The game waited for players too long; it is over without a round played."""

    TYPE: ClassVar[str] = "GameExpired"


@dataclass(frozen=True, slots=True)
class Rematched:
    """A finished game is played again: the new game's id (the service's, as text)."""

    TYPE: ClassVar[str] = "Rematched"
    game_id: str


@dataclass(frozen=True, slots=True)
class SeedRevealed:
    """A provably fair game is over: its server seed (hex), which hashes to the
    commitment, and from which anyone can deal every round again."""

    TYPE: ClassVar[str] = "SeedRevealed"
    server_seed: str


Event = (
    GameCreated
    | SeatJoined
    | RoundDealt
    | CardsPassed
    | PassesExchanged
    | CardPlayed
    | TrickTaken
    | SuitSealed
    | RoundEnded
    | GameEnded
    | SeatLeft
    | SeatErased
    | TurnTimedOut
    | SeatResigned
    | SeatDeclined
    | SeedRevealed
    | Rematched
    | GameExpired
)

SCHEMA_VERSION = 1
"""The shape of every event type's data as written today."""


class EventDataError(ValueError):
    """Stored event data that does not decode into an event."""


EVENT_CLASSES: tuple[type[Event], ...] = typing.get_args(Event)

# Each event type's two functions, made at import (decoding runs on every replay).
_ENCODERS: dict[type, Callable[[Any], JSON]] = {c: record(c).encode for c in EVENT_CLASSES}
_DECODERS: dict[str, Callable[[Mapping[str, Any]], Event]] = {
    c.TYPE: record(c).decode for c in EVENT_CLASSES
}

EVENT_TYPES: frozenset[str] = frozenset(_DECODERS)


def from_data(event_type: str, data: Mapping[str, Any]) -> Event:
    """Decode a stored event of the current schema version (or :class:`EventDataError`)."""
    try:
        decode = _DECODERS[event_type]
    except (KeyError, TypeError):
        raise EventDataError(f"unknown event type {event_type!r}") from None
    if not isinstance(data, Mapping):
        raise EventDataError(f"{event_type} data is not an object")
    try:
        return decode(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise EventDataError(f"malformed {event_type} data: {exc}") from exc


def to_data(event: Event) -> JSON:
    """The JSON object stored for an event (its ``data``; the type is stored beside it)."""
    try:
        encode = _ENCODERS[type(event)]
    except KeyError:
        raise TypeError(f"not an event: {event!r}") from None
    return encode(event)
