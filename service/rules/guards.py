"""What every phase of the rules checks: that a command may be decided (a refusal is
a :class:`RuleViolationError`) and that an event can follow the state it is applied to
(else :class:`InvalidEventError`)."""

from __future__ import annotations

from service.rules.config import GameConfig
from service.rules.errors import InvalidEventError, RuleViolationError, Violation
from service.rules.state import GameState, Phase, RoundState


def _refuse(code: Violation, detail: str) -> RuleViolationError:
    return RuleViolationError(code, detail)


def _config(state: GameState) -> GameConfig:
    if state.config is None:
        raise _refuse(Violation.WRONG_PHASE, "the game has not been created")
    return state.config


def _check_seat(cfg: GameConfig, seat: int) -> None:
    if not 0 <= seat < cfg.players:
        raise _refuse(Violation.UNKNOWN_SEAT, f"seat {seat} does not exist in this game")


def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise InvalidEventError(what)


def _round(state: GameState, phase: Phase) -> tuple[GameConfig, RoundState]:
    _expect(state.phase is phase, f"expected phase {phase}, the game is {state.phase}")
    assert state.config is not None and state.round is not None
    return state.config, state.round
