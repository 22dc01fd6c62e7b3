"""``yokai reputation rebuild``: every mark and reputation derived again from the games'
events (who held each seat: the games' seat players; quick play's games: those a seek was
matched into) and the lifts in the players' audit, in place of those kept. It ends with
what the commands kept, the order of marks being their times' (docs/cli.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from service.application.deps import Deps
from service.application.games import codec
from service.application.ports import UnitOfWork
from service.application.reputation import model
from service.application.reputation.ports import PlayerMark
from service.rules import INITIAL, fold


@dataclass(frozen=True, slots=True)
class Rebuilt:
    games: int
    marks: int
    players: int


def derive(uow: UnitOfWork) -> tuple[list[PlayerMark], dict[UUID, model.Standing]]:
    """Every mark the games' events leave, in order, and each player's reputation."""
    found: list[PlayerMark] = []
    for game_id in uow.reputations.games():
        rows = uow.events.load(game_id)
        held, quick = uow.reputations.holders(game_id)
        pairs = [(row.seq, codec.decode(row)) for row in rows]
        config = fold(e for _, e in pairs[:1]).config
        rated = config is not None and config.rated
        at = {row.seq: row.recorded_at for row in rows}
        found += [
            PlayerMark(
                at[m.seq], game_id, m.seq, held[m.seat], m.how, m.how.abandoned and (rated or quick)
            )
            for m in model.marks(INITIAL, pairs)
            if m.seat in held
        ]
    found.sort()
    return found, standings(found)


def standings(marks: Sequence[PlayerMark]) -> dict[UUID, model.Standing]:
    """Each player's reputation after ``marks`` (in order)."""
    kept: dict[UUID, model.Standing] = {}
    for m in marks:
        kept[m.player_id] = kept.get(m.player_id, model.Standing()).after(m.how)
    return kept


def rebuild(deps: Deps) -> Rebuilt:
    """Derive every reputation again and keep it, in one unit of work that holds off the
    commands that would mark one until it commits."""
    with deps.uow() as uow:
        marks, kept = derive(uow)
        lifted: dict[UUID, datetime] = uow.reputations.lifts()
        uow.reputations.rewrite(marks, kept, lifted)
        uow.commit()
    return Rebuilt(len({m.game_id for m in marks}), len(marks), len(kept))
