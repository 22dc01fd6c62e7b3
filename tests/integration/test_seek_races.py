"""Quick play under concurrency, on PostgreSQL with threads (issue 29): a cancel racing a
pairing of its seek, pairings of one pool racing each other, a player's seeks racing
each other. Whatever the order: no seek is matched twice, a cancelled seek is never
matched (and a matched one never cancelled), no player is seated twice by the pool, and
every matched seek sits in a started game. Two of the races are forced into each order
with a lock the test holds; the others are let loose from a barrier, many times.

Each test has a database of its own (tests/support/workers.py: ``setup``). Real worker
processes racing, and one killed mid-pairing: tests/e2e/test_seek_workers.py.
"""

from __future__ import annotations

import functools
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar
from uuid import UUID

import psycopg

from service.application.commands import CancelSeek, Context, CreateSeek, PairSeeks
from service.application.deps import Deps
from service.application.identity.principals import Operator, PlayerHolder
from service.application.jobs.pairing import Pairing, draw
from service.application.results import Paired, SeekCancelled
from service.application.seeks.handlers import SeekMatchedError
from service.application.seeks.ports import AlreadySeekingError, Pool
from service.application.write.registry import execute
from service.rules import OnTimeout, Scoring, TurnClock, Variant
from tests.support.waiting import wait_for
from tests.support.workers import Setup, setup

__all__ = ["setup"]  # the fixture: a database of the test's own

T = TypeVar("T")
ROUNDS = 15


def pool(n: int = 0, players: int = 4) -> Pool:
    """A pool of its own for each round (the clock tells them apart)."""
    return Pool(
        players, Scoring.BASIC, Variant.STANDARD, False, TurnClock(60 + n, OnTimeout.AUTOPLAY)
    )


def new_players(setup: Setup, n: int) -> list[PlayerHolder]:
    found = []
    for i in range(n):
        r = setup.api.post("/v1/players", {"name": f"P{i}"})
        assert r.status_code == 201, r.get_json()
        who = setup.deps.identity.identify(r.get_json()["token"])
        assert isinstance(who, PlayerHolder)
        found.append(who)
    return found


def seek(deps: Deps, who: PlayerHolder, where: Pool) -> UUID:
    made = execute(deps, CreateSeek(where), Context(who)).result
    return made.seek_id


def pair(deps: Deps, where: Pool) -> Paired:
    return execute(deps, PairSeeks(where, draw(where.players)), Context(Operator())).result


def cancel(deps: Deps, who: PlayerHolder, seek_id: UUID) -> SeekCancelled | Exception:
    try:
        return execute(deps, CancelSeek(seek_id), Context(who)).result
    except SeekMatchedError as refused:
        return refused


def outcome(job: Callable[[], T]) -> T | Exception:
    try:
        return job()
    except Exception as error:  # the race's outcome, asserted on
        return error


def together(*jobs: Callable[[], Any]) -> list[Any]:
    """Run the jobs each in its own thread, released at once by a barrier."""
    barrier = threading.Barrier(len(jobs))

    def run(job: Callable[[], Any]) -> Any:
        barrier.wait(timeout=60)
        return outcome(job)

    with ThreadPoolExecutor(max_workers=len(jobs)) as threads:
        return list(threads.map(run, jobs))


def waiting_on_locks(watcher: psycopg.Connection[Any], count: int) -> Callable[[], bool]:
    """Whether ``count`` backends of this database wait for a lock."""

    def check() -> bool:
        rows = watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()"
        ).fetchone()
        return rows is not None and rows[0] >= count

    return check


def assert_sound(setup: Setup) -> dict[str, int]:
    """The store after the races: each matched seek in a started game, in the seat its
    player holds; no seat, seek or player twice; nothing of a cancelled seek in a game.
    How many seeks of each status there are."""
    with psycopg.connect(setup.url) as conn:
        seeks = conn.execute(
            "SELECT s.id, s.player_id, s.status, s.game_id, s.seat, g.status, sp.player_id "
            "FROM seeks AS s LEFT JOIN games AS g ON g.id = s.game_id "
            "LEFT JOIN seat_players AS sp ON sp.game_id = s.game_id AND sp.seat = s.seat"
        ).fetchall()
        seated = conn.execute("SELECT player_id, game_id FROM seat_players").fetchall()
        games = conn.execute("SELECT id, status FROM games").fetchall()
    matched = [s for s in seeks if s[2] == "matched"]
    for _, player, _, game, seat, game_status, holder in matched:
        assert game is not None and seat is not None
        assert game_status == "passing", "a matched seek sits in a started game"
        assert holder == player, "in the seat its player holds"
    assert len({(s[3], s[4]) for s in matched}) == len(matched), "no seat twice"
    assert all(n == 1 for n in Counter(p for p, _ in seated).values()), "no player twice"
    assert {p for p, _ in seated} == {s[1] for s in matched}
    assert all(s[3] is None for s in seeks if s[2] != "matched")
    assert {g for _, g in seated} == {g for g, _ in games}, "every game is a pairing's"
    return dict(Counter(s[2] for s in seeks))


