"""Deciding a command, then dealing every round that falls due: a round's end and the
next deal are one command's events, so a game is never left waiting for a dealer."""

from __future__ import annotations

from service.application.chain import Unchained
from service.application.codec import encode
from service.application.ports import SYSTEM, Actor, Dealer
from service.rules import (
    Command,
    DealRound,
    GameState,
    RuleViolationError,
    deal_due,
    decide,
    fold,
    preset_deal,
)


class DealerError(RuntimeError):
    """The dealer gave a deal the rules refuse: a fault of the server."""


def decide_and_deal(
    state: GameState, command: Command, actor: Actor, dealer: Dealer
) -> tuple[list[Unchained], GameState]:
    """The events ``command`` causes (by ``actor``) and the deals that follow them (by the
    system: an operator's preset deal for that round, else the dealer's shuffle), and the
    state after them all. Raises the rules' refusal before anything is decided."""
    out: list[Unchained] = []
    events = decide(state, command)
    while True:
        state = fold(events, state)
        out.extend(encode(e, actor) for e in events)
        number = deal_due(state)
        if number is None:
            return out, state
        assert state.config is not None
        preset = preset_deal(state, number)
        deal = (
            DealRound(preset.hands, preset.trump)
            if preset is not None
            else dealer.deal(state.config, state.seed, number)
        )
        try:
            events = decide(state, deal)
        except RuleViolationError as exc:
            # Not the caller's fault, and not to be remembered as a refusal of its command.
            raise DealerError(f"round {number} was dealt badly: {exc.detail}") from exc
        actor = SYSTEM
