"""Rating accuracy: how well the ladders predict games between bots of known strength.

Run it with::

    .venv/bin/python -m bench.rating_accuracy                     # 12 players, 600 games
    .venv/bin/python -m bench.rating_accuracy --players 16 --games 800 --seed 7

A population of ``--players`` players (default 12) is split between the bot levels
(alternately ``basic`` and ``random``; the level is each player's hidden true
strength). Each game seats 3 or 4 players drawn at random from the population (3 or 4
with equal odds; standard variant, basic scoring) and is played to its end through the
rules engine by each seat's bot (:func:`service.bots.selfplay.play_game`), no database,
no HTTP. The ratings are updated exactly as the server does, by
:func:`service.application.ratings.model.update` on the game's final state, in the
game's ladder (:func:`~service.application.ratings.model.ladder_of`: ``standard-3p`` and
``standard-4p`` are rated apart).

Before each game the favourite is predicted from the current ratings with openskill's
``PlackettLuce().predict_win`` on the sides (teams of two with four players, three
single-player sides with three). After ``--warmup`` games (default 100) it prints, per
ladder and over all, in windows of ``--window`` games:

- accuracy: how often the predicted favourite (highest predicted probability) won;
- log loss: the mean of ``-ln p``, ``p`` the predicted probability of the side that won
  (the sum over the winning sides if several won), beside the uniform baseline
  (``ln 3`` with three sides, ``ln 2`` with two) and the accuracy a uniform guess has
  (1/3, 1/2).

Levels ordered: after a game in a ladder, the ladder *orders the levels* when every
``basic`` player who has played in that ladder has a higher ordinal (mu - 3 sigma) than
every ``random`` player who has. The *games to order* a ladder is the number of that
ladder's games after which it orders the levels and stays ordered through every later
game of the run ("never" if it is not ordered after its last game). It also prints the
mean ordinal per level at the end.

The deals and draws come from ``random.Random`` seeded from ``--seed``, so a run is
repeatable. It prints figures and the wall time, and asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from uuid import UUID

from openskill.models import PlackettLuce

from service.application.ratings import model
from service.application.ratings.model import DEFAULT, Rating
from service.bots import Bot, basic_move, random_move
from service.bots.selfplay import play_game
from service.rules import BotLevel, GameConfig, Scoring, Variant
from service.rules.events import SeatJoined

BOTS: dict[BotLevel, Bot] = {BotLevel.BASIC: basic_move, BotLevel.RANDOM: random_move}
_MODEL = PlackettLuce()


def log_loss(p: float, floor: float = 1e-12) -> float:
    """``-ln p`` of the probability predicted for what happened (floored, never infinite)."""
    return -math.log(max(p, floor))


def levels_ordered(
    ordinals: Mapping[UUID, float], levels: Mapping[UUID, BotLevel], order: Sequence[BotLevel]
) -> bool:
    """Whether every player of each level in ``order`` (strongest first) has a higher
    ordinal than every player of each later level; players not in ``ordinals`` (no game
    yet) are left out, and a level with no such player constrains nothing."""
    groups = [[o for p, o in ordinals.items() if levels[p] is lv] for lv in order]
    groups = [g for g in groups if g]
    return all(min(hi) > max(lo) for hi, lo in itertools.pairwise(groups))


def games_to_order(ordered_after: Sequence[bool]) -> int | None:
    """Given, for each game in turn, whether the levels were ordered after it: how many
    games it took until they were ordered and stayed so to the end (None if they are not
    ordered after the last game, or there was no game)."""
    if not ordered_after or not ordered_after[-1]:
        return None
    n = len(ordered_after)
    while n > 0 and ordered_after[n - 1]:
        n -= 1
    return n + 1


@dataclass
class Tally:
    games: int = 0
    hits: int = 0
    loss: float = 0.0
    baseline_loss: float = 0.0
    baseline_hits: float = 0.0

    def add(self, hit: bool, loss: float, sides: int) -> None:
        self.games += 1
        self.hits += hit
        self.loss += loss
        self.baseline_loss += math.log(sides)
        self.baseline_hits += 1 / sides

    def line(self, label: str) -> str:
        if not self.games:
            return f"{label:<24} no games"
        n = self.games
        return (
            f"{label:<24} {n:>4} games  accuracy {self.hits / n:6.1%} "
            f"(uniform {self.baseline_hits / n:5.1%})  log loss {self.loss / n:.3f} "
            f"(uniform {self.baseline_loss / n:.3f})"
        )


@dataclass
class Ladder:
    ratings: dict[UUID, Rating] = field(default_factory=dict)
    ordered_after: list[bool] = field(default_factory=list)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, default=12, help="population size")
    parser.add_argument("--games", type=int, default=600, help="games played")
    parser.add_argument("--warmup", type=int, default=100, help="games not scored")
    parser.add_argument("--window", type=int, default=100, help="games per window")
    parser.add_argument("--seed", type=int, default=2026, help="seed of draws and deals")
    args = parser.parse_args()
    if args.players < 4:
        parser.error("--players must be at least 4")

    started = time.perf_counter()
    rng = random.Random(f"{args.seed}/rating-accuracy")
    order = [BotLevel.BASIC, BotLevel.RANDOM]
    population = [UUID(int=i + 1) for i in range(args.players)]
    levels = {p: order[i % len(order)] for i, p in enumerate(population)}
    ladders: dict[str, Ladder] = {}
    overall, by_ladder, window = Tally(), dict[str, Tally](), Tally()
    basic_side_won = basic_side_games = 0
    print(
        f"rating accuracy: {args.players} players "
        f"({sum(lv is BotLevel.BASIC for lv in levels.values())} basic, "
        f"{sum(lv is BotLevel.RANDOM for lv in levels.values())} random), "
        f"{args.games} games, warm-up {args.warmup}, seed {args.seed}"
    )
    print("prediction: openskill PlackettLuce().predict_win on the sides' current ratings")
    for g in range(args.games):
        seats = rng.choice((3, 4))
        config = GameConfig(seats, Scoring.BASIC, Variant.STANDARD)
        name = model.ladder_of(config)
        ladder = ladders.setdefault(name, Ladder())
        players = rng.sample(population, seats)
        before = {p: ladder.ratings.get(p, DEFAULT) for p in players}
        sides: list[list[UUID]] = [[] for _ in range(config.sides)]
        for seat, p in enumerate(players):
            sides[config.side_of(seat)].append(p)
        teams = [[_MODEL.rating(before[p].mu, before[p].sigma) for p in s] for s in sides]
        probs = _MODEL.predict_win(teams)

        bots = [BOTS[levels[p]] for p in players]
        last = None
        for step in play_game(seats, Scoring.BASIC, Variant.STANDARD, rng=rng, bots=bots):
            last = step.after
        assert last is not None and last.winners is not None, "the game did not end"
        events = [SeatJoined(s, f"p{s}", player=str(p)) for s, p in enumerate(players)]
        ladder.ratings.update(model.update(last, events, before))
        ordinals = {p: r.ordinal for p, r in ladder.ratings.items()}
        ladder.ordered_after.append(levels_ordered(ordinals, levels, order))

        # a side is "basic" when it has a basic player and no random one
        for side, members in enumerate(sides):
            if {levels[p] for p in members} == {BotLevel.BASIC}:
                basic_side_games += 1
                basic_side_won += side in last.winners

        if g < args.warmup:
            continue
        favourite = max(range(len(probs)), key=lambda s: probs[s])
        hit = favourite in last.winners
        loss = log_loss(sum(probs[s] for s in last.winners))
        for t in (overall, by_ladder.setdefault(name, Tally()), window):
            t.add(hit, loss, config.sides)
        if window.games == args.window or g == args.games - 1:
            print(window.line(f"games {g + 2 - window.games}-{g + 1}"), flush=True)
            window = Tally()

    print(overall.line("all after warm-up"))
    for name in sorted(by_ladder):
        print(by_ladder[name].line(name))
    for name in sorted(ladders):
        ladder = ladders[name]
        n = games_to_order(ladder.ordered_after)
        print(
            f"{name}: levels ordered after "
            f"{'never (not ordered at the end)' if n is None else f'{n} of its games'} "
            f"({len(ladder.ordered_after)} games in the ladder)"
        )
        for lv in order:
            ords = [r.ordinal for p, r in ladder.ratings.items() if levels[p] is lv]
            if ords:
                print(
                    f"  {lv.value:<7} mean ordinal {sum(ords) / len(ords):6.2f}  "
                    f"range [{min(ords):6.2f}, {max(ords):6.2f}]"
                )
    if basic_side_games:
        rate = basic_side_won / basic_side_games
        print(f"all-basic sides won {rate:.1%} of their {basic_side_games} sides' games")
        if rate > 0.9:
            print("note: basic wins so often that predicting it is trivially accurate")
    if (
        overall.games
        and overall.hits / overall.games <= overall.baseline_hits / overall.games + 0.02
    ):
        print("note: accuracy is no better than a uniform guess: the levels look indistinguishable")
    print(f"wall time {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
