"""The inbox projection as a game's state gives it: which seats must act, and an entry
for a player who takes a seat."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from service.application.games.cache import Loaded
from service.application.games.ports import InboxEntry, SeatTurn
from service.application.games.turnclocks import deadline
from service.rules import Action, GameState, expected_action, public_status


def _action(state: GameState, seat: int) -> str | None:
    """What the person holding ``seat`` must do now: nothing once a bot plays it; join
    it, for the player it is reserved for."""
    if state.bots and state.bots[seat] is not None:
        return None
    if state.reserved and state.reserved[seat] is not None and state.names[seat] is None:
        return Action.JOIN.value
    action = expected_action(state, seat)
    return action.value if action is not None else None


def turns(game: Loaded) -> list[SeatTurn]:
    """Each seat, what its player must do now (None: nothing), and by when."""
    state = game.state
    assert state.config is not None
    due_by = deadline(game)
    out = []
    for seat in range(state.config.players):
        action = _action(state, seat)
        out.append(SeatTurn(seat, action, due_by if action is not None else None))
    return out


def entry(
    player_id: UUID,
    game_id: UUID,
    seat: int,
    game: Loaded,
    now: datetime,
    *,
    invited_by: UUID | None = None,
    rematch_of: UUID | None = None,
) -> InboxEntry:
    """The inbox entry of a player who holds ``seat`` of the game as it stands (or is
    invited to it: by whom, and to the rematch of which game, if it is one)."""
    state = game.state
    cfg = state.config
    assert cfg is not None
    action = _action(state, seat)
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
        action=action,
        due_since=now if action is not None else None,
        deadline=deadline(game) if action is not None else None,
        updated_at=now,
        invited_by=invited_by,
        rematch_of=rematch_of,
    )
