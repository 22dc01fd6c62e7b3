"""The deal loop: the command that ends a round also deals the next one (an operator's
preset deal for that round, else the dealer's shuffle for the game's seed and that round
number), so a game never waits for a dealer; its events stay numbered and chained."""

from __future__ import annotations

import pytest

from service.application.games.queries.views import operator_state
from service.application.identity.principals import Operator
from service.application.integrity.chain import first_broken_link
from service.application.ports import Actor, ActorKind, StoredEvent
from service.application.write.dealing import DealerError
from service.rules import DealRound
from tests.application.fakes import DealerScriptExhaustedError
from tests.application.table import Game, Table, card_ids, ordered_deal, preset, rotated_deal


def play_round(table: Table, game: Game) -> list[StoredEvent]:
    """Pass, then play until the round ends; returns the events of the play that ended it."""
    table.pass_all(game)
    while True:
        before = table.version(game.id)
        table.play_turn(game)
        if "RoundEnded" in table.types(game.id, after=before):
            return table.stream(game.id)[before:]


def test_the_play_that_ends_a_round_deals_the_next(table: Table) -> None:
    table.dealer.script.append(rotated_deal())
    game = table.start(by=Operator(), seed=7, deals=(preset(ordered_deal()),))
    assert table.dealer.asked == []  # round 1 is the operator's deal

    events = play_round(table, game)

    assert table.dealer.asked == [(7, 2)]
    assert [e.type for e in events] == ["CardPlayed", "TrickTaken", "RoundEnded", "RoundDealt"]
    assert [e.actor.kind for e in events] == [ActorKind.SEAT] * 3 + [ActorKind.SYSTEM]
    state = operator_state(table.deps, game.id, Operator()).view
    assert state.round is not None and state.round.number == 2
    assert [set(h) for h in state.hands] == [card_ids(h) for h in rotated_deal().hands]


def test_without_a_preset_deal_the_dealer_shuffles_for_the_seed(table: Table) -> None:
    table.dealer.script.append(ordered_deal())
    table.start(by=Operator(), seed=11)
    assert table.dealer.asked == [(11, 1)]


def test_a_game_played_to_its_end_is_numbered_and_chained(table: Table) -> None:
    table.dealer.script.extend([ordered_deal(), rotated_deal()] * 4)
    game = table.start()
    rounds = 0
    while table.public(game.id).status != "finished":
        play_round(table, game)
        rounds += 1

    assert table.dealer.asked == [(None, n) for n in range(1, rounds + 1)]
    stream = table.stream(game.id)
    assert [e.seq for e in stream] == list(range(1, len(stream) + 1))
    assert len(stream) == table.version(game.id)
    assert first_broken_link(stream, table.deps.chain) is None
    assert stream[-1].type == "GameEnded"


def test_a_failed_deal_leaves_the_round_unended(table: Table, game: Game) -> None:
    """The dealer failing (its script is empty) fails the play that ends the round: none
    of that command's events is stored, and the same play succeeds once a deal is there."""
    with pytest.raises(DealerScriptExhaustedError):
        play_round(table, game)
    before = table.version(game.id)
    assert "RoundEnded" not in table.types(game.id)
    r = table.public(game.id).round
    assert r is not None and r.number == 1 and len(r.trick) == 3  # the last card is not in

    table.dealer.script.append(rotated_deal())
    acted = table.play_turn(game)

    assert table.dealer.asked == [(None, 1), (None, 2), (None, 2)]
    assert table.types(game.id, after=before)[-2:] == ["RoundEnded", "RoundDealt"]
    assert acted.version == table.version(game.id)
    assert table.stream(game.id)[before].actor == Actor(ActorKind.SEAT, acted.seat)


def test_a_deal_the_rules_refuse_is_the_servers_fault_not_a_refusal(
    table: Table, game: Game
) -> None:
    """A dealer that deals badly fails the command as the server's fault: nothing stored,
    and nothing remembered under the caller's key as if the caller's play were illegal."""
    bad = ordered_deal()
    table.dealer.script.append(DealRound(bad.hands[:3], bad.trump))  # a seat without a hand
    table.pass_all(game)
    key = "play-that-ends-the-round"
    while True:
        before = table.version(game.id)
        try:
            table.play_turn(game, idempotency_key=key)
        except DealerError:
            break
        key = f"{key}+"
    assert table.version(game.id) == before
    assert "RoundEnded" not in table.types(game.id)

    table.dealer.script.append(rotated_deal())
    acted = table.play_turn(game, idempotency_key=key)  # the same key: decided, not replayed
    assert table.types(game.id, after=before)[-2:] == ["RoundEnded", "RoundDealt"]
    assert acted.version == table.version(game.id)
