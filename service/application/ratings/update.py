"""Applying finished rated games to ratings: one game per unit of work, in the order the
games finished (the worker's job: service/application/jobs/rating.py), and a rebuild of
every ladder from the games in the order their updates were made (``yokai ratings
rebuild``), which ends with exactly the ratings the worker produced."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from uuid import UUID

from service.application.deps import Deps
from service.application.games import codec
from service.application.ports import UnitOfWork
from service.application.ratings import model
from service.rules import fold
from service.rules.events import Event


def _decided(
    uow: UnitOfWork, game_id: UUID, kept: Callable[[str, list[UUID]], dict[UUID, model.Rating]]
) -> tuple[str, dict[UUID, model.Rating], dict[UUID, model.Rating]]:
    """The game's ladder, and its players' ratings before (as ``kept`` gives them) and
    after it."""
    events: Sequence[Event] = [codec.decode(row) for row in uow.events.load(game_id)]
    state = fold(events)
    assert state.config is not None
    ladder = model.ladder_of(state.config)
    before = kept(ladder, sorted(set(model.seat_players(events).values())))
    return ladder, before, model.update(state, events, before)


def rate_next(deps: Deps) -> UUID | None:
    """Update the ratings of the oldest finished rated game not rated yet, if any (its
    id). Another worker's update of it is waited for, then the next game is taken."""
    with deps.uow() as uow:
        game_id = uow.ratings.next_due()
        if game_id is None:
            return None
        ladder, before, after = _decided(uow, game_id, uow.ratings.hold)
        uow.ratings.apply(game_id, ladder, before, after, deps.clock.now())
        uow.commit()
    return game_id


def rebuild(deps: Deps) -> int:
    """Every ladder recomputed from the rated games, in the order their updates were
    first made, in one unit of work that keeps the workers' updates out until it
    commits (readers see the old ratings until then). How many games it applied."""
    with deps.uow() as uow:
        order = uow.ratings.rated_games()
        ratings: dict[tuple[UUID, str], model.Rating] = {}
        changes: list[tuple[UUID, UUID, model.Rating, model.Rating]] = []

        def kept(ladder: str, players: list[UUID]) -> dict[UUID, model.Rating]:
            return {p: ratings.get((p, ladder), model.DEFAULT) for p in players}

        for game_id in order:
            ladder, before, after = _decided(uow, game_id, kept)
            ratings.update({(p, ladder): r for p, r in after.items()})
            changes += [(game_id, p, before[p], r) for p, r in sorted(after.items())]
        uow.ratings.rewrite(ratings, changes)
        uow.commit()
    return len(order)
