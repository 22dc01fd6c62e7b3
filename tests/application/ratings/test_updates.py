"""Ratings updated by finished rated games through the handlers and the worker's step
(service/application/ratings/update.py), on the fakes: a finished rated game is queued by
its own command, rated once, in finish order; unrated games never change a rating; and a
rebuild over a few hundred random games ends with exactly the incremental values. The
store's locks (two workers, one player's two games at once) are PostgreSQL's:
tests/integration/test_rating_updates.py."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from uuid import UUID

from service.application.commands import BotSeat, CreateGame, JoinSeat, Leave, Resign
from service.application.identity.principals import PlayerHolder
from service.application.ratings import model
from service.application.ratings.ports import Stats
from service.application.ratings.update import rate_next, rebuild
from service.application.results import Created
from service.rules import BotLevel, Scoring
from tests.application.identity.test_players import player
from tests.application.table import Table, ordered_deal


def played(
    table: Table, who: Sequence[PlayerHolder | BotLevel], resigning: int, *, rated: bool = True
) -> UUID:
    """A game of ``who`` (seat by seat: a player, or a bot of the level) ended by
    ``resigning``'s resign."""
    bots = tuple(BotSeat(s, w) for s, w in enumerate(who) if isinstance(w, BotLevel))
    created = table.run(CreateGame(len(who), Scoring.BASIC, bots=bots, rated=rated))
    assert isinstance(created, Created)
    table.dealer.script.append(ordered_deal(len(who)))
    for seat, holder in enumerate(who):
        if isinstance(holder, PlayerHolder):
            table.run(JoinSeat(created.game_id, seat, None), holder)
    resigner = who[resigning]
    assert isinstance(resigner, PlayerHolder)
    table.run(Resign(created.game_id), table.deps.identity.in_game(resigner, created.game_id))
    table.clock.advance(timedelta(hours=48, seconds=1))  # past the resigner's ban
    return created.game_id


def test_a_finished_rated_game_is_rated_once_by_the_worker(table: Table) -> None:
    four = [player(table, n) for n in "ABCD"]
    game_id = played(table, four, 1)
    ids = [p.player_id for p in four]
    with table.deps.uow() as uow:
        assert uow.ratings.of(ids[0]) == {}  # not in the request: the worker's to do
        assert uow.ratings.due_at() is not None
    assert rate_next(table.deps) == game_id
    assert rate_next(table.deps) is None
    with table.deps.uow() as uow:
        assert uow.ratings.due_at() is None
        winners = [uow.ratings.of(ids[s])["standard-4p"] for s in (0, 2)]
        losers = [uow.ratings.of(ids[s])["standard-4p"] for s in (1, 3)]
        history = uow.ratings.history(ids[0], "standard-4p")
    assert all(r.mu > 25 and r.games == 1 for r in winners)
    assert all(r.mu < 25 for r in losers)
    assert [(h.game_id, h.before, h.after.mu) for h in history] == [
        (game_id, model.DEFAULT, winners[0].mu)
    ]


def test_unrated_games_change_no_rating(table: Table) -> None:
    three = [player(table, n) for n in "ABC"]
    played(table, three, 0, rated=False)
    assert rate_next(table.deps) is None
    with table.deps.uow() as uow:
        assert all(uow.ratings.of(p.player_id) == {} for p in three)


def test_games_are_rated_in_the_order_they_finished_and_histories_chain(table: Table) -> None:
    a, b, c, d = (player(table, n) for n in "ABCD")
    first = played(table, [a, b, c], 2)
    second = played(table, [c, a, d], 0)
    assert (rate_next(table.deps), rate_next(table.deps)) == (first, second)
    with table.deps.uow() as uow:
        history = uow.ratings.history(a.player_id, "standard-3p")
        now = uow.ratings.of(a.player_id)["standard-3p"]
    assert [h.game_id for h in history] == [first, second]
    assert history[1].before == history[0].after  # each entry starts where the last ended
    assert history[1].after == now and now.games == 2


