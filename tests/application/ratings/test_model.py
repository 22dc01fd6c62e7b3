"""What a finished rated game does to ratings (service/application/ratings/model.py):
ladders, how sides rank (score, the winners first, a resign or forfeit last), and the
openskill update, teams of two with four players."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from uuid import UUID, uuid4

import pytest
from openskill.models import PlackettLuce

from service.application.ratings import model
from service.rules import (
    BotLevel,
    CreateGame,
    GameState,
    JoinSeat,
    Scoring,
    Variant,
    decide,
    fold,
)
from service.rules.commands import Resign
from service.rules.events import Event
from tests.application.table import ordered_deal


def resigned(
    players: int, seat: int, ids: Sequence[UUID | BotLevel | None]
) -> tuple[GameState, list[Event]]:
    """A rated game of ``ids`` (a bot of the level given, basic where an id is None)
    ended by ``seat``'s resign."""
    events: list[Event] = list(
        decide(fold([]), CreateGame(players, Scoring.BASIC, Variant.STANDARD, rated=True))
    )
    for s, who in enumerate(ids):
        join = (
            JoinSeat(s, "P", player=str(who))
            if isinstance(who, UUID)
            else JoinSeat(s, "Bot", bot=who or BotLevel.BASIC)
        )
        events += decide(fold(events), join)
    events += decide(fold(events), ordered_deal(players))
    events += decide(fold(events), Resign(seat))
    return fold(events), events


def test_ladders_are_by_players_and_variant() -> None:
    assert model.ladder(3, Variant.STANDARD) == "standard-3p"
    assert model.ladder(4, Variant.STANDARD) == "standard-4p"
    assert model.ladder(4, Variant.SEVEN_FOLLOWERS) == "seven-followers"
    assert model.ladder(4, Variant.SEVEN_FOLLOWERS_SHORT) == "seven-followers"
    assert set(model.LADDERS) == {"standard-3p", "standard-4p", "seven-followers"}


def test_a_side_that_resigned_ranks_last_and_the_others_by_score() -> None:
    ids = [uuid4() for _ in range(3)]
    state, events = resigned(3, 1, ids)
    assert model.ranks(state, events) == [0, 1, 0]  # seats 0 and 2 tie (no score)
    scored = replace(state, scores=(2, 0, 5))
    assert model.ranks(scored, events) == [1, 2, 0]


def test_winners_come_first_when_scores_tie_and_ties_share_a_rank() -> None:
    ids = [uuid4() for _ in range(3)]
    state, events = resigned(3, 1, ids)
    played = [e for e in events if type(e).__name__ != "SeatResigned"]
    # A game ended by its scores (no resign): may break a tie of scores.
    assert model.ranks(replace(state, scores=(7, 7, 3), winners=(1,)), played) == [1, 0, 2]
    assert model.ranks(replace(state, scores=(7, 3, 3), winners=(0,)), played) == [0, 1, 1]


def test_four_players_are_rated_as_two_teams_by_openskill() -> None:
    ids = [uuid4() for _ in range(4)]
    state, events = resigned(4, 3, ids)  # team 1 (seats 1 and 3) resigned
    before = dict.fromkeys(ids, model.DEFAULT)
    before[ids[0]] = model.Rating(30.0, 5.0, 12)
    after = model.update(state, events, before)
    m = PlackettLuce()
    teams = [
        [m.rating(30.0, 5.0), m.rating(25.0, 25 / 3)],
        [m.rating(25.0, 25 / 3), m.rating(25.0, 25 / 3)],
    ]
    expected = m.rate(teams, ranks=[0.0, 1.0])
    assert (after[ids[0]].mu, after[ids[0]].sigma) == (expected[0][0].mu, expected[0][0].sigma)
    assert (after[ids[2]].mu, after[ids[2]].sigma) == (expected[0][1].mu, expected[0][1].sigma)
    assert (after[ids[1]].mu, after[ids[3]].mu) == (expected[1][0].mu, expected[1][1].mu)
    assert after[ids[0]].games == 13 and after[ids[1]].games == 1
    assert after[ids[0]].mu > 30.0 and after[ids[1]].mu < 25.0


def test_a_bot_rates_as_the_player_of_its_level() -> None:
    state, events = resigned(3, 0, [uuid4(), None, uuid4()])
    seated = model.seat_players(events)
    assert seated[1] == model.bot_player(BotLevel.BASIC)
    assert model.bot_player(BotLevel.BASIC) != model.bot_player(BotLevel.RANDOM)
    after = model.update(state, events, dict.fromkeys(seated.values(), model.DEFAULT))
    assert after[seated[0]].mu < 25.0 < after[seated[1]].mu


def test_a_bot_level_on_both_sides_is_not_rated_and_the_person_is_against_it() -> None:
    """Issue 44: a person beside a random bot against two random bots. The level would
    take the winners' update and the losers' at once; it keeps its rating, and the
    person is rated against the bots' ratings as they stood."""
    person, random = uuid4(), model.bot_player(BotLevel.RANDOM)
    state, events = resigned(4, 0, [person, BotLevel.RANDOM, BotLevel.RANDOM, BotLevel.RANDOM])
    before = {person: model.DEFAULT, random: model.Rating(20.0, 4.0, 30)}
    after = model.update(state, events, before)
    assert set(after) == {person}
    m = PlackettLuce()
    teams = [[m.rating(25.0, 25 / 3), m.rating(20.0, 4.0)], [m.rating(20.0, 4.0) for _ in "ab"]]
    expected = m.rate(teams, ranks=[1.0, 0.0])
    assert (after[person].mu, after[person].sigma) == (expected[0][0].mu, expected[0][0].sigma)
    assert after[person].games == 1


def test_a_bot_level_on_one_side_is_rated_once_with_its_team() -> None:
    """Two random bots as a team against two people: the level is rated (once), as the
    team's update gives it; a level on two sides of three is not."""
    a, b, random = uuid4(), uuid4(), model.bot_player(BotLevel.RANDOM)
    state, events = resigned(4, 0, [a, BotLevel.RANDOM, b, BotLevel.RANDOM])
    after = model.update(state, events, dict.fromkeys([a, b, random], model.DEFAULT))
    assert set(after) == {a, b, random}
    assert after[random].mu > 25.0 > after[a].mu and after[random].games == 1
    state, events = resigned(3, 0, [a, BotLevel.RANDOM, BotLevel.RANDOM])
    after = model.update(state, events, dict.fromkeys([a, random], model.DEFAULT))
    assert set(after) == {a}


@pytest.mark.parametrize(("games", "provisional"), [(0, True), (9, True), (10, False)])
def test_a_rating_is_provisional_for_its_first_ten_games(games: int, provisional: bool) -> None:
    rating = model.Rating(25.0, 25 / 3, games)
    assert rating.provisional is provisional
    assert rating.ordinal == pytest.approx(0.0)
