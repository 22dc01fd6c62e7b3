"""The inbox projection as a game's state gives it: which seats must act, and an entry
for a player who takes a seat."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from service.application.cache import Loaded
from service.application.ports import InboxEntry, SeatTurn
from service.rules import GameState, expected_action, public_status


def turns(state: GameState) -> list[SeatTurn]:
    """Each seat, and what it must do now (None: nothing)."""
    assert state.config is not None
    return [
        SeatTurn(seat, action.value if (action := expected_action(state, seat)) else None)
        for seat in range(state.config.players)
    ]


def entry(player_id: UUID, game_id: UUID, seat: int, game: Loaded, now: datetime) -> InboxEntry:
    """The inbox entry of a player who holds ``seat`` of the game as it stands."""
    state = game.state
    cfg = state.config
    assert cfg is not None
    action = expected_action(state, seat)
    return InboxEntry(
        player_id=player_id,
        game_id=game_id,
        seat=seat,
        status=public_status(state),
        version=game.version,
        players=cfg.players,
        scoring=cfg.scoring.value,
        variant=cfg.variant.value,
        scores=state.scores,
        winner=state.winners,
        my_turn=action is not None,
        action=action.value if action is not None else None,
        due_since=now if action is not None else None,
        deadline=None,
        updated_at=now,
    )
