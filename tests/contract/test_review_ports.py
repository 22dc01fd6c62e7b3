"""The hand reviews' store (service/application/review/ports.py: Reviews), on the fakes
and on PostgreSQL (issue 46): a review asked for once per game (asked again, left as it
is, unless it failed), the oldest waiting first, decisions appended only after those they
followed (two workers never store one twice), and the queue's length."""

from __future__ import annotations

from datetime import timedelta

from service.application.review.ports import Status
from tests.contract.builders import new_game
from tests.contract.stores import Store


def test_a_review_is_queued_once_and_its_decisions_appended_in_turn(store: Store) -> None:
    at = store.clock.now()
    first, second = new_game(store), new_game(store)
    with store.uow() as uow:
        uow.reviews.request(second, "expert", 7, 4, at + timedelta(minutes=1))
        uow.reviews.request(first, "expert", 7, 3, at)
        uow.commit()
    with store.uow() as uow:
        uow.reviews.request(first, "expert", 8, 3, at + timedelta(minutes=2))  # left as is
        uow.commit()
    with store.uow(snapshot=True) as uow:
        found = uow.reviews.get(first)
        assert found is not None
        assert (found.status, found.level, found.seed, found.players) == (
            Status.QUEUED, "expert", 7, 3,
        )  # fmt: skip
        assert found.decisions == []
        waiting = uow.reviews.next_waiting()
        assert waiting is not None and waiting.game_id == first
        assert uow.reviews.waiting() == 2
    with store.uow() as uow:
        uow.reviews.add(first, 0, {"seq": 5}, Status.RUNNING, at)
        uow.commit()
    with store.uow() as uow:
        uow.reviews.add(first, 0, {"seq": 6}, Status.RUNNING, at)  # another worker's, late
        uow.commit()
    with store.uow() as uow:
        uow.reviews.add(first, 1, {"seq": 9}, Status.DONE, at)
        uow.commit()
    with store.uow(snapshot=True) as uow:
        done = uow.reviews.get(first)
        assert done is not None and done.status is Status.DONE
        assert done.decisions == [{"seq": 5}, {"seq": 9}]
        assert uow.reviews.waiting() == 1
        left = uow.reviews.next_waiting()
        assert left is not None and left.game_id == second
        assert uow.reviews.get(new_game(store)) is None


def test_a_failed_review_asked_again_starts_over(store: Store) -> None:
    at = store.clock.now()
    game = new_game(store)
    with store.uow() as uow:
        uow.reviews.request(game, "expert", 7, 4, at)
        uow.commit()
    with store.uow() as uow:
        uow.reviews.add(game, 0, {"seq": 5}, Status.RUNNING, at)
        uow.commit()
    with store.uow() as uow:
        uow.reviews.fail(game, at)
        uow.commit()
    with store.uow(snapshot=True) as uow:
        failed = uow.reviews.get(game)
        assert failed is not None and failed.status is Status.FAILED
        assert uow.reviews.waiting() == 0
    with store.uow() as uow:
        uow.reviews.request(game, "expert", 9, 4, at + timedelta(minutes=1))
        uow.commit()
    with store.uow(snapshot=True) as uow:
        again = uow.reviews.get(game)
        assert again is not None
        assert (again.status, again.seed, again.decisions) == (Status.QUEUED, 9, [])
