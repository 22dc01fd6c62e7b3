"""Rated games (issue 30; docs/api.md "Ratings, profiles and leaderboards"): what the
rules know of them is who may sit (a player, named in the join, or a bot) and that the
shuffles are no one's choice (no seed, no preset deals)."""

from __future__ import annotations

import pytest

from service.rules import (
    BotLevel,
    CreateGame,
    JoinSeat,
    PublicViewer,
    RuleViolationError,
    Scoring,
    Variant,
    Violation,
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
