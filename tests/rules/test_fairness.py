"""Provably fair games in the rules (docs/fairness.md, docs/api.md "Provably fair shuffles"):
the commitment at creation, a client seed per seat, deals of ``yokai-shuffle-v1`` keyed
by the server seed, the reveal at the end, and the check of every deal against it."""

from __future__ import annotations

import hashlib
import hmac
import random
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from service.bots.random_bot import random_move
from service.bots.selfplay import to_command
from service.rules import (
    OPERATOR,
    PUBLIC,
    CreateGame,
    DealRound,
    FairShuffle,
    GameConfig,
    HistoryError,
    JoinSeat,
    RevealSeed,
    RuleViolationError,
    Scoring,
    SeatViewer,
    Variant,
    Violation,
    deal_due,
    decide,
    expected_action,
    fair_deal,
    fair_message,
    fold,
    observe,
    redact,
    replay_checked,
    snapshot_of,
    state_from_snapshot,
    unfair_deal,
)
from service.rules.events import Event, GameCreated, RoundDealt, SeatJoined, SeedRevealed
from service.rules.shuffle import random_words
from service.rules.state import GameState, Phase
from tests.rules.scenario import Table

SEED = bytes(range(32))
COMMITMENT = hashlib.sha256(SEED).hexdigest()
FAIR = FairShuffle(COMMITMENT, "sealed-by-the-service")
CLIENTS = ("alice", "bob's seed ~", "0123456789abcdef", "z")


def fair_table(players: int = 4, variant: Variant = Variant.STANDARD) -> Table:
    table = Table()
    table.do(CreateGame(players, Scoring.BASIC, variant, fairness=FAIR))
    for seat in range(players):
        table.do(JoinSeat(seat, f"player {seat}", None, CLIENTS[seat]))
    return table


def refused(table: Table, command: object, code: Violation) -> None:
    with pytest.raises(RuleViolationError) as caught:
        decide(table.state, command)  # type: ignore[arg-type]
    assert caught.value.code is code


def play_out(table: Table, rng: random.Random) -> None:
    """Random legal moves, each due deal made as the service makes a fair one."""
    state = table.state
    while state.phase is not Phase.FINISHED:
        number = deal_due(state)
        if number is not None:
            assert state.config is not None
            seeds = tuple(s for s in state.client_seeds if s is not None)
            table.do(fair_deal(state.config, SEED, number, seeds))
        else:
            seats = [s for s in range(len(state.names)) if expected_action(state, s)]
            seat = rng.choice(seats)
            move = random_move(observe(state, SeatViewer(seat)), rng)
            assert move is not None
            table.do(to_command(seat, move))
        state = table.state


def test_the_message_is_the_round_then_each_client_seed_on_its_own_line() -> None:
    assert fair_message(3, ["a b", "~x"]) == b"round:3\na b\n~x"


def test_a_fair_deal_is_keyed_by_the_server_seed_with_the_client_seeds_in_the_message() -> None:
    config = GameConfig(4, Scoring.BASIC, Variant.STANDARD)
    dealt = fair_deal(config, SEED, 1, CLIENTS)
    assert dealt == fair_deal(config, SEED, 1, CLIENTS)
    assert dealt != fair_deal(config, SEED, 2, CLIENTS)
    assert dealt != fair_deal(config, SEED, 1, (*CLIENTS[:3], "y"))
    assert dealt != fair_deal(config, bytes(32), 1, CLIENTS)


def test_a_fair_game_is_created_with_its_commitment_and_shows_it() -> None:
    table = fair_table()
    view = observe(table.state, PUBLIC)
    assert view.fairness is not None
    assert (view.fairness.algorithm, view.fairness.commitment) == ("yokai-shuffle-v1", COMMITMENT)
    assert view.fairness.client_seeds == CLIENTS
    assert view.fairness.server_seed is None


def test_the_sealed_seed_reaches_no_viewer_but_an_operator() -> None:
    created = fair_table().events[0]
    for viewer in (PUBLIC, SeatViewer(0)):
        shown = redact(created, viewer)
        assert isinstance(shown, GameCreated)
        assert shown.fairness == FairShuffle(COMMITMENT, None)
    assert redact(created, OPERATOR) == created


def test_a_fair_game_cannot_also_have_a_seed_or_deals() -> None:
    with pytest.raises(RuleViolationError) as caught:
        decide(Table().state, CreateGame(4, Scoring.BASIC, seed=3, fairness=FAIR))
    assert caught.value.code is Violation.INVALID_OPTIONS
    with pytest.raises(RuleViolationError):
        decide(Table().state, CreateGame(4, Scoring.BASIC, fairness=FairShuffle("xyz", "s")))


@pytest.mark.parametrize("seed", [None, "", "x" * 65, "tab\there", "caf\u00e9", "new\nline"])
def test_a_fair_games_seat_needs_a_printable_ascii_client_seed(seed: str | None) -> None:
    table = Table()
    table.do(CreateGame(4, Scoring.BASIC, fairness=FAIR))
    refused(table, JoinSeat(0, "Mio", None, seed), Violation.INVALID_CLIENT_SEED)


def test_the_longest_and_the_odd_client_seeds_are_taken() -> None:
    table = Table()
    table.do(CreateGame(4, Scoring.BASIC, fairness=FAIR))
    table.do(JoinSeat(0, "Mio", None, "~" * 64))
    table.do(JoinSeat(1, "Ren", None, " "))
    assert table.state.client_seeds[:2] == ("~" * 64, " ")


