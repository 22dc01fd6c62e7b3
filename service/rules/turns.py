"""Who acts now and with which cards: the questions a seat, a bot or a clock asks of a
state (R-3.2, R-4.1, R-4.2)."""

from __future__ import annotations

from enum import StrEnum

from service.rules.cards import Card
from service.rules.state import GameState, Phase


class Action(StrEnum):
    PASS = "pass"
    PLAY = "play"
    JOIN = "join"  # a seat reserved for a player waits for them (never a seat's own action)


def expected_action(state: GameState, seat: int) -> Action | None:
    """What ``seat`` may do now: pass, play, or nothing."""
    r = state.round
    if r is None or state.config is None or not 0 <= seat < state.config.players:
        return None
    if state.phase is Phase.PASSING:
        return Action.PASS if r.given[seat] is None else None
    if state.phase is Phase.PLAYING and state.turn() == seat:
        return Action.PLAY
    return None


def legal_cards(state: GameState, seat: int) -> tuple[Card, ...]:
    """The cards ``seat`` may pass or play now (R-3.2, R-4.1, R-4.2); empty if none."""
    action = expected_action(state, seat)
    if action is None:
        return ()
    r = state.round
    assert r is not None
    hand = r.hands[seat]
    if action is Action.PASS or not r.trick:
        return hand
    led = r.trick[0][1].suit
    following = tuple(c for c in hand if c.suit is led)
    return following or hand
