"""The reports' store (service/application/moderation/ports.py: Reports) where the fakes
keep it too, on the fakes and on PostgreSQL: a report added, read, closed; a reporter's
reports of a period counted; and the mute running at a moment, the one that ends last.
The operators' list and the chat messages it shows are PostgreSQL's alone
(tests/e2e/test_moderation.py)."""

from __future__ import annotations

from datetime import timedelta
from uuid import uuid4

from service.application.moderation.ports import Report, Resolution
from tests.contract.builders import new_player
from tests.contract.stores import Store


def test_a_report_is_added_read_and_closed(store: Store) -> None:
    at = store.clock.now()
    mio, bo = new_player(store, "Mio"), new_player(store, "Bo")
    made = Report(uuid4(), mio.id, bo.id, None, None, "sealed reason", at)
    with store.uow() as uow:
        uow.reports.add(made)
        uow.commit()
    with store.uow() as uow:
        assert uow.reports.get(made.id) == made
        assert uow.reports.get(uuid4()) is None
    done = Resolution(at + timedelta(minutes=1), "moderator", "warn", None, None, "sealed note")
    with store.uow() as uow:
        assert uow.reports.get(made.id, lock=True) == made
        uow.reports.resolve(made.id, done)
        uow.commit()
    with store.uow() as uow:
        found = uow.reports.get(made.id)
        assert found is not None and found.resolution == done


def test_a_reporters_reports_are_counted_after_a_moment(store: Store) -> None:
    at = store.clock.now()
    mio, bo, kai = (new_player(store, n) for n in ("Mio", "Bo", "Kai"))
    with store.uow() as uow:
        for minutes in (0, 10, 20):
            uow.reports.add(
                Report(uuid4(), mio.id, bo.id, None, None, "r", at + timedelta(minutes=minutes))
            )
        uow.reports.add(Report(uuid4(), kai.id, bo.id, None, None, "r", at))
        uow.commit()
    with store.uow() as uow:
        assert uow.reports.made_since(mio.id, at - timedelta(seconds=1)) == 3
        assert uow.reports.made_since(mio.id, at) == 2  # after, not at
        assert uow.reports.made_since(bo.id, at - timedelta(seconds=1)) == 0


def test_the_mute_that_ends_last_holds_while_it_runs(store: Store) -> None:
    at = store.clock.now()
    mio, bo = new_player(store, "Mio"), new_player(store, "Bo")
    reports = [Report(uuid4(), mio.id, bo.id, None, None, "r", at) for _ in range(4)]
    ends = [at + timedelta(minutes=60), at + timedelta(minutes=5)]
    with store.uow() as uow:
        for r in reports:
            uow.reports.add(r)
        uow.commit()
    with store.uow() as uow:
        uow.reports.resolve(reports[0].id, Resolution(at, "op", "mute", 60, ends[0], "n"))
        uow.reports.resolve(reports[1].id, Resolution(at, "op", "mute", 5, ends[1], "n"))
        uow.reports.resolve(reports[2].id, Resolution(at, "op", "warn", None, None, "n"))
        uow.commit()  # reports[3] stays open
    with store.uow() as uow:
        assert uow.reports.muted_until(bo.id, at) == ends[0]
        assert uow.reports.muted_until(bo.id, ends[0] - timedelta(seconds=1)) == ends[0]
        assert uow.reports.muted_until(bo.id, ends[0]) is None  # it ended
        assert uow.reports.muted_until(mio.id, at) is None
