"""A table to play at through the application, as a client would: commands go through
``handlers.execute``, seats act with the principals their join tokens stand for, and
moves are read from the seat's own view."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from service.application.commands import (
    Command,
    Context,
    CreateGame,
    DealInput,
    JoinSeat,
    PassCards,
    PlayCard,
)
from service.application.deps import Deps
from service.application.games.queries.views import public_view, seat_view
from service.application.identity.principals import Anonymous, Principal, SeatHolder
from service.application.ports import StoredEvent
from service.application.results import Acted, Created, Joined, Result, Unchanged
from service.application.write.registry import execute
from service.rules import (
    STANDARD_DECK,
    Card,
    DealRound,
    GameConfig,
    PublicView,
    Scoring,
    SeatView,
    Variant,
)
from tests.application.fakes import Database, FixedClock, ScriptedDealer

ANYONE = Anonymous()


def ordered_deal(players: int = 4) -> DealRound:
    """The standard deck cut in its canonical order: seat 0 gets the first cards, and so
    on; the card after the hands is the trump card."""
    size = GameConfig(players, Scoring.BASIC, Variant.STANDARD).hand_size
    deck = STANDARD_DECK
    hands = tuple(deck[i * size : (i + 1) * size] for i in range(players))
    return DealRound(hands, deck[players * size])


def rotated_deal(players: int = 4) -> DealRound:
    """The ordered deal with the hands given one seat further on."""
    ordered = ordered_deal(players)
    return DealRound(ordered.hands[-1:] + ordered.hands[:-1], ordered.trump)


def preset(deal: DealRound) -> DealInput:
    """A deal as an operator gives it when creating a game."""
    assert deal.trump is not None
    return DealInput(tuple(tuple(c.id for c in hand) for hand in deal.hands), deal.trump.id)


def card_ids(cards: tuple[Card, ...]) -> set[str]:
    return {c.id for c in cards}


@dataclass(frozen=True)
class Game:
    id: UUID
    seats: tuple[SeatHolder, ...]
    tokens: tuple[str, ...]


@dataclass
class Table:
    deps: Deps
    db: Database
    clock: FixedClock
    dealer: ScriptedDealer

    def run(self, command: Command, principal: Principal = ANYONE, **ctx: Any) -> Result:
        """One command through the application, with its context."""
        return execute(self.deps, command, Context(principal, **ctx)).result

    def create(self, players: int = 4, *, by: Principal = ANYONE, **options: Any) -> UUID:
        created = self.run(CreateGame(players, Scoring.BASIC, **options), by)
        assert isinstance(created, Created)
        return created.game_id

    def join(self, game_id: UUID, seat: int, **ctx: Any) -> Joined:
        joined = self.run(JoinSeat(game_id, seat, f"player {seat}"), **ctx)
        assert isinstance(joined, Joined)
        return joined

    def seat_in(self, game_id: UUID, players: int) -> Game:
        """Join every seat; the principals come from the tokens, as for a client."""
        tokens = tuple(self.join(game_id, seat).token for seat in range(players))
        seats = []
        for token in tokens:
            seat = self.deps.identity.identify(token)
            assert isinstance(seat, SeatHolder)
            seats.append(seat)
        return Game(game_id, tuple(seats), tokens)

    def start(self, players: int = 4, *, by: Principal = ANYONE, **options: Any) -> Game:
        """A created game with every seat joined: round 1 is dealt."""
        return self.seat_in(self.create(players, by=by, **options), players)

    def view(self, game: Game, seat: int) -> SeatView:
        found = seat_view(self.deps, game.id, game.seats[seat])
        assert not isinstance(found, Unchanged)
        return found.view

    def public(self, game_id: UUID) -> PublicView:
        found = public_view(self.deps, game_id)
        assert not isinstance(found, Unchanged)
        return found.view

    def version(self, game_id: UUID) -> int:
        found = public_view(self.deps, game_id)
        return found.version

    def pass_first_three(self, game: Game, seat: int, **ctx: Any) -> Acted:
        acted = self.run(*self.pass_of(game, seat), **ctx)
        assert isinstance(acted, Acted)
        return acted

    def pass_all(self, game: Game) -> None:
        for seat in range(len(game.seats)):
            self.pass_first_three(game, seat)

    def turn(self, game: Game) -> int:
        r = self.public(game.id).round
        assert r is not None and r.turn is not None, "no seat is on turn"
        return r.turn

    def play_turn(self, game: Game, **ctx: Any) -> Acted:
        """The seat on turn plays its first legal card."""
        seat = self.turn(game)
        card = self.view(game, seat).legal[0]
        acted = self.run(PlayCard(game.id, card), game.seats[seat], **ctx)
        assert isinstance(acted, Acted)
        return acted

    def beaten_by(self, *moves: tuple[Command, Principal]) -> None:
        """The next units of work to append are each beaten by one of ``moves``: another
        client's command, committed just before their first append."""
        pending = list(moves)

        def writer(rows: Sequence[StoredEvent]) -> None:
            command, principal = pending.pop(0)
            self.run(command, principal)

        self.db.interpose(writer, times=len(moves))

    def pass_of(self, game: Game, seat: int) -> tuple[Command, Principal]:
        """A seat's pass of its first three cards, to send later."""
        return PassCards(game.id, self.view(game, seat).legal[:3]), game.seats[seat]

    def stream(self, game_id: UUID) -> list[StoredEvent]:
        return self.db.stream(game_id)

    def types(self, game_id: UUID, after: int = 0) -> list[str]:
        return [e.type for e in self.stream(game_id) if e.seq > after]
