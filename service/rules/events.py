"""Events: past-tense facts about one game, stored as JSON and replayed with ``evolve``.

Every event is a frozen dataclass of plain values. ``to_data``/``from_data`` convert
to and from the JSON object stored for it. Hidden fields (hands, passes, the dealing
plan) are ``None`` in the copies made for viewers that may not see them
(see :mod:`service.rules.observe`).

Past 400 lines because it is a catalogue: every event type of every stored version, one
dataclass each, with the codec that must read all of them (golden fixtures check it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from service.rules.cards import Card, Suit, card
from service.rules.config import (
    BotLevel,
    FairShuffle,
    OnTimeout,
    Scoring,
    TurnClock,
    Variant,
    Visibility,
)

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
    giver: int
    receiver: int
    card: Card | None  # None in copies for viewers who are neither giver nor receiver


@dataclass(frozen=True, slots=True)
class GameCreated:
    TYPE: ClassVar[str] = "GameCreated"
    players: int
    scoring: Scoring
    variant: Variant
    # The dealing plan (operators only): a seed for the shuffles and preset deals.
    seed: int | None = None
    deals: tuple[PresetDeal, ...] | None = None
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


# --- encoding -------------------------------------------------------------------


def _ids(cards: tuple[Card, ...] | None) -> list[str] | None:
    return None if cards is None else [c.id for c in cards]


def to_data(event: Event) -> JSON:
    """The JSON object stored for an event (its ``data``; the type is stored beside it)."""
    match event:
        case CardPlayed(seat, c):
            return {"seat": seat, "card": c.id}
        case TrickTaken(number, winner):
            return {"number": number, "winner": winner}
        case CardsPassed(seat, cards):
            return {"seat": seat, "cards": _ids(cards)}
        case PassesExchanged(passes, leader):
            return {
                "passes": [
                    {"from": p.giver, "to": p.receiver, "card": p.card.id if p.card else None}
                    for p in passes
                ],
                "leader": leader,
            }
        case RoundDealt(number, hands, trump):
            return {
                "number": number,
                "hands": [_ids(h) for h in hands],
                "trump": trump.id if trump else None,
            }
        case SeatJoined(seat, name, bot, client_seed, player):
            # Written only when set, so the data of a human's join is as it always was.
            joined: JSON = {"seat": seat, "name": name} | ({"bot": bot.value} if bot else {})
            if client_seed is not None:
                joined["client_seed"] = client_seed
            if player is not None:
                joined["player"] = player
            return joined
        case SeedRevealed(server_seed):
            return {"server_seed": server_seed}
        case Rematched(game_id):
            return {"game_id": game_id}
        case GameExpired():
            return {}
        case SeatLeft(seat, bot):
            return {"seat": seat, "bot": bot.value}
        case TurnTimedOut(seat, outcome):
            return {"seat": seat, "outcome": outcome.value}
        case SeatResigned(seat):
            return {"seat": seat}
        case SeatErased(seat):
            return {"seat": seat}
        case GameCreated(
            players, scoring, variant, seed, deals, clock, fairness, visibility, reserved, rated
        ):
            created: JSON = {
                "players": players,
                "scoring": scoring.value,
                "variant": variant.value,
                "seed": seed,
                "deals": None
                if deals is None
                else [
                    {"hands": [_ids(h) for h in d.hands], "trump": d.trump.id if d.trump else None}
                    for d in deals
                ],
            }
            if clock is not None:
                created["clock"] = {
                    "turn_seconds": clock.turn_seconds,
                    "on_timeout": clock.on_timeout.value,
                }
            if fairness is not None:
                created["fairness"] = {"commitment": fairness.commitment} | (
                    {"sealed": fairness.sealed} if fairness.sealed is not None else {}
                )
            # Written only when public, so a private game's data is as it always was.
            if visibility is not Visibility.PRIVATE:
                created["visibility"] = visibility.value
            if reserved is not None:
                created["reserved"] = list(reserved)
            if rated:  # written only when rated, as visibility
                created["rated"] = True
            return created
        case SeatDeclined(seat, player):
            return {"seat": seat, "player": player}
        case SuitSealed(team, suit):
            return {"team": team, "suit": suit.value}
        case RoundEnded(number, reason, winners, points, bosses):
            return {
                "number": number,
                "reason": reason.value,
                "winners": list(winners),
                "points": list(points),
                "bosses_scored": _ids(bosses),
            }
        case GameEnded(winners):
            return {"winners": list(winners)}
    raise TypeError(f"not an event: {event!r}")  # pragma: no cover


# --- decoding -------------------------------------------------------------------
# Stored data is checked as it is read: a corrupt row must fail here, with
# EventDataError, rather than decode into an event of the wrong shape.


def _int(value: Any) -> int:
    if type(value) is not int:
        raise EventDataError(f"expected an integer, got {value!r}")
    return value


def _opt_int(value: Any) -> int | None:
    return None if value is None else _int(value)


def _str(value: Any) -> str:
    if type(value) is not str:
        raise EventDataError(f"expected a string, got {value!r}")
    return value


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise EventDataError(f"expected a list, got {value!r}")
    return value


def _ints(value: Any) -> tuple[int, ...]:
    return tuple(_int(v) for v in _list(value))


def _card(value: Any) -> Card:
    return card(_str(value))


def _opt_card(value: Any) -> Card | None:
    return None if value is None else _card(value)


def _cards(value: Any) -> tuple[Card, ...]:
    return tuple(_card(i) for i in _list(value))


def _opt_cards(value: Any) -> tuple[Card, ...] | None:
    return None if value is None else _cards(value)


def _clock(value: Any) -> TurnClock | None:
    if value is None:
        return None
    return TurnClock(_int(value["turn_seconds"]), OnTimeout(_str(value["on_timeout"])))


def _fairness(value: Any) -> FairShuffle | None:
    if value is None:
        return None
    sealed = value.get("sealed")
    return FairShuffle(_str(value["commitment"]), None if sealed is None else _str(sealed))


def _opt_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _opt_bot(value: Any) -> BotLevel | None:
    return None if value is None else BotLevel(_str(value))


def _game_created(d: Mapping[str, Any]) -> GameCreated:
    deals = d.get("deals")
    return GameCreated(
        players=_int(d["players"]),
        scoring=Scoring(_str(d["scoring"])),
        variant=Variant(_str(d["variant"])),
        seed=_opt_int(d.get("seed")),
        deals=None
        if deals is None
        else tuple(
            PresetDeal(
                hands=tuple(_cards(h) for h in _list(x["hands"])),
                trump=_opt_card(x["trump"]),
            )
            for x in _list(deals)
        ),
        clock=_clock(d.get("clock")),
        fairness=_fairness(d.get("fairness")),
        visibility=Visibility(_str(d.get("visibility", Visibility.PRIVATE.value))),
        reserved=None
        if d.get("reserved") is None
        else tuple(_opt_str(p) for p in _list(d["reserved"])),
        rated=d.get("rated") is True,
    )


def _passed(p: Mapping[str, Any]) -> PassedCard:
    return PassedCard(_int(p["from"]), _int(p["to"]), _opt_card(p["card"]))


_DECODERS: dict[str, Callable[[Mapping[str, Any]], Event]] = {
    "CardPlayed": lambda d: CardPlayed(_int(d["seat"]), _card(d["card"])),
    "TrickTaken": lambda d: TrickTaken(_int(d["number"]), _int(d["winner"])),
    "CardsPassed": lambda d: CardsPassed(_int(d["seat"]), _opt_cards(d["cards"])),
    "PassesExchanged": lambda d: PassesExchanged(
        tuple(_passed(p) for p in _list(d["passes"])), _int(d["leader"])
    ),
    "RoundDealt": lambda d: RoundDealt(
        _int(d["number"]),
        tuple(_opt_cards(h) for h in _list(d["hands"])),
        _opt_card(d["trump"]),
    ),
    "SeatJoined": lambda d: SeatJoined(
        _int(d["seat"]),
        _str(d["name"]),
        _opt_bot(d.get("bot")),
        _opt_str(d.get("client_seed")),
        _opt_str(d.get("player")),
    ),
    "SeedRevealed": lambda d: SeedRevealed(_str(d["server_seed"])),
    "Rematched": lambda d: Rematched(_str(d["game_id"])),
    "GameExpired": lambda d: GameExpired(),
    "SeatLeft": lambda d: SeatLeft(_int(d["seat"]), BotLevel(_str(d["bot"]))),
    "TurnTimedOut": lambda d: TurnTimedOut(_int(d["seat"]), OnTimeout(_str(d["outcome"]))),
    "SeatResigned": lambda d: SeatResigned(_int(d["seat"])),
    "SeatErased": lambda d: SeatErased(_int(d["seat"])),
    "SeatDeclined": lambda d: SeatDeclined(_int(d["seat"]), _str(d["player"])),
    "GameCreated": _game_created,
    "SuitSealed": lambda d: SuitSealed(_int(d["team"]), Suit(_str(d["suit"]))),
    "RoundEnded": lambda d: RoundEnded(
        _int(d["number"]),
        RoundEndReason(_str(d["reason"])),
        _ints(d["winners"]),
        _ints(d["points"]),
        _cards(d["bosses_scored"]),
    ),
    "GameEnded": lambda d: GameEnded(_ints(d["winners"])),
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
    except EventDataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise EventDataError(f"malformed {event_type} data: {exc}") from exc
