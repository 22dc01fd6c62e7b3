"""The pairing policy (service/application/seeks/policy.py), pure: full sets oldest first,
rated ranges taken both ways and widened as seeks wait, bots for seeks whose delay
passed (with every compatible seek of their pool that allows bots), and when time alone
may let a pool pair."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID, uuid4

from service.application.seeks import policy
from service.application.seeks.ports import Pool, Seek, SeekStatus
from service.rules import Scoring, Variant

T0 = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)
UNRATED = Pool(4, Scoring.BASIC, Variant.STANDARD, False)
RATED = Pool(3, Scoring.BASIC, Variant.STANDARD, True)


def seek(
    pool: Pool,
    seconds: float = 0,
    *,
    span: tuple[float, float] | None = None,
    bots_after: int | None = None,
    player: UUID | None = None,
) -> Seek:
    at = T0 + timedelta(seconds=seconds)
    return Seek(
        uuid4(), player or uuid4(), pool, span, bots_after, SeekStatus.OPEN, at, at + timedelta(1)
    )


def test_an_unrated_pool_pairs_its_oldest_seeks() -> None:
    seeks = [seek(UNRATED, n) for n in range(6)]
    plan = policy.plan(seeks, {}, T0 + timedelta(seconds=9))
    assert plan == policy.Plan(tuple(seeks[:4]), bots=False)
    assert policy.plan(seeks[:3], {}, T0 + timedelta(hours=1)) is None


def test_a_rating_range_takes_the_ordinals_in_it_and_widens_by_one_each_ten_seconds() -> None:
    narrow = seek(RATED, span=(-0.5, 0.5))
    assert policy.window(narrow, T0 + timedelta(seconds=9.9)) == (-0.5, 0.5)
    assert policy.window(narrow, T0 + timedelta(seconds=10)) == (-1.5, 1.5)
    assert policy.window(narrow, T0 + timedelta(seconds=35)) == (-3.5, 3.5)
    assert policy.accepts(narrow, 0.0, T0) and not policy.accepts(narrow, 1.0, T0)
    assert policy.accepts(narrow, 1.0, T0 + timedelta(seconds=10))
    assert policy.window(seek(RATED), T0) is None  # no range: anyone
    assert policy.window(seek(UNRATED, span=(0, 0)), T0) is None  # unrated: anyone


def test_a_rated_set_suits_every_seek_both_ways() -> None:
    strong = uuid4()
    picky = seek(RATED, 0, span=(-1, 1))
    others = [seek(RATED, 1), seek(RATED, 2, player=strong), seek(RATED, 3)]
    ordinals = {strong: 5.0}
    plan = policy.plan([picky, *others], ordinals, T0 + timedelta(seconds=5))
    assert plan is not None and plan.seeks == (picky, others[0], others[2])  # not the strong
    # Without the third, the picky seek waits until its range holds 5.0 (40 s).
    waiting = [picky, *others[:2]]
    assert policy.plan(waiting, ordinals, T0 + timedelta(seconds=39)) is None
    assert policy.next_chance(waiting, T0 + timedelta(seconds=39)) == T0 + timedelta(seconds=40)
    plan = policy.plan(waiting, ordinals, T0 + timedelta(seconds=40))
    assert plan is not None and plan.seeks == tuple(waiting)


def test_a_seek_whose_range_holds_nobody_leaves_the_others_to_pair() -> None:
    alone = seek(RATED, 0, span=(50, 60))
    rest = [seek(RATED, n) for n in (1, 2, 3)]
    plan = policy.plan([alone, *rest], {}, T0 + timedelta(seconds=4))
    assert plan is not None and plan.seeks == tuple(rest)


def test_bots_fill_the_seats_nobody_fills_once_a_seek_s_delay_passed() -> None:
    due = seek(UNRATED, 0, bots_after=30)
    later = seek(UNRATED, 10, bots_after=30)
    plain = seek(UNRATED, 5)
    seeks = [due, plain, later]
    assert policy.plan(seeks, {}, T0 + timedelta(seconds=29)) is None
    assert policy.next_chance(seeks, T0 + timedelta(seconds=29)) == T0 + timedelta(seconds=30)
    # The later seek's delay has not passed, but it allows bots: it sits at the table too.
    plan = policy.plan(seeks, {}, T0 + timedelta(seconds=30))
    assert plan == policy.Plan((due, later), bots=True)  # not the seek without bots
    assert policy.next_chance(seeks, T0 + timedelta(seconds=40)) is None


def test_two_seeks_a_second_apart_sit_at_one_table_and_three_too() -> None:
    first, second, third = (seek(UNRATED, n, bots_after=5) for n in (0, 1, 2))
    plan = policy.plan([first, second], {}, T0 + timedelta(seconds=5))
    assert plan == policy.Plan((first, second), bots=True)
    plan = policy.plan([first, second, third], {}, T0 + timedelta(seconds=5))
    assert plan == policy.Plan((first, second, third), bots=True)


def test_a_due_seek_takes_only_the_seeks_compatible_with_every_one_chosen() -> None:
    strong, weak = uuid4(), uuid4()
    due = seek(RATED, 0, span=(-1, 1), bots_after=5)
    too_strong = seek(RATED, 1, bots_after=600, player=strong)  # outside the due seek's range
    picky = seek(RATED, 2, span=(4, 6), bots_after=600)  # the due seek's player is outside its
    fits = seek(RATED, 3, bots_after=600, player=weak)
    seeks = [due, too_strong, picky, fits]
    ordinals = {strong: 5.0, weak: -0.5}
    assert policy.full_set(seeks, ordinals, T0 + timedelta(seconds=5)) is None
    plan = policy.plan(seeks, ordinals, T0 + timedelta(seconds=5))
    assert plan == policy.Plan((due, fits), bots=True)


def test_a_full_set_comes_before_bots() -> None:
    seeks = [seek(UNRATED, n, bots_after=5) for n in range(4)]
    plan = policy.plan(seeks, {}, T0 + timedelta(seconds=60))
    assert plan == policy.Plan(tuple(seeks), bots=False)


def test_a_seek_with_a_min_reputation_is_seated_only_with_people_who_have_it() -> None:
    picky = Seek(
        uuid4(), uuid4(), UNRATED, None, None, SeekStatus.OPEN, T0, T0 + timedelta(1), None,
        None, None, 70,
    )  # fmt: skip
    low, *rest = [seek(UNRATED, n) for n in range(1, 6)]
    scores = {low.player_id: 69, **{s.player_id: 70 for s in rest}}
    plan = policy.plan([picky, low, *rest], {}, T0 + timedelta(seconds=9), scores)
    assert plan == policy.Plan((picky, *rest[:3]), bots=False)
    assert policy.welcome(low, rest[0], scores) and not policy.welcome(picky, low, scores)
    due = [picky, seek(UNRATED, 1, bots_after=5, player=low.player_id)]
    picky_due = Seek(
        picky.id, picky.player_id, UNRATED, None, 5, SeekStatus.OPEN, T0, T0 + timedelta(1),
        min_reputation=70,
    )  # fmt: skip
    with_bots = policy.plan([picky_due, due[1]], {}, T0 + timedelta(seconds=9), scores)
    assert with_bots == policy.Plan((picky_due,), bots=True)  # not with the low seek
