"""The worker's pairing of seeks (service/application/jobs/pairing.py), run by hand on
the fakes: every pool's full sets paired at once, a pool that cannot pair yet left until
time may let it (and woken by a new seek), bots and expiry when their time comes. Real
`yokai worker` processes pair in tests/e2e/test_seek_workers.py."""

from __future__ import annotations

from datetime import datetime, timedelta

from service.application.commands import CreateSeek
from service.application.jobs.pairing import Pairing, draw
from service.application.jobs.source import OUTBOX_NOTE, SEEK_NOTE
from service.application.results import SeekCreated
from service.application.seeks.ports import Pool, SeekStatus
from service.rules import Scoring, Variant
from tests.application.identity.test_players import player
from tests.application.table import Table, ordered_deal

FOURS = Pool(4, Scoring.BASIC, Variant.STANDARD, False)
THREES = Pool(3, Scoring.ADVANCED, Variant.STANDARD, False)
RATED = Pool(3, Scoring.BASIC, Variant.STANDARD, True)


def seeks(table: Table, pool: Pool, n: int, **options: object) -> list[SeekCreated]:
    made = []
    for i in range(n):
        who = player(table, f"{pool.players}-{i}")
        done = table.run(CreateSeek(pool, **options), who)  # type: ignore[arg-type]
        assert isinstance(done, SeekCreated)
        made.append(done)
        table.clock.advance(timedelta(milliseconds=10))
    return made


def statuses(table: Table) -> list[SeekStatus]:
    return sorted(s.status for s in table.db.committed.seeks.values())


def test_a_run_pairs_every_full_set_of_every_pool(table: Table) -> None:
    seeks(table, FOURS, 9)
    seeks(table, THREES, 3)
    for players in (4, 4, 3):  # the pool with the oldest seek first
        table.dealer.script.append(ordered_deal(players))
    jobs = Pairing()
    assert jobs.run_due(table.deps) == 3  # two games of four, one of three
    assert jobs.run_due(table.deps) == 0
    assert statuses(table).count(SeekStatus.MATCHED) == 11
    assert statuses(table).count(SeekStatus.OPEN) == 1
    assert len(table.db.committed.games) == 3
    for game in table.db.committed.games.values():
        assert game.status == "passing"


def test_the_seats_are_drawn_at_random_for_each_game() -> None:
    orders = {draw(4) for _ in range(200)}
    assert all(sorted(o) == [0, 1, 2, 3] for o in orders)
    assert len(orders) > 1


def test_a_pool_that_cannot_pair_yet_rests_until_its_range_widens(table: Table) -> None:
    strong = player(table, "Strong")
    table.db.ordinals[strong.player_id] = 2.0
    table.run(CreateSeek(RATED, rating_range=(-0.5, 0.5)), player(table, "Picky"))
    table.run(CreateSeek(RATED), strong)
    table.run(CreateSeek(RATED), player(table, "Other"))
    jobs = Pairing()
    assert jobs.run_due(table.deps) == 0
    widened = table.clock.now() + timedelta(seconds=10)
    assert jobs.next_due(table.deps) == widened
    table.clock.advance(timedelta(seconds=10))  # (-1.5, 1.5): not yet
    assert jobs.run_due(table.deps) == 0
    assert jobs.next_due(table.deps) == widened + timedelta(seconds=10)
    table.clock.advance(timedelta(seconds=10))
    table.dealer.script.append(ordered_deal(3))
    assert jobs.run_due(table.deps) == 1


def test_a_new_seek_wakes_a_resting_pool(table: Table) -> None:
    seeks(table, FOURS, 3, bots_after=600)
    jobs = Pairing()
    assert jobs.run_due(table.deps) == 0
    assert not jobs.wants(OUTBOX_NOTE)
    assert not jobs.wants(datetime.now().isoformat())  # a game's wakeup: not pairing's
    seeks(table, FOURS, 1)
    assert table.db.seek_notes == 4
    assert jobs.wants(SEEK_NOTE)
    table.dealer.script.append(ordered_deal(4))
    assert jobs.run_due(table.deps) == 1


def test_bots_and_expiry_fall_due_by_the_clock(table: Table) -> None:
    late = seeks(table, FOURS, 1, bots_after=30)[0]
    stale = seeks(table, THREES, 1)[0]
    jobs = Pairing()
    assert jobs.run_due(table.deps) == 0
    assert jobs.next_due(table.deps) == late.created_at + timedelta(seconds=30)
    table.clock.moment = late.created_at + timedelta(seconds=30)
    table.dealer.script.append(ordered_deal(4))
    assert jobs.run_due(table.deps) == 1
    assert table.db.committed.seeks[late.seek_id].status is SeekStatus.MATCHED
    assert jobs.next_due(table.deps) == stale.expires_at
    table.clock.moment = stale.expires_at
    jobs.run_due(table.deps)
    assert table.db.committed.seeks[stale.seek_id].status is SeekStatus.EXPIRED
    assert jobs.next_due(table.deps) is None


def test_bots_that_fell_due_while_the_loop_was_busy_are_due_at_once(table: Table) -> None:
    """The worker asks for the next due time after a long run of other jobs; the seek's
    bots fell due meanwhile, and the store tells only times to come: they are due now,
    not lost for the expiry's time."""
    late = seeks(table, FOURS, 1, bots_after=5)[0]
    jobs = Pairing()
    assert jobs.run_due(table.deps) == 0
    assert jobs.next_due(table.deps) == late.created_at + timedelta(seconds=5)
    table.clock.moment = late.created_at + timedelta(seconds=8)
    due = jobs.next_due(table.deps)
    assert due is not None and due <= table.clock.now()
    table.dealer.script.append(ordered_deal(4))
    assert jobs.run_due(table.deps) == 1
    assert jobs.next_due(table.deps) is None
