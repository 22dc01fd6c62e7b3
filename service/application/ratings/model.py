"""What a finished rated game does to its players' ratings: its ladder, how its sides
rank, and the update (openskill's Plackett-Luce model at its defaults: mu 25, sigma
25/3). Pure functions of the game's events and the ratings before; the job that applies
them is service/application/jobs/rating.py.

Why openskill: Yokai Septet is a partnership game with four players and a three-sided
one with three; Elo and Glicko-2 model two players. The Weng-Lin models take teams of
any size and full rankings (ties share a rank), and the package is maintained (MIT).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from uuid import UUID, uuid5

from openskill.models import PlackettLuce

from service.rules import BotLevel, GameConfig, GameState, Variant
from service.rules.config import OnTimeout
from service.rules.events import Event, SeatJoined, SeatResigned, TurnTimedOut

LADDERS = ("standard-3p", "standard-4p", "seven-followers")
PROVISIONAL_GAMES = 10
"""A rating is provisional while its player has played fewer rated games in the ladder."""

_MODEL = PlackettLuce()
_BOTS = UUID("7d0f3c2e-5b1a-4c55-9f21-6a8e2b0c9d13")


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


DEFAULT = Rating(_MODEL.mu, _MODEL.sigma, 0)


def ladder(players: int, variant: Variant) -> str:
    if variant is not Variant.STANDARD:
        return "seven-followers"  # both Seven Followers variants
    return f"standard-{players}p"


def ladder_of(config: GameConfig) -> str:
    return ladder(config.players, config.variant)


def bot_player(level: BotLevel) -> UUID:
    """The player a bot level rates as (the same id everywhere: a bot of each level is a
    player of its own)."""
    return uuid5(_BOTS, level.value)


BOT_PLAYERS = {bot_player(level): level for level in BotLevel}
"""Each bot level by the player it rates as."""


def bot_player_name(level: BotLevel) -> str:
    """The name a bot level's player goes by (it has no row in the players' table)."""
    return f"{level.value.capitalize()} bot"


def seat_players(events: Sequence[Event]) -> dict[int, UUID]:
    """Who sat where in a rated game: each join names its player, or a bot its level."""
    seated: dict[int, UUID] = {}
    for e in events:
        if isinstance(e, SeatJoined):
            if e.player is not None:
                seated[e.seat] = UUID(e.player)
            elif e.bot is not None:
                seated[e.seat] = bot_player(e.bot)
    return seated


def culprits(events: Sequence[Event]) -> set[int]:
    """The seats that resigned or forfeited on their clock."""
    return {
        e.seat
        for e in events
        if isinstance(e, SeatResigned)
        or (isinstance(e, TurnTimedOut) and e.outcome is OnTimeout.FORFEIT)
    }


def ranks(state: GameState, events: Sequence[Event]) -> list[int]:
    """By side: its rank, 0 the best. Sides rank by final score, highest first (ties
    share a rank), the game's winners before the rest (R-6.5 breaks a tie of scores); a
    side that resigned or forfeited comes last."""
    cfg = state.config
    assert cfg is not None and state.winners is not None
    losing = {cfg.side_of(seat) for seat in culprits(events)}
    keys = [
        (side in losing, side not in state.winners, -state.scores[side])
        for side in range(cfg.sides)
    ]
    order = sorted(set(keys))
    return [order.index(k) for k in keys]


def update(
    state: GameState, events: Sequence[Event], before: Mapping[UUID, Rating]
) -> dict[UUID, Rating]:
    """The rating after the game of each seat's player that it rates (``before``: each
    one's rating, the default for a player without one). Four players play as two teams,
    three as three.

    Ratings are for people: a bot level seated on two sides plays at the rating it had
    and is not rated by the game. It would be rated against itself, taking one side's
    update and dropping the other's: ten games of a person beside a random bot against
    two made the level the person's mirror, leading the leaderboard. A level on one side
    only, on one seat or on both of a team, is rated once."""
    cfg = state.config
    assert cfg is not None
    seated = seat_players(events)
    sides: list[list[UUID]] = [[] for _ in range(cfg.sides)]
    for seat in range(cfg.players):
        sides[cfg.side_of(seat)].append(seated[seat])
    teams = [[_MODEL.rating(before[p].mu, before[p].sigma) for p in side] for side in sides]
    rated = _MODEL.rate(teams, ranks=[float(r) for r in ranks(state, events)])
    everywhere = {p for p in seated.values() if sum(p in side for side in sides) > 1}
    return {
        player: Rating(new.mu, new.sigma, before[player].games + 1)
        for side, team in zip(sides, rated, strict=True)
        for player, new in zip(side, team, strict=True)
        if player not in everywhere
    }
