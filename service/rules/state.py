"""The state of a game, as folded from its events. Immutable: ``evolve`` makes new ones."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, TypeVar

from service.rules.cards import Card, Suit
from service.rules.config import BotLevel, FairShuffle, GameConfig
from service.rules.events import PresetDeal, RoundEndReason

T = TypeVar("T")


class Phase(StrEnum):
    NEW = "new"  # nothing recorded yet
    WAITING = "waiting"  # seats still free
    DEALING = "dealing"  # a deal is due (transient: the service deals in the same command)
    PASSING = "passing"
    PLAYING = "playing"
    FINISHED = "finished"
    EXPIRED = "expired"  # left waiting for players too long (the service expires it)


@dataclass(frozen=True, slots=True)
class CompletedTrick:
    number: int
    cards: tuple[tuple[int, Card], ...]  # (seat, card) in play order
    winner: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    number: int
    trump: Card | None
    trump_suit: Suit | None
    reason: RoundEndReason
    winners: tuple[int, ...]
    points: tuple[int, ...]
    bosses_scored: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class RoundState:
    number: int
    trump: Card | None  # the turned-up card; None in Seven Followers
    trump_suit: Suit | None  # or set by the round's first card
    hands: tuple[tuple[Card, ...], ...]  # by seat, canonical order
    given: tuple[tuple[Card, ...] | None, ...]  # each seat's chosen pass, until exchanged
    received: tuple[tuple[Card, ...], ...] | None  # by seat, once exchanged
    leader: int | None  # who leads the current trick (None until known)
    trick: tuple[tuple[int, Card], ...]  # (seat, card) played so far in this trick
    tricks_played: int
    tricks_won: tuple[int, ...]  # by seat
    captured: tuple[tuple[Card, ...], ...]  # by seat: every card of the tricks it took
    bosses: tuple[tuple[Card, ...], ...]  # by seat: the bosses among them (public, R-4.4)
    last_trick: CompletedTrick | None
    sealed_suits: tuple[tuple[Suit, ...], ...]  # by team: suits sealed in this round

    @property
    def exchanged(self) -> bool:
        return self.received is not None


@dataclass(frozen=True, slots=True)
class GameState:
    config: GameConfig | None
    phase: Phase
    names: tuple[str | None, ...]
    round: RoundState | None
    scores: tuple[int, ...]  # by side: team (four players) or seat (three players)
    results: tuple[RoundResult, ...]
    seals: tuple[tuple[Suit, ...], ...]  # by team, Seven Followers only
    lead_holder: int | None  # who won the last trick
    winners: tuple[int, ...] | None
    seed: int | None
    deals: tuple[PresetDeal, ...] | None
    bots: tuple[BotLevel | None, ...] = ()  # by seat: the bot that plays it, if any
    # Provably fair games (docs/fairness.md): the commitment, each seat's client seed,
    # and the server seed once revealed (hex).
    fairness: FairShuffle | None = None
    client_seeds: tuple[str | None, ...] = ()
    server_seed: str | None = None
    # By seat: the player (the service's id, as text) a seat is reserved for until they
    # join or decline; the rules know no more of players than that.
    reserved: tuple[str | None, ...] = ()
    # By seat: the player who joined it, where the join names one (a rated game's seats,
    # a reserved seat); empty until one does.
    players: tuple[str | None, ...] = ()
    rematch: str | None = None  # the game that plays this finished one again

    def turn(self) -> int | None:
        """The seat that must play now, or None (not the playing phase)."""
        r = self.round
        if self.phase is not Phase.PLAYING or r is None or r.leader is None:
            return None
        assert self.config is not None
        return (r.leader + len(r.trick)) % self.config.players


INITIAL = GameState(
    config=None,
    phase=Phase.NEW,
    names=(),
    round=None,
    scores=(),
    results=(),
    seals=(),
    lead_holder=None,
    winners=None,
    seed=None,
    deals=None,
)
"""The state before any event: fold a game's events from here."""


def _builder(cls: type[T]) -> Callable[..., T]:
    """A constructor of ``cls``, a frozen slots dataclass with neither defaults to fill
    nor derived fields, taking every field in order and making the same instance.

    Replay's hot path (playing.py) makes a new RoundState and GameState for every card
    played. A frozen dataclass sets each field through ``object.__setattr__``; setting
    each slot through its own descriptor is twice as fast, and building these two
    states was a quarter of a replay's time (docs/benchmarks.md). The instances stay
    frozen: only their making is quicker. tests/rules/test_replay.py holds the
    builders to the classes' own constructors.
    """
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    setters = {f"_set{i}": getattr(cls, name).__set__ for i, name in enumerate(names)}
    arguments = ", ".join(f"a{i}" for i in range(len(names)))
    body = "".join(f"    _set{i}(made, a{i})\n" for i in range(len(names)))
    code = f"def build({arguments}):\n    made = _new(_cls)\n{body}    return made\n"
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls, **setters}
    exec(code, scope)  # code made here from the class's own field names, nothing else
    built: Callable[..., T] = scope["build"]
    return built


new_round_state = _builder(RoundState)
"""RoundState(...) with every field given in order, quicker (see _builder)."""
new_game_state = _builder(GameState)
"""GameState(...) with every field given in order, quicker (see _builder)."""