def test_a_rebuild_of_random_games_ends_with_the_incremental_ratings(table: Table) -> None:
    chance = random.Random(30)
    pool = [player(table, f"P{i}") for i in range(9)]
    for _ in range(300):
        size = chance.choice((3, 4))
        who = chance.sample(pool, size)
        played(table, who, chance.randrange(size))
        if chance.random() < 0.5:  # the worker keeps up with some games, not all
            while rate_next(table.deps) is not None:
                pass
    while rate_next(table.deps) is not None:
        pass
    incremental = dict(table.db.ratings)
    histories = {k: list(v) for k, v in table.db.rating_history.items()}
    assert len(incremental) >= 18  # nine players, two ladders
    for key in table.db.ratings:  # what a rebuild must put right
        table.db.ratings[key] = model.Rating(0.0, 1.0, 0)
    for kept in table.db.rating_history.values():
        kept[:] = [replace(h, after=model.DEFAULT) for h in kept]
    assert rebuild(table.deps) == 300
    assert table.db.ratings == incremental  # exactly: the same floats
    assert {k: [(h.game_id, h.before, h.after) for h in v] for k, v in histories.items()} == {
        k: [(h.game_id, h.before, h.after) for h in v] for k, v in table.db.rating_history.items()
    }


def test_a_bot_level_on_both_sides_is_not_rated_and_a_rebuild_drops_such_updates(
    table: Table,
) -> None:
    """Issue 44: a person beside a random bot against two random bots rates the person
    only; a game where the level sits on one side rates it. A rebuild of updates made
    before ratings were for people (the level rated in the first game too) ends with the
    rule's values: its entry for that game gone, every other value the worker's."""
    a, b = player(table, "A"), player(table, "B")
    random, bot = BotLevel.RANDOM, model.bot_player(BotLevel.RANDOM)
    mirrored = played(table, [a, random, random, random], 0)
    once = played(table, [a, random, b, random], 2)
    while rate_next(table.deps) is not None:
        pass
    with table.deps.uow() as uow:
        assert [h.game_id for h in uow.ratings.history(bot, "standard-4p")] == [once]
        assert [h.game_id for h in uow.ratings.history(a.player_id, "standard-4p")] == [
            mirrored,
            once,
        ]
        assert uow.ratings.of(bot)["standard-4p"].games == 1
    incremental = dict(table.db.ratings)
    histories = {k: list(v) for k, v in table.db.rating_history.items()}
    # As the worker rated it before: the level's update by the first game too.
    stale = histories[bot, "standard-4p"][0]
    table.db.rating_history[bot, "standard-4p"].insert(0, replace(stale, game_id=mirrored))
    table.db.ratings[bot, "standard-4p"] = model.Rating(27.49, 7.0, 2)
    table.db.ratings[bot, "standard-3p"] = model.Rating(30.0, 7.0, 1)  # no game rates it
    assert rebuild(table.deps) == 2
    assert table.db.ratings == incremental
    assert table.db.rating_history == histories


def test_a_finished_game_counts_for_each_player_and_leaving_is_abandoning(table: Table) -> None:
    a, b, c = (player(table, n) for n in "ABC")
    created = table.run(CreateGame(3, Scoring.BASIC))
    assert isinstance(created, Created)
    game_id = created.game_id
    table.dealer.script.append(ordered_deal(3))
    for seat, holder in enumerate((a, b, c)):
        table.run(JoinSeat(game_id, seat, None), holder)
    table.run(Leave(game_id), table.deps.identity.in_game(a, game_id))  # a bot plays on
    with table.deps.uow() as uow:
        assert uow.ratings.stats(a.player_id) == Stats(0, 0, 0, 0)  # not finished yet
    table.run(Resign(game_id), table.deps.identity.in_game(c, game_id))
    with table.deps.uow() as uow:
        assert uow.ratings.stats(a.player_id) == Stats(1, 1, 0, 1)  # left, and won
        assert uow.ratings.stats(b.player_id) == Stats(1, 1, 0, 0)
        assert uow.ratings.stats(c.player_id) == Stats(1, 0, 0, 1)  # resigned
        [mine] = uow.ratings.finished_games(b.player_id, None, 10)
    assert (mine.result.game_id, mine.result.seat, mine.players) == (game_id, 1, 3)