def test_another_games_client_seed_is_not_kept() -> None:
    table = Table()
    table.do(CreateGame(4, Scoring.BASIC))
    assert table.do(JoinSeat(0, "Mio", None, "mine")) == (SeatJoined(0, "Mio"),)


@pytest.mark.parametrize(
    ("players", "variant"),
    [(3, Variant.STANDARD), (4, Variant.STANDARD), (4, Variant.SEVEN_FOLLOWERS)],
)
def test_a_finished_fair_game_reveals_its_seed_and_every_deal_checks(
    players: int, variant: Variant
) -> None:
    table = fair_table(players, variant)
    refused(table, RevealSeed(SEED.hex()), Violation.WRONG_PHASE)  # not over yet
    play_out(table, random.Random(players))
    refused(table, RevealSeed(bytes(32).hex()), Violation.INVALID_OPTIONS)
    refused(table, RevealSeed(SEED.hex().upper()), Violation.INVALID_OPTIONS)
    assert table.do(RevealSeed(SEED.hex())) == (SeedRevealed(SEED.hex()),)
    refused(table, RevealSeed(SEED.hex()), Violation.WRONG_PHASE)  # once
    view = observe(table.state, PUBLIC)
    assert view.fairness is not None and view.fairness.server_seed == SEED.hex()
    assert unfair_deal(table.events) is None
    assert fold(table.events) == table.state


def test_a_deal_that_is_not_the_seeds_is_found() -> None:
    table = fair_table(3)
    play_out(table, random.Random(7))
    table.do(RevealSeed(SEED.hex()))
    events: list[Event] = list(table.events)
    at = next(i for i, e in enumerate(events) if isinstance(e, RoundDealt))
    dealt = events[at]
    assert isinstance(dealt, RoundDealt)
    swapped = (dealt.hands[1], dealt.hands[0], *dealt.hands[2:])
    events[at] = replace(dealt, hands=swapped)
    assert unfair_deal(events) == (at, "round 1 is not the deal of the revealed seed")


def test_a_game_of_unknown_fairness_is_not_checked() -> None:
    table = Table()
    table.do(CreateGame(3, Scoring.BASIC, seed=4))
    assert observe(table.state, PUBLIC).fairness.algorithm == "operator"  # type: ignore[union-attr]
    assert unfair_deal(table.events) is None
    unfair = Table()
    unfair.do(CreateGame(3, Scoring.BASIC))
    assert observe(unfair.state, PUBLIC).fairness.algorithm == "unverified"  # type: ignore[union-attr]
    refused(unfair, RevealSeed(SEED.hex()), Violation.WRONG_PHASE)


def test_each_card_lands_in_each_hand_about_equally_often() -> None:
    """Statistical sanity of fair deals: over 2,000 deals with fixed seeds, the seat that
    gets a card (or the trump position) passes a chi-square test for every card."""
    config = GameConfig(4, Scoring.BASIC, Variant.STANDARD)
    counts: dict[str, Counter[int]] = {c.id: Counter() for c in config.deck}
    deals = 2000
    for n in range(deals):
        seed = hashlib.sha256(n.to_bytes(4, "big")).digest()
        dealt: DealRound = fair_deal(config, seed, 1, CLIENTS)
        for seat, hand in enumerate(dealt.hands):
            for c in hand:
                counts[c.id][seat] += 1
        assert dealt.trump is not None
        counts[dealt.trump.id][4] += 1
    # Where a card goes: seat s with chance 12/49, the trump with 1/49.
    expected = [deals * 12 / 49] * 4 + [deals / 49]
    worst = 0.0
    for card_id, got in counts.items():
        chi2 = sum((got[k] - e) ** 2 / e for k, e in enumerate(expected))
        worst = max(worst, chi2)
        # 4 degrees of freedom: P(chi2 > 25) is about 5e-5 for a fair deal.
        assert chi2 < 25, f"{card_id}: {dict(got)}, chi2 {chi2:.1f}"
    assert worst > 0  # the deals differ


def test_a_fair_games_state_round_trips_its_seeds_through_a_snapshot() -> None:
    state: GameState = fair_table().state
    assert state_from_snapshot(snapshot_of(state)) == state


def test_a_reveal_in_a_history_must_match_its_commitment() -> None:
    table = fair_table(3)
    play_out(table, random.Random(3))
    assert replay_checked([*table.events, SeedRevealed(SEED.hex())]).server_seed == SEED.hex()
    history = [*table.events, SeedRevealed(bytes(32).hex())]
    with pytest.raises(HistoryError) as caught:
        replay_checked(history)
    assert caught.value.index == len(table.events)


DOC = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"


def test_the_worked_example_of_docs_fairness_md_is_what_the_code_deals() -> None:
    seed = bytes(range(32))
    clients = ("alice", "bob", "carol")
    message = fair_message(1, clients)
    words = random_words(seed, message)
    config = GameConfig(3, Scoring.BASIC, Variant.STANDARD)
    dealt = fair_deal(config, seed, 1, clients)
    text = " ".join(DOC.read_text().split())  # the doc wraps lines
    assert hashlib.sha256(seed).hexdigest() in text
    assert message.hex() in text
    assert hmac.digest(seed, message + bytes(8), hashlib.sha256).hex() in text
    assert ", ".join(str(next(words)) for _ in range(3)) in text
    for seat, hand in enumerate(dealt.hands):
        assert f"seat {seat}: " + " ".join(c.id for c in hand) in text
    assert dealt.trump is not None and f"trump card: {dealt.trump.id}" in text
