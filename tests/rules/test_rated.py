"""Rated games (issue 30; docs/api.md "Ratings, profiles and leaderboards"): what the
rules know of them is who may sit (a player, named in the join, or a bot) and that the
shuffles are no one's choice (no seed, no preset deals)."""

from __future__ import annotations

import pytest

from service.rules import (
    STANDARD_DECK,
    BotLevel,
    CreateGame,
    DealRound,
    JoinSeat,
    PassCards,
    PlayCard,
    PublicViewer,
    RuleViolationError,
    Scoring,
    SeatViewer,
    Variant,
    Violation,
    card,
    decide,
    fold,
    observe,
    replay_checked,
)
from service.rules.events import Event, GameCreated, SeatJoined, from_data, to_data


def created(**options: object) -> list[Event]:
    command = CreateGame(3, Scoring.BASIC, Variant.STANDARD, rated=True, **options)  # type: ignore[arg-type]
    return list(decide(fold([]), command))


def refused(events: list[Event], command: object) -> Violation:
    with pytest.raises(RuleViolationError) as caught:
        decide(fold(events), command)  # type: ignore[arg-type]
    return caught.value.code


def test_a_rated_game_takes_no_seed_and_no_deals() -> None:
    with pytest.raises(RuleViolationError) as caught:
        created(seed=7)
    assert caught.value.code is Violation.INVALID_OPTIONS


def test_a_rated_game_is_recorded_and_shown_rated_and_an_unrated_one_as_always() -> None:
    event = created()[0]
    assert isinstance(event, GameCreated) and event.rated
    assert to_data(event)["rated"] is True
    assert from_data("GameCreated", to_data(event)) == event
    unrated = decide(fold([]), CreateGame(3, Scoring.BASIC))[0]
    assert "rated" not in to_data(unrated)  # the data of unrated games is as it always was
    assert observe(fold(created()), PublicViewer()).rated
    assert not observe(fold([unrated]), PublicViewer()).rated


def test_a_rated_game_s_seats_are_for_players_and_bots_and_every_join_names_its_player() -> None:
    events = created()
    assert refused(events, JoinSeat(0, "Anonymous")) is Violation.PLAYERS_ONLY
    events += decide(fold(events), JoinSeat(0, "Mio", player="player-mio"))
    events += decide(fold(events), JoinSeat(1, "Basic bot", bot=BotLevel.BASIC))
    joined = [e for e in events if isinstance(e, SeatJoined)]
    assert [j.player for j in joined] == ["player-mio", None]
    events += decide(fold(events), JoinSeat(2, "Ren", player="player-ren"))
    assert replay_checked(events) == fold(events)  # the joins' players replay as recorded
    seats = observe(fold(events), PublicViewer()).seats
    assert [s.player_id for s in seats] == ["player-mio", None, "player-ren"]


def test_an_unrated_game_records_no_player_for_a_seat_kept_for_nobody() -> None:
    events = list(decide(fold([]), CreateGame(3, Scoring.BASIC)))
    joined = decide(fold(events), JoinSeat(0, "Mio", player="player-mio"))[0]
    assert isinstance(joined, SeatJoined) and joined.player is None


def test_a_seat_s_player_stays_recorded_through_the_passes_and_plays() -> None:
    """docs/api.md: clients show ratings next to names with a seat's `player_id`, so it
    holds for the whole game, not only until the first card."""
    events = created()
    for seat in range(3):
        events += decide(fold(events), JoinSeat(seat, f"P{seat}", player=f"player-{seat}"))
    deck = STANDARD_DECK
    hands = tuple(tuple(deck[s * 16 : (s + 1) * 16]) for s in range(3))
    events += decide(fold(events), DealRound(hands, deck[-1]))
    for seat in range(3):
        hand = observe(fold(events), SeatViewer(seat)).hand
        events += decide(fold(events), PassCards(seat, tuple(card(c) for c in hand[:3])))
    for _ in range(4):  # a trick and the next one's first card
        state = fold(events)
        turn = state.turn()
        assert turn is not None
        legal = observe(state, SeatViewer(turn)).legal
        events += decide(state, PlayCard(turn, card(legal[0])))
        seats = observe(fold(events), PublicViewer()).seats
        assert [s.player_id for s in seats] == ["player-0", "player-1", "player-2"]
    assert replay_checked(events) == fold(events)
