"""Hand records (docs/record-format.md) without a database: random games of every mode,
with leaves, timeouts and resignations, go to text and back and replay to the same
record; no record shows a viewer a card it may not see, at any point of a game."""

from __future__ import annotations

import hashlib
import json
import random
import re
from pathlib import Path

import pytest

from service import rules
from service.application.handrecords.build import build
from service.application.handrecords.model import HandRecord, RecordError
from service.application.handrecords.parse import parse
from service.application.handrecords.replay import mismatch, replay_of
from service.application.handrecords.text import to_text
from service.bots.random_bot import random_move
from service.bots.selfplay import to_command
from service.rules import (
    OPERATOR,
    PUBLIC,
    BotLevel,
    CreateGame,
    FairShuffle,
    GameState,
    JoinSeat,
    Leave,
    OnTimeout,
    Phase,
    Resign,
    RevealSeed,
    Scoring,
    SeatViewer,
    TimeOut,
    TurnClock,
    Variant,
    deal_due,
    decide,
    expected_action,
    fair_deal,
    fold,
    observe,
)
from service.rules.events import Event

MODES = [
    (3, Scoring.BASIC, Variant.STANDARD),
    (3, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
]
MODE_IDS = ["3p-basic", "3p-advanced", "4p-basic", "4p-advanced", "sf", "sf-short"]


def random_game(
    players: int, scoring: Scoring, variant: Variant, seed: int, *, fair: bool
) -> list[Event]:
    """A whole game of random moves, with now and then a seat leaving, a clock running
    out (autoplay) or, rarely, a resignation; dealt fairly or from an operator's seed."""
    rng = random.Random(seed)
    server_seed = hashlib.sha256(seed.to_bytes(4, "big")).digest()
    fairness = FairShuffle(hashlib.sha256(server_seed).hexdigest(), "sealed") if fair else None
    clock = TurnClock(60, OnTimeout.AUTOPLAY)
    events: list[Event] = []
    state = rules.INITIAL

    def do(command: rules.Command) -> None:
        nonlocal state
        new = decide(state, command)
        state = fold(new, state)
        events.extend(new)

    do(CreateGame(players, scoring, variant, None if fair else seed, None, clock, fairness))
    for seat in range(players):
        bot = BotLevel.RANDOM if seat == 1 else None
        do(JoinSeat(seat, f'p{seat} "{seed}"', bot, f"c{seat}~{seed}" if fair else None))
    while state.phase is not Phase.FINISHED:
        number = deal_due(state)
        assert state.config is not None
        if number is not None:
            if fair:
                seeds = tuple(s for s in state.client_seeds if s is not None)
                do(fair_deal(state.config, server_seed, number, seeds))
            else:
                do(
                    rules.deal_shuffled(
                        state.config, rng.randbytes(32), rules.round_message(number)
                    )
                )
            continue
        due = [s for s in range(players) if expected_action(state, s) is not None]
        people = [s for s in due if state.bots[s] is None]
        roll = rng.random()
        if people and roll < 0.01:
            do(Leave(rng.choice(people), BotLevel.BASIC))
        elif people and roll < 0.012:
            do(Resign(rng.choice(people)))
        elif roll < 0.05:  # as the worker does: the late seats, then their moves
            late = rng.sample(due, rng.randint(1, len(due)))
            do(TimeOut(tuple(late), OnTimeout.AUTOPLAY))
            for seat in late:
                if expected_action(state, seat) is not None:
                    move = random_move(observe(state, SeatViewer(seat)), rng)
                    assert move is not None
                    do(to_command(seat, move))
        else:
            seat = rng.choice(due)
            move = random_move(observe(state, SeatViewer(seat)), rng)
            assert move is not None
            do(to_command(seat, move))
    if fair:
        do(RevealSeed(server_seed.hex()))
    return events


def replayed(record: HandRecord) -> list[Event]:
    """The events of the rules' own commands for a record (the import, without a store)."""
    replay = replay_of(record)
    events: list[Event] = []
    state: GameState = rules.INITIAL
    commands: list[rules.Command] = [replay.create, *replay.joins]
    commands += [c for _, c in replay.moves]
    for command in commands:
        new = decide(state, command)
        state = fold(new, state)
        events.extend(new)
        while (number := deal_due(state)) is not None:
            preset = rules.preset_deal(state, number)
            assert preset is not None
            new = decide(state, rules.DealRound(preset.hands, preset.trump))
            state = fold(new, state)
            events.extend(new)
    if replay.reveal is not None:
        events.extend(decide(state, replay.reveal))
    return events


def record_of(events: list[Event], viewer: rules.Viewer = OPERATOR) -> HandRecord:
    return build(events, fold(events), viewer)


@pytest.mark.parametrize("fair", [True, False], ids=["fair", "operator"])
@pytest.mark.parametrize(("players", "scoring", "variant"), MODES, ids=MODE_IDS)
def test_a_record_goes_to_text_and_back_and_replays_to_the_same_record(
    players: int, scoring: Scoring, variant: Variant, fair: bool
) -> None:
    for seed in range(3):
        events = random_game(players, scoring, variant, seed, fair=fair)
        text = to_text(record_of(events))
        parsed = parse(text)
        assert to_text(parsed) == text
        again = replayed(parsed)
        assert to_text(record_of(again)) == text
        assert mismatch(parsed, record_of(again)) is None
        assert rules.unfair_deal(again) is None


def test_the_games_cover_every_kind_of_move() -> None:
    kinds: set[str] = set()
    for players, scoring, variant in MODES:
        for seed in range(3):
            record = record_of(random_game(players, scoring, variant, seed, fair=True))
            kinds |= {m.kind for r in record.rounds for m in r.moves}
    assert kinds == {"pass", "play", "leave", "resign", "timeout"}


def _hidden_shown(record: HandRecord, events: list[Event], me: int | None) -> list[str]:
    """Cards the record shows that the viewer (a seat, or the public) may not see."""
    bad = []
    for r in record.rounds:
        for seat, hand in enumerate(r.hands):
            if hand is not None and seat != me:
                bad.append(f"round {r.number}: the hand of seat {seat}")
        for m in r.moves:
            if m.kind == "pass" and m.seats[0] != me:
                shown = [c for c in m.cards if c is not None]
                assert record.players == 4 or record.variant == "standard"
                if shown and me is None:
                    bad.append(f"round {r.number}: the pass of seat {m.seats[0]}")
    return bad


@pytest.mark.parametrize(("players", "scoring", "variant"), MODES, ids=MODE_IDS)
def test_no_record_shows_a_viewer_a_card_it_may_not_see_until_the_end(
    players: int, scoring: Scoring, variant: Variant
) -> None:
    for seed in (11, 12):
        _check_every_point(random_game(players, scoring, variant, seed, fair=True), players)


def _check_every_point(events: list[Event], players: int) -> None:
    end = len(events) - 1
    while not isinstance(events[end], rules.events.GameEnded):
        end -= 1
    for cut in range(1, end + 1):  # every point of the game before its end
        part = events[:cut]
        state = fold(part)
        viewers: list[rules.Viewer] = [PUBLIC, *(SeatViewer(s) for s in range(players))]
        for viewer in viewers:
            record = build(part, state, viewer)
            me = viewer.seat if isinstance(viewer, SeatViewer) else None
            assert _hidden_shown(record, part, me) == [], (cut, viewer)
            text = to_text(record)
            assert "ServerSeed" not in text
            for r in record.rounds:  # received passes: only after the exchange, to me
                for m in r.moves:
                    if m.kind == "pass" and m.seats[0] != me and any(m.cards):
                        assert state.config is not None and me is not None
                        targets = state.config.pass_targets(m.seats[0])
                        assert all(c is None or targets[k] == me for k, c in enumerate(m.cards))
    finished = record_of(events, PUBLIC)
    assert all(h is not None for r in finished.rounds for h in r.hands)


def _refusal(text: str) -> RecordError:
    with pytest.raises(RecordError) as caught:
        replay_of(parse(text))
    return caught.value


@pytest.fixture(scope="module")
def good() -> str:
    events = random_game(4, Scoring.BASIC, Variant.STANDARD, 5, fair=False)
    return to_text(record_of(events))


def _line_of(text: str, prefix: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(prefix))


def test_text_that_is_not_a_record_is_refused_at_its_first_line() -> None:
    assert _refusal("hello\n").line == 1
    assert _refusal("").line == 1


def test_an_unknown_card_is_named_with_its_line(good: str) -> None:
    line = _line_of(good, "Deal 2:")
    lines = good.splitlines()
    lines[line - 1] = re.sub(r"Deal 2: \S+", "Deal 2: green-99", lines[line - 1])
    error = _refusal("\n".join(lines))
    assert (error.line, "green-99" in error.reason) == (line, True)


def test_a_truncated_record_is_refused(good: str) -> None:
    lines = good.splitlines()
    cut = "\n".join(line for line in lines if not line.startswith("[Status"))
    assert "Status" in _refusal(cut).reason
    unfinished = good.replace('[Status "finished"]', '[Status "playing"]')
    assert _refusal(unfinished).line == _line_of(good, "[Status")


def test_a_hidden_card_cannot_be_imported(good: str) -> None:
    line = _line_of(good, "Deal 1:")
    lines = good.splitlines()
    lines[line - 1] = "Deal 1: ?"
    assert _refusal("\n".join(lines)).line == line


def test_the_worked_examples_of_docs_record_format_md_replay() -> None:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "record-format.md").read_text()
    examples = re.findall(r"```text\n(\[Format.*?)```", doc, flags=re.S)
    assert len(examples) >= 2
    for text in examples:
        parsed = parse(text)
        again = replayed(parsed)
        assert to_text(record_of(again)) == text


@pytest.mark.parametrize("name", ["", "x" * 41, "tab\there", "   "])
def test_a_seat_name_a_join_would_refuse_is_refused(good: str, name: str) -> None:
    line = _line_of(good, "[Seat2 ")
    lines = good.splitlines()
    lines[line - 1] = f"[Seat2 {json.dumps(name)}]"
    assert _refusal("\n".join(lines)).line == line


@pytest.mark.parametrize("name", ["x" * 40, "a\u0378b", " Mio "])
def test_a_seat_name_a_join_takes_is_imported(good: str, name: str) -> None:
    """The import checks names with the join's own rule (identity/names.py): a code point
    Unicode 14 leaves unassigned (U+0378) is a name a join took, so its game's record
    imports too (str.isprintable, checked before, refused it: issue 27)."""
    line = _line_of(good, "[Seat2 ")
    lines = good.splitlines()
    lines[line - 1] = f"[Seat2 {json.dumps(name)}]"
    assert replay_of(parse("\n".join(lines))).joins[2].name == name