def test_a_cancel_racing_a_pairing_wins_or_loses_whole(setup: Setup) -> None:
    """From a barrier, many times: either the cancel came first (the pairing found three
    seeks: no game) or the pairing did (the cancel is refused: seek_matched)."""
    deps, seen = setup.deps, Counter[str]()
    for n in range(ROUNDS):
        where = pool(n)
        players = new_players(setup, 4)
        seeks = [seek(deps, who, where) for who in players]
        paired, cancelled = together(
            functools.partial(pair, deps, where),
            functools.partial(cancel, deps, players[n % 4], seeks[n % 4]),
        )
        if isinstance(cancelled, SeekCancelled):
            assert paired == Paired(None, retry_at=None)
            seen["cancel first"] += 1
        else:
            assert isinstance(cancelled, SeekMatchedError), cancelled
            assert isinstance(paired, Paired) and paired.matched == 4
            seen["pairing first"] += 1
    statuses = assert_sound(setup)
    assert statuses.get("cancelled", 0) == seen["cancel first"]
    assert statuses.get("matched", 0) == 4 * seen["pairing first"]
    print(f"\ncancel against pairing, {ROUNDS} rounds: {dict(seen)}")


def test_a_cancel_that_holds_the_seek_first_leaves_the_pairing_short(setup: Setup) -> None:
    deps, where = setup.deps, pool()
    players = new_players(setup, 4)
    seeks = [seek(deps, who, where) for who in players]
    with (
        psycopg.connect(setup.url, autocommit=True) as watcher,
        ThreadPoolExecutor(max_workers=1) as thread,
        deps.uow() as cancelling,
    ):
        assert cancelling.seeks.hold(seeks[2]) is not None  # the cancel's lock, first
        pairing: Future[Paired | Exception] = thread.submit(outcome, lambda: pair(deps, where))
        wait_for(waiting_on_locks(watcher, 1), "the pairing to wait for the seek")
        cancelling.seeks.cancel(seeks[2], deps.clock.now())
        cancelling.commit()
        assert pairing.result(timeout=60) == Paired(None, retry_at=None)
    assert assert_sound(setup) == {"open": 3, "cancelled": 1}


def test_a_pairing_that_holds_the_seek_first_makes_the_cancel_fail(setup: Setup) -> None:
    """The pairing holds its pool's seeks and waits in its commit (the test holds a
    seated player's row); the cancel waits for the seek; the pairing commits, then the
    cancel finds the seek matched."""
    deps, where = setup.deps, pool()
    players = new_players(setup, 4)
    seeks = [seek(deps, who, where) for who in players]
    with (
        psycopg.connect(setup.url, autocommit=True) as watcher,
        psycopg.connect(setup.url) as holder,
        ThreadPoolExecutor(max_workers=2) as threads,
    ):
        holder.execute("SELECT 1 FROM players WHERE id = %s FOR UPDATE", (players[0].player_id,))
        pairing: Future[Paired | Exception] = threads.submit(outcome, lambda: pair(deps, where))
        wait_for(waiting_on_locks(watcher, 1), "the pairing to wait in its commit")
        cancelling = threads.submit(outcome, lambda: cancel(deps, players[1], seeks[1]))
        wait_for(waiting_on_locks(watcher, 2), "the cancel to wait for the seek")
        holder.rollback()
        done = pairing.result(timeout=60)
        assert isinstance(done, Paired) and done.matched == 4
        assert isinstance(cancelling.result(timeout=60), SeekMatchedError)
    assert assert_sound(setup) == {"matched": 4}


def test_pairings_of_one_pool_racing_match_each_seek_once(setup: Setup) -> None:
    """Eight pairers (the worker's job source, as eight workers run it) at once on forty
    seeks of one pool: ten games, every seek in one of them."""
    deps, where = setup.deps, pool()
    for who in new_players(setup, 40):
        seek(deps, who, where)

    def drain() -> int:
        jobs, made = Pairing(), 0
        while (n := jobs.run_due(deps)) > 0:
            made += n
        return made

    made = together(*[drain] * 8)
    assert sum(made) == 10, made
    assert assert_sound(setup) == {"matched": 40}


def test_a_player_s_seeks_racing_leave_one_open(setup: Setup) -> None:
    deps = setup.deps
    (who,) = new_players(setup, 1)
    made = together(*[functools.partial(seek, deps, who, pool(n)) for n in range(8)])
    assert sum(isinstance(m, UUID) for m in made) == 1, made
    assert all(isinstance(m, UUID | AlreadySeekingError) for m in made), made
    assert assert_sound(setup) == {"open": 1}
