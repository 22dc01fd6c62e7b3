"""``replay_checked``: a recorded history is replayed only if every event is what the rules
make of the history before it; otherwise :class:`HistoryError` names the first bad event.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import FrozenInstanceError, fields, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.bots.selfplay import play_game
from service.rules import (
    INITIAL,
    Card,
    Event,
    GameState,
    HistoryError,
    Phase,
    Scoring,
    Variant,
    card,
    fold,
    replay_checked,
)
from service.rules.events import (
    CardPlayed,
    CardsPassed,
    GameCreated,
    GameEnded,
    PassesExchanged,
    RoundDealt,
    RoundEnded,
    SeatJoined,
    SuitSealed,
    TrickTaken,
)
from service.rules.playing import _with_round
from service.rules.state import RoundState, new_game_state, new_round_state

CONFIGS = [
    (3, Scoring.BASIC, Variant.STANDARD),
    (3, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.STANDARD),
    (4, Scoring.ADVANCED, Variant.STANDARD),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS),
    (4, Scoring.BASIC, Variant.SEVEN_FOLLOWERS_SHORT),
]
CONFIG_IDS = ["3-basic", "3-advanced", "4-basic", "4-advanced", "sf", "sf-short"]


def history(players: int, scoring: Scoring, variant: Variant, seed: int) -> list[Event]:
    rng = random.Random(seed)
    return [e for step in play_game(players, scoring, variant, rng=rng) for e in step.events]


def hand_before(events: list[Event], index: int, seat: int) -> tuple[Card, ...]:
    state = fold(events[:index])
    assert state.round is not None
    return state.round.hands[seat]


def first(events: list[Event], kind: type, after: int = 0) -> int:
    return next(i for i, e in enumerate(events) if i >= after and isinstance(e, kind))


def history_error(events: list[Event]) -> HistoryError:
    with pytest.raises(HistoryError) as info:
        replay_checked(events)
    error = info.value
    assert str(error).startswith(f"event {error.index}: ")
    assert error.reason
    return error


@pytest.fixture(scope="module")
def games() -> dict[str, list[Event]]:
    return {
        name: history(*config, seed=i)
        for i, (name, config) in enumerate(zip(CONFIG_IDS, CONFIGS, strict=True))
    }


# --- real histories -------------------------------------------------------------------


@pytest.mark.parametrize("name", CONFIG_IDS)
def test_a_real_history_replays_to_the_folded_state(
    games: dict[str, list[Event]], name: str
) -> None:
    events = games[name]
    state = replay_checked(events)
    assert state == fold(events)
    assert state.phase is Phase.FINISHED
    kinds = {type(e) for e in events}
    assert {GameCreated, SeatJoined, RoundDealt, CardsPassed, PassesExchanged} <= kinds
    assert {CardPlayed, TrickTaken, RoundEnded, GameEnded} <= kinds
    if name.startswith("sf"):
        assert SuitSealed in kinds


def test_an_empty_history_and_every_prefix_between_commands_replay(
    games: dict[str, list[Event]],
) -> None:
    events = games["4-basic"]
    assert replay_checked([]) == fold([])
    # Cut right before each event that starts a command.
    starts = [
        i
        for i, e in enumerate(events)
        if isinstance(e, GameCreated | SeatJoined | RoundDealt | CardsPassed | CardPlayed)
    ]
    for cut in starts[::7]:
        assert replay_checked(events[:cut]) == fold(events[:cut])


# --- tampered histories ---------------------------------------------------------------


def test_a_tampered_card_is_caught_where_it_is_played(games: dict[str, list[Event]]) -> None:
    events = games["4-advanced"]
    i = first(events, CardPlayed, after=len(events) // 3)
    played = events[i]
    assert isinstance(played, CardPlayed)
    hand = hand_before(events, i, played.seat)
    elsewhere = next(c for c in fold(events[:i]).config.deck if c not in hand)  # type: ignore[union-attr]
    tampered = [*events[:i], replace(played, card=elsewhere), *events[i + 1 :]]
    assert history_error(tampered).index == i


def test_a_card_that_does_not_follow_suit_is_caught(games: dict[str, list[Event]]) -> None:
    events = games["3-basic"]
    for i, e in enumerate(events):
        if not isinstance(e, CardPlayed):
            continue
        state = fold(events[:i])
        r = state.round
        assert r is not None
        if not r.trick:
            continue
        led = r.trick[0][1].suit
        off_suit = [c for c in r.hands[e.seat] if c.suit is not led]
        if e.card.suit is led and off_suit:
            tampered = [*events[:i], replace(e, card=off_suit[0]), *events[i + 1 :]]
            error = history_error(tampered)
            assert error.index == i
            assert "must_follow_suit" in error.reason
            return
    pytest.fail("no trick where a seat had to follow suit")  # pragma: no cover


@pytest.mark.parametrize("name", ["3-basic", "4-advanced", "sf"])
def test_R_4_3_a_wrong_trick_winner_is_caught(games: dict[str, list[Event]], name: str) -> None:
    events = games[name]
    i = first(events, TrickTaken, after=len(events) // 2)
    taken = events[i]
    assert isinstance(taken, TrickTaken)
    players = len(fold(events[:1]).names)
    for other in range(players):
        if other == taken.winner:
            continue
        tampered = [*events[:i], replace(taken, winner=other), *events[i + 1 :]]
        assert history_error(tampered).index == i


def test_a_wrong_round_end_is_caught(games: dict[str, list[Event]]) -> None:
    events = games["4-advanced"]
    i = first(events, RoundEnded)
    ended = events[i]
    assert isinstance(ended, RoundEnded)
    for tampered_event in (
        replace(ended, points=tuple(p + 1 for p in ended.points)),
        replace(ended, winners=tuple(1 - w for w in ended.winners)),
    ):
        tampered = [*events[:i], tampered_event, *events[i + 1 :]]
        assert history_error(tampered).index == i


@pytest.mark.parametrize("kind", [CardPlayed, TrickTaken, PassesExchanged, RoundEnded, RoundDealt])
def test_a_missing_event_is_caught_where_it_should_be(
    games: dict[str, list[Event]], kind: type
) -> None:
    events = games["4-basic"]
    i = first(events, kind, after=len(events) // 4)
    assert history_error([*events[:i], *events[i + 1 :]]).index == i


def test_R_3_2_a_missing_pass_is_caught_at_the_exchange(games: dict[str, list[Event]]) -> None:
    events = games["4-basic"]
    i = first(events, CardsPassed, after=len(events) // 4)
    shortened = [*events[:i], *events[i + 1 :]]
    # The other seats' passes still fit; the exchange cannot happen with a pass missing.
    exchange = first(shortened, PassesExchanged, after=i)
    assert history_error(shortened).index == exchange


def test_a_missing_last_event_is_caught(games: dict[str, list[Event]]) -> None:
    events = games["3-advanced"]
    assert isinstance(events[-1], GameEnded)
    error = history_error(events[:-1])
    assert error.index == len(events) - 1
    assert "GameEnded" in error.reason


def test_a_missing_event_at_the_start_is_caught(games: dict[str, list[Event]]) -> None:
    events = games["3-basic"]
    assert history_error(events[1:]).index == 0


EXTRA: list[tuple[str, Callable[[list[Event], int], Event]]] = [
    ("duplicate", lambda events, i: events[i]),
    ("trick", lambda events, i: TrickTaken(1, 0)),
    ("sealed", lambda events, i: SuitSealed(0, card("green-7").suit)),
    ("joined", lambda events, i: SeatJoined(0, "intruder")),
    ("created", lambda events, i: events[0]),
]


@pytest.mark.parametrize("make", [m for _, m in EXTRA], ids=[n for n, _ in EXTRA])
def test_an_extra_event_is_caught_where_it_is(
    games: dict[str, list[Event]], make: Callable[[list[Event], int], Event]
) -> None:
    events = games["4-advanced"]
    i = first(events, CardPlayed, after=len(events) // 2)
    extra = make(events, i)
    assert history_error([*events[: i + 1], extra, *events[i + 1 :]]).index == i + 1


def test_an_event_after_the_end_is_caught(games: dict[str, list[Event]]) -> None:
    events = games["sf-short"]
    last = events[first(events, CardPlayed)]
    for extra in (last, events[-1], TrickTaken(1, 0)):
        assert history_error([*events, extra]).index == len(events)


def test_events_the_rules_refuse_are_caught(games: dict[str, list[Event]]) -> None:
    events = games["4-basic"]
    # A pass of a card the seat does not hold.
    i = first(events, CardsPassed)
    passed = events[i]
    assert isinstance(passed, CardsPassed) and passed.cards is not None
    hand = hand_before(events, i, passed.seat)
    foreign = next(c for c in fold(events[:i]).config.deck if c not in hand)  # type: ignore[union-attr]
    bad_pass = replace(passed, cards=(foreign, *passed.cards[1:]))
    error = history_error([*events[:i], bad_pass, *events[i + 1 :]])
    assert error.index == i and "card_not_in_hand" in error.reason
    # A card played by a seat whose turn it is not.
    j = first(events, CardPlayed, after=len(events) // 2)
    played = events[j]
    assert isinstance(played, CardPlayed)
    wrong_seat = replace(played, seat=(played.seat + 1) % 4)
    error = history_error([*events[:j], wrong_seat, *events[j + 1 :]])
    assert error.index == j and "not_your_turn" in error.reason
    # A seat taken twice.
    error = history_error([*events[:2], events[1], *events[2:]])
    assert error.index == 2 and "seat_taken" in error.reason
    # A deal that is not a deal: a hand one card short.
    k = first(events, RoundDealt)
    dealt = events[k]
    assert isinstance(dealt, RoundDealt) and dealt.hands[0] is not None
    short = replace(dealt, hands=(dealt.hands[0][1:], *dealt.hands[1:]))
    error = history_error([*events[:k], short, *events[k + 1 :]])
    assert error.index == k and "invalid_deal" in error.reason


def test_a_redacted_history_is_not_a_history(games: dict[str, list[Event]]) -> None:
    events = games["3-basic"]
    i = first(events, CardsPassed)
    passed = events[i]
    assert isinstance(passed, CardsPassed)
    assert history_error([*events[:i], replace(passed, cards=None), *events[i + 1 :]]).index == i


# --- random tampering -----------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), config=st.sampled_from(CONFIGS), data=st.data())
def test_any_foreign_card_played_is_caught_where_it_is_played(
    seed: int, config: tuple[int, Scoring, Variant], data: st.DataObject
) -> None:
    events = history(*config, seed=seed)
    plays = [i for i, e in enumerate(events) if isinstance(e, CardPlayed)]
    i = data.draw(st.sampled_from(plays), label="tampered event")
    played = events[i]
    assert isinstance(played, CardPlayed)
    state: GameState = fold(events[:i])
    assert state.round is not None and state.config is not None
    foreign = [c for c in state.config.deck if c not in state.round.hands[played.seat]]
    other = data.draw(st.sampled_from(foreign), label="played instead")
    error = history_error([*events[:i], replace(played, card=other), *events[i + 1 :]])
    assert error.index == i


def test_a_new_round_state_keeps_every_other_field_of_the_game() -> None:
    """The hot path of replays builds the next GameState field by field (playing.py,
    _with_round): every field it does not mean to change must come through, including
    fields added later."""
    marks: dict[str, Any] = {f.name: f"field {f.name}" for f in fields(INITIAL)}
    marked = replace(INITIAL, **marks)
    new_round: Any = "new round"
    new_lead: Any = "new lead"
    made = _with_round(marked, new_round, new_lead)
    assert made.round is new_round and made.lead_holder is new_lead
    for f in fields(INITIAL):
        if f.name not in ("round", "lead_holder"):
            assert getattr(made, f.name) == getattr(marked, f.name), f.name


@pytest.mark.parametrize("cls", [RoundState, GameState], ids=lambda c: c.__name__)
def test_the_quick_state_builders_make_what_the_classes_make(cls: type[Any]) -> None:
    """state.py's builders set the slots themselves: the result must be the instance the
    class's own constructor makes, and as frozen. (Every replay test folds through
    them too.)"""
    build: Any = new_round_state if cls is RoundState else new_game_state
    values = [f"value {f.name}" for f in fields(cls)]
    made = build(*values)
    assert type(made) is cls
    assert made == cls(*values)
    assert [getattr(made, f.name) for f in fields(cls)] == values
    first = fields(cls)[0].name
    with pytest.raises(FrozenInstanceError):
        setattr(made, first, "changed")
    with pytest.raises(TypeError):
        build(*values[:-1])  # every field, always: no defaults are filled in
