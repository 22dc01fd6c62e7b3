"""Deciding a command, then dealing every round that falls due: a round's end and the
next deal are one command's events, so a game is never left waiting for a dealer. The
command that finishes a provably fair game also reveals its server seed."""

from __future__ import annotations

from uuid import UUID

from service.application.games.codec import encode
from service.application.integrity.chain import Unchained
from service.application.ports import SYSTEM, Actor
from service.application.write.ports import Dealer
from service.rules import (
    Command,
    DealRound,
    GameState,
    Phase,
    RevealSeed,
    RuleViolationError,
    deal_due,
    decide,
    fold,
    preset_deal,
)


class DealerError(RuntimeError):
    """The dealer gave a deal the rules refuse: a fault of the server."""


def decide_and_deal(
    game_id: UUID, state: GameState, command: Command, actor: Actor, dealer: Dealer
) -> tuple[list[Unchained], GameState]:
    """The events ``command`` causes (by ``actor``) and the deals that follow them (by the
    system: an operator's preset deal for that round, a fair game's deal from its server
    seed, else the dealer's shuffle), and the state after them all. Raises the rules'
    refusal before anything is decided."""
    out: list[Unchained] = []
    events = decide(state, command)
    while True:
        state = fold(events, state)
        out.extend(encode(e, actor) for e in events)
        number = deal_due(state)
        if number is None:
            if _reveal_due(state):
                assert state.fairness is not None
                reveal = RevealSeed(dealer.reveal(game_id, state.fairness))
                events = decide(state, reveal)
                actor = SYSTEM
                continue
            return out, state
        assert state.config is not None
        preset = preset_deal(state, number)
        deal = (
            DealRound(preset.hands, preset.trump)
            if preset is not None
            else _fair_deal(game_id, state, number, dealer)
            if state.fairness is not None
            else dealer.deal(state.config, state.seed, number)
        )
        try:
            events = decide(state, deal)
        except RuleViolationError as exc:
            # Not the caller's fault, and not to be remembered as a refusal of its command.
            raise DealerError(f"round {number} was dealt badly: {exc.detail}") from exc
        actor = SYSTEM


def _reveal_due(state: GameState) -> bool:
    # An imported fair game (nothing sealed) reveals the seed its record gives.
    f = state.fairness
    return (
        state.phase is Phase.FINISHED
        and f is not None
        and f.sealed is not None
        and state.server_seed is None
    )


def _fair_deal(game_id: UUID, state: GameState, number: int, dealer: Dealer) -> DealRound:
    assert state.config is not None and state.fairness is not None
    if state.fairness.sealed is None:  # imported: dealt only what its record holds
        raise DealerError(f"round {number} has no recorded deal")
    seeds = tuple(s for s in state.client_seeds if s is not None)
    if len(seeds) != state.config.players:  # pragma: no cover - every join gives one
        raise DealerError("a fair game's seat has no client seed")
    return dealer.fair_deal(game_id, state.config, state.fairness, seeds, number)
