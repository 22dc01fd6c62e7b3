"""The event codec: ``to_data``/``from_data`` (docs/architecture.md, Event sourcing).

Every event type round-trips through its stored JSON, redacted copies (hidden fields
``None``) included; stored data that does not decode raises :class:`EventDataError`,
and card ids the decks do not have are reported as unknown cards.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import field, fields, make_dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.bots.selfplay import play_game
from service.rules import (
    OPERATOR,
    PUBLIC,
    SEVEN_FOLLOWERS_DECK,
    BotLevel,
    Card,
    Event,
    EventDataError,
    FairShuffle,
    OnTimeout,
    PresetDeal,
    RoundEndReason,
    Scoring,
    SeatViewer,
    Suit,
    TurnClock,
    UnknownCardError,
    Variant,
    Visibility,
    card,
    fold,
    from_data,
    observe,
    redact,
    to_data,
)
from service.rules.events import (
    EVENT_TYPES,
    CardPlayed,
    CardsPassed,
    GameCreated,
    GameEnded,
    GameExpired,
    PassedCard,
    PassesExchanged,
    Rematched,
    RoundDealt,
    RoundEnded,
    SeatDeclined,
    SeatErased,
    SeatJoined,
    SeatLeft,
    SeatResigned,
    SeedRevealed,
    SuitSealed,
    TrickTaken,
    TurnTimedOut,
)
from service.rules.fieldcodec import record

JSON = dict[str, Any]


def stored(event: Event) -> JSON:
    """The data as it comes back from a JSON column."""
    data: JSON = json.loads(json.dumps(to_data(event)))
    return data


def roundtrip(event: Event) -> Event:
    return from_data(event.TYPE, stored(event))


def game_events(players: int, variant: Variant, seed: int) -> list[Event]:
    return [
        e
        for step in play_game(players, Scoring.ADVANCED, variant, rng=random.Random(seed))
        for e in step.events
    ]


@pytest.fixture(
    scope="module",
    params=[
        (3, Variant.STANDARD, 1),
        (4, Variant.STANDARD, 2),
        (4, Variant.SEVEN_FOLLOWERS_SHORT, 3),
    ],
    ids=["3p", "4p", "sf-short"],
)
def real_game(request: pytest.FixtureRequest) -> list[Event]:
    players, variant, seed = request.param
    return game_events(players, variant, seed)


c = card

# One hand-made event of every type, with every optional field in use.
SAMPLES: list[Event] = [
    GameCreated(4, Scoring.BASIC, Variant.STANDARD),
    GameCreated(
        4,
        Scoring.ADVANCED,
        Variant.STANDARD,
        seed=2**40 + 7,
        deals=(
            PresetDeal(
                tuple(tuple(SEVEN_FOLLOWERS_DECK[0:56:7][:2]) for _ in range(4)), c("blue-13")
            ),
        ),
    ),
    GameCreated(
        4,
        Scoring.BASIC,
        Variant.SEVEN_FOLLOWERS,
        seed=0,
        deals=(PresetDeal(((c("green-7b"),), (c("red-7"),), (), ()), None),),
    ),
    SeatJoined(2, 'Ayumi ✿ "quoted" \\ name'),
    RoundDealt(1, ((c("green-1"), c("blue-13")), (c("green-7b"),), (), ()), c("pink-9")),
    RoundDealt(2, ((c("green-1"),), (c("red-7b"),), (), ()), None),
    CardsPassed(3, (c("red-6"), c("red-7b"), c("black-11"))),
    PassesExchanged(
        (PassedCard(0, 2, c("green-1")), PassedCard(1, 2, c("blue-7b")), PassedCard(2, 0, None)),
        leader=2,
    ),
    CardPlayed(1, c("yellow-10")),
    CardPlayed(0, c("purple-7b")),
    TrickTaken(12, 3),
    SuitSealed(1, Suit.BLACK),
    RoundEnded(1, RoundEndReason.BOSSES, (0,), (4, 0), (c("red-7"), c("blue-7"))),
    RoundEnded(2, RoundEndReason.SEVEN_TRICKS, (0, 2), (3, 0, 3), ()),
    RoundEnded(3, RoundEndReason.LAST_TRICK, (1,), (0, 1), (c("green-7"),)),
    RoundEnded(1, RoundEndReason.ALL_TRICKS, (0, 1), (1, 2), (c("pink-7"), c("pink-7b"))),
    RoundEnded(4, RoundEndReason.SEALED, (1,), (0, 1), (c("blue-7"), c("blue-7b"))),
    GameEnded((2,)),
    # Clocks, bots, leaving, timing out and resigning.
    GameCreated(3, Scoring.BASIC, Variant.STANDARD, clock=TurnClock(60, OnTimeout.FORFEIT)),
    SeatJoined(1, "Bot (basic)", BotLevel.BASIC),
    SeatLeft(3, BotLevel.BASIC),
    TurnTimedOut(0, OnTimeout.AUTOPLAY),
    SeatResigned(2),
    SeatErased(1),
    RoundEnded(2, RoundEndReason.FORFEIT, (1,), (0, 0), ()),
    RoundEnded(1, RoundEndReason.RESIGN, (), (0, 0, 0), ()),
    # Provably fair games (docs/fairness.md).
    GameCreated(4, Scoring.BASIC, Variant.STANDARD, fairness=FairShuffle("ab" * 32, "v1.k.n.c")),
    SeatJoined(0, "Mio", None, "any printable ASCII ~"),
    SeatJoined(2, "Bot (basic)", BotLevel.BASIC, "0123abcd"),
    SeedRevealed("cd" * 32),
    GameExpired(),
    # Public games and invitations (issue 29).
    GameCreated(
        3,
        Scoring.BASIC,
        Variant.STANDARD,
        visibility=Visibility.PUBLIC,
        reserved=(None, "00000000-0000-0000-0000-00000000000a", None),
    ),
    SeatJoined(1, "Mio", player="00000000-0000-0000-0000-00000000000a"),
    SeatDeclined(2, "00000000-0000-0000-0000-00000000000b"),
    Rematched("00000000-0000-0000-0000-00000000000c"),
    # Rated games (issue 30).
    GameCreated(4, Scoring.BASIC, Variant.STANDARD, fairness=FairShuffle("ef" * 32), rated=True),
]


def test_the_samples_cover_every_event_type() -> None:
    assert {e.TYPE for e in SAMPLES} == EVENT_TYPES
    assert {type(e).__name__ for e in SAMPLES} == EVENT_TYPES


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_every_event_type_round_trips(event: Event) -> None:
    data = to_data(event)
    assert stored(event) == data, "the data is plain JSON"
    assert roundtrip(event) == event


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(
    "viewer", [SeatViewer(0), SeatViewer(2), PUBLIC, OPERATOR], ids=["seat0", "seat2", "pub", "op"]
)
def test_redacted_copies_round_trip(event: Event, viewer: SeatViewer) -> None:
    red = redact(event, viewer)
    assert roundtrip(red) == red


def test_redacted_copies_with_none_fields_round_trip() -> None:
    hidden: list[Event] = [
        RoundDealt(1, (None, (c("green-1"),), None, None), c("blue-13")),
        RoundDealt(1, (None, None, None), None),
        CardsPassed(0, None),
        PassesExchanged((PassedCard(0, 2, None), PassedCard(1, 3, None)), leader=0),
        GameCreated(3, Scoring.ADVANCED, Variant.STANDARD, seed=None, deals=None),
    ]
    for event in hidden:
        assert "null" in json.dumps(stored(event))
        assert roundtrip(event) == event


def test_a_real_game_round_trips_and_replays_to_the_same_state(real_game: list[Event]) -> None:
    events = real_game
    decoded = [roundtrip(e) for e in events]
    assert decoded == events
    assert fold(decoded) == fold(events)
    for viewer in (SeatViewer(0), SeatViewer(1), PUBLIC):
        redacted = [redact(e, viewer) for e in events]
        assert [roundtrip(e) for e in redacted] == redacted


# --- arbitrary events -----------------------------------------------------------------

cards = st.sampled_from(SEVEN_FOLLOWERS_DECK)
card_tuples = st.lists(cards, max_size=16).map(tuple)
small = st.integers(0, 20)
hidden_hands = st.lists(st.none() | card_tuples, min_size=3, max_size=4).map(tuple)

events_strategy: st.SearchStrategy[Event] = st.one_of(
    st.builds(
        GameCreated,
        st.sampled_from([3, 4]),
        st.sampled_from(Scoring),
        st.sampled_from(Variant),
        st.none() | st.integers(0, 2**63),
        st.none()
        | st.lists(
            st.builds(
                PresetDeal,
                st.lists(card_tuples, min_size=3, max_size=4).map(tuple),
                st.none() | cards,
            ),
            max_size=3,
        ).map(tuple),
    ),
    st.builds(SeatJoined, small, st.text(max_size=30)),
    st.builds(RoundDealt, small, hidden_hands, st.none() | cards),
    st.builds(CardsPassed, small, st.none() | card_tuples),
    st.builds(
        PassesExchanged,
        st.lists(st.builds(PassedCard, small, small, st.none() | cards), max_size=12).map(tuple),
        small,
    ),
    st.builds(CardPlayed, small, cards),
    st.builds(TrickTaken, small, small),
    st.builds(SuitSealed, st.sampled_from([0, 1]), st.sampled_from(Suit)),
    st.builds(
        RoundEnded,
        small,
        st.sampled_from(RoundEndReason),
        st.lists(small, max_size=3).map(tuple),
        st.lists(small, max_size=3).map(tuple),
        card_tuples,
    ),
    st.builds(GameEnded, st.lists(small, max_size=3).map(tuple)),
)


@settings(max_examples=300, deadline=None)
@given(event=events_strategy)
def test_any_event_round_trips_through_json(event: Event) -> None:
    assert roundtrip(event) == event
    for viewer in (SeatViewer(0), PUBLIC):
        red = redact(event, viewer)
        assert roundtrip(red) == red


# --- malformed data -------------------------------------------------------------------

# Fields the decoder treats as optional (the dealing plan may be absent).
OPTIONAL = {
    ("GameCreated", "seed"),
    ("GameCreated", "deals"),
    ("GameCreated", "clock"),
    ("SeatJoined", "bot"),
    ("GameCreated", "fairness"),  # absent: not a fair game
    ("SeatJoined", "client_seed"),
    ("GameCreated", "visibility"),  # absent: private
    ("GameCreated", "reserved"),  # absent: no seat reserved
    ("SeatJoined", "player"),  # absent: the seat was reserved for nobody
    ("GameCreated", "rated"),  # absent: unrated
}


def test_an_unknown_event_type_is_refused() -> None:
    with pytest.raises(EventDataError):
        from_data("CardDrawn", {"seat": 0, "card": "green-1"})


@pytest.mark.parametrize("event", SAMPLES, ids=lambda e: type(e).__name__)
def test_data_missing_a_field_is_refused(event: Event) -> None:
    data = stored(event)
    for key in data:
        if (event.TYPE, key) in OPTIONAL:
            continue
        broken = {k: v for k, v in data.items() if k != key}
        with pytest.raises(EventDataError):
            from_data(event.TYPE, broken)


@pytest.mark.parametrize("event_type", sorted(EVENT_TYPES))
@pytest.mark.parametrize("data", [None, [], "green-1", 7], ids=["null", "list", "str", "int"])
def test_data_that_is_not_an_object_is_refused(event_type: str, data: object) -> None:
    with pytest.raises(EventDataError):
        from_data(event_type, data)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("event_type", "data"),
    [
        ("GameCreated", {"players": 4, "scoring": "expert", "variant": "standard"}),
        ("GameCreated", {"players": 4, "scoring": "basic", "variant": "eight_followers"}),
        ("SuitSealed", {"team": 0, "suit": "orange"}),
        (
            "RoundEnded",
            {"number": 1, "reason": "boredom", "winners": [0], "points": [1], "bosses_scored": []},
        ),
        ("PassesExchanged", {"passes": None, "leader": 0}),
        ("PassesExchanged", {"passes": [{"from": 0, "to": 2}], "leader": 0}),
        ("RoundDealt", {"number": 1, "hands": None, "trump": "blue-13"}),
        ("GameEnded", {"winners": 3}),
        ("GameCreated", {"players": 4, "scoring": "basic", "variant": "standard", "deals": [{}]}),
        ("GameCreated", {"players": 4, "scoring": "basic", "variant": "standard", "deals": [7]}),
        ("GameCreated", {"players": 4, "scoring": "basic", "variant": "standard", "clock": [60]}),
        ("PassesExchanged", {"passes": ["green-1"], "leader": 0}),
    ],
)
def test_malformed_values_are_refused(event_type: str, data: JSON) -> None:
    with pytest.raises(EventDataError):
        from_data(event_type, data)


@pytest.mark.parametrize(
    ("event_type", "data"),
    [
        ("CardPlayed", {"seat": "north", "card": "green-1"}),
        ("CardPlayed", {"seat": 1, "card": 5}),
        ("CardPlayed", {"seat": 1, "card": None}),
        ("TrickTaken", {"number": "1", "winner": None}),
        ("SeatJoined", {"seat": 0, "name": 5}),
        ("GameEnded", {"winners": "01"}),
        ("GameCreated", {"players": "4", "scoring": "basic", "variant": "standard"}),
        ("PassesExchanged", {"passes": [], "leader": None}),
        (
            "RoundEnded",
            {"number": 1, "reason": "bosses", "winners": "0", "points": "4", "bosses_scored": []},
        ),
        ("TrickTaken", {"number": True, "winner": 0}),
        ("SeatLeft", {"seat": 0, "bot": 1}),
        ("GameCreated", {"players": 4, "scoring": "basic", "variant": "standard", "rated": 1}),
        ("GameCreated", {"players": 4, "scoring": "basic", "variant": "standard", "rated": "no"}),
        (
            "GameCreated",
            {"players": 4, "scoring": "basic", "variant": "standard", "visibility": None},
        ),
        (
            "GameCreated",
            {"players": 4, "scoring": "basic", "variant": "standard", "reserved": [None, 3]},
        ),
        (
            "GameCreated",
            {"players": 3, "scoring": "basic", "variant": "standard", "fairness": {"sealed": "x"}},
        ),
        ("SeatJoined", {"seat": 0, "name": "Mio", "client_seed": 5}),
    ],
)
def test_values_of_the_wrong_type_are_refused(event_type: str, data: JSON) -> None:
    with pytest.raises(EventDataError):
        from_data(event_type, data)


# --- unknown cards --------------------------------------------------------------------


@pytest.mark.parametrize("card_id", ["green-0", "green-8", "blue-14", "red-7c", "Green-1", ""])
def test_R_1_4_unknown_card_ids_raise_unknown_card_error(card_id: str) -> None:
    with pytest.raises(UnknownCardError) as info:
        card(card_id)
    assert info.value.card_id == card_id


def test_R_1_4_R_7_1_every_card_id_names_its_card() -> None:
    assert len(SEVEN_FOLLOWERS_DECK) == 56
    assert len({x.id for x in SEVEN_FOLLOWERS_DECK}) == 56
    for x in SEVEN_FOLLOWERS_DECK:
        assert card(x.id) is x


def with_card(event: Event, path: tuple[str | int, ...], card_id: object) -> tuple[str, JSON]:
    data = copy.deepcopy(stored(event))
    target: Any = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = card_id
    return event.TYPE, data


UNKNOWN_CARD_CASES: list[tuple[str, JSON]] = [
    with_card(CardPlayed(1, c("yellow-10")), ("card",), "yellow-3"),
    with_card(CardsPassed(3, (c("red-6"), c("red-7"), c("red-8"))), ("cards", 1), "red-7c"),
    with_card(SAMPLES[4], ("hands", 0, 1), "blue-14"),
    with_card(SAMPLES[4], ("trump",), "pink-2"),
    with_card(SAMPLES[7], ("passes", 0, "card"), "green-0"),
    with_card(SAMPLES[1], ("deals", 0, "trump"), "joker"),
    with_card(SAMPLES[1], ("deals", 0, "hands", 2, 0), "black-12"),
    with_card(SAMPLES[12], ("bosses_scored", 0), "red-77"),
]


@pytest.mark.parametrize(("event_type", "data"), UNKNOWN_CARD_CASES)
def test_unknown_card_ids_in_stored_data_are_refused(event_type: str, data: JSON) -> None:
    with pytest.raises(EventDataError) as info:
        from_data(event_type, data)
    assert isinstance(info.value.__cause__, UnknownCardError), info.value.__cause__


def test_event_data_error_is_a_value_error() -> None:
    assert issubclass(EventDataError, ValueError)
    assert issubclass(UnknownCardError, ValueError)


def test_cards_decode_to_the_interned_cards() -> None:
    event = roundtrip(CardPlayed(0, c("green-7b")))
    assert isinstance(event, CardPlayed)
    assert event.card is c("green-7b")
    decoded: Card = event.card
    assert decoded.is_boss and decoded.rank == 7


def test_a_games_visibility_is_stored_only_when_public() -> None:
    """Issue 29: a private game's GameCreated data is as it always was (so stored events
    and their chain hashes are unchanged); a public one says so, and views show it."""
    private = GameCreated(4, Scoring.BASIC, Variant.STANDARD)
    public = GameCreated(4, Scoring.BASIC, Variant.STANDARD, visibility=Visibility.PUBLIC)
    assert "visibility" not in to_data(private)
    assert to_data(public)["visibility"] == "public"
    for event in (private, public):
        assert from_data("GameCreated", to_data(event)) == event
    state = fold([public])
    assert observe(state, PUBLIC).visibility == "public"
    assert observe(fold([private]), PUBLIC).visibility == "private"


# --- the codec derived from the fields (service/rules/fieldcodec.py) ---------------------


def test_a_field_equal_to_its_default_is_not_written_unless_it_always_was() -> None:
    """The dealing plan was always written, null or not; every later field only when it
    is not its default, so the data of events without it stays as it was."""
    assert to_data(GameCreated(4, Scoring.BASIC, Variant.STANDARD)) == {
        "players": 4,
        "scoring": "basic",
        "variant": "standard",
        "seed": None,
        "deals": None,
    }
    assert to_data(SeatJoined(1, "Mio")) == {"seat": 1, "name": "Mio"}
    assert to_data(SeatJoined(1, "Bot", BotLevel.BASIC))["bot"] == "basic"
    rated = to_data(GameCreated(4, Scoring.BASIC, Variant.STANDARD, rated=True))
    assert list(rated)[-1] == "rated" and rated["rated"] is True
    sealed = FairShuffle("ab" * 32, None)
    assert to_data(GameCreated(4, Scoring.BASIC, Variant.STANDARD, fairness=sealed))[
        "fairness"
    ] == {"commitment": "ab" * 32}


def test_a_field_may_be_stored_under_another_key() -> None:
    data = to_data(PassesExchanged((PassedCard(0, 2, c("green-1")),), leader=1))
    assert data == {"passes": [{"from": 0, "to": 2, "card": "green-1"}], "leader": 1}


@pytest.mark.parametrize(
    "hint",
    [float, list[int], dict[str, int], tuple[int, int], int | str, Card | None | int],
    ids=str,
)
def test_a_field_type_without_a_stored_form_is_refused_when_declared(hint: object) -> None:
    holder = make_dataclass("Holder", [("value", hint)], frozen=True)
    with pytest.raises(TypeError):
        record(holder)


def test_a_field_with_a_default_factory_is_refused_when_declared() -> None:
    holder = make_dataclass(
        "Holder", [("value", tuple[int, ...], field(default_factory=tuple))], frozen=True
    )
    with pytest.raises(TypeError):
        record(holder)


def test_each_record_is_compiled_once_with_its_fields_in_order() -> None:
    created = record(GameCreated)
    assert record(GameCreated) is created
    assert [s.name for s in created.slots] == [f.name for f in fields(GameCreated)]
    assert [s.key for s in record(PassedCard).slots] == ["from", "to", "card"]
    assert {s.name for s in created.slots if s.always_written} == {
        "players",
        "scoring",
        "variant",
        "seed",
        "deals",
    }
