"""The worker's loop (service/worker.py) with announcements and job sources of the test's
own: every announcement of one read is told to every source (one left untold is a
wake-up lost: a seek's, behind a game's due time), and a source left idle while another
runs job after job is asked again once work for it is announced or falls due. Real
`yokai worker` processes: tests/e2e/test_worker_wakeups.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from service import worker as loop
from service.application.jobs.source import SEEK_NOTE
from service.worker import Worker
from tests.application.fakes.clock import FixedClock


@dataclass
class Notes:
    """Announcements read in the batches given, one batch a read."""

    batches: list[list[str]]
    deaf: bool = False

    def listen(self) -> None:
        pass

    def heard(self, timeout: float) -> list[str]:
        return self.batches.pop(0) if self.batches else []

    def check(self) -> None:
        pass

    def close(self) -> None:
        pass


@dataclass
class Source:
    """Takes the notes in ``takes`` (None: due times, any note but a seek); runs ``jobs``
    batches of one job each, then none."""

    takes: tuple[str, ...] | None = None
    jobs: int = 0
    due: datetime | None = None
    told: list[str] = field(default_factory=list)
    runs: int = 0

    def run_due(self, deps: Any) -> int:
        self.runs += 1
        if self.jobs:
            self.jobs -= 1
            return 1
        return 0

    def next_due(self, deps: Any) -> datetime | None:
        return self.due

    def in_flight(self) -> int:
        return 0

    def close(self) -> None:
        pass

    def wants(self, note: str) -> bool:
        self.told.append(note)
        return note != SEEK_NOTE if self.takes is None else note in self.takes


def worker(notes: Notes, *sources: Source) -> tuple[Worker, FixedClock]:
    clock = FixedClock()
    deps: Any = SimpleNamespace(clock=clock)
    return Worker(deps, "", list(sources), notes=notes), clock


def test_every_note_of_one_read_is_told_to_every_source() -> None:
    games, pairing = Source(), Source(takes=(SEEK_NOTE,))
    clock = FixedClock()
    past = (clock.now() - timedelta(seconds=1)).isoformat()
    # A game's due time, then a new seek, read together: the loop wakes for the first,
    # and the pairing still hears of its seek.
    made, _ = worker(Notes([[past, SEEK_NOTE]]), games, pairing)
    made._sleep(clock.now() + timedelta(seconds=30))
    assert pairing.told == [past, SEEK_NOTE]
    assert games.told == [past, SEEK_NOTE]


def test_a_source_is_asked_again_during_another_s_long_run_once_its_work_is_announced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loop, "SLICE_SECONDS", 0.0)  # look between every two batches
    games, pairing = Source(jobs=5), Source(takes=(SEEK_NOTE,))
    made, _ = worker(Notes([[], [SEEK_NOTE]]), games, pairing)
    made._run_due()
    assert games.runs == 6
    assert pairing.runs == 2  # once at first, once for its seek, while the games ran


def test_a_source_is_asked_again_during_another_s_long_run_once_its_time_comes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(loop, "SLICE_SECONDS", 0.0)
    games, pairing = Source(jobs=3), Source(takes=(SEEK_NOTE,))
    made, clock = worker(Notes([]), games, pairing)
    pairing.due = clock.now() + timedelta(seconds=5)
    made._run_due()
    assert pairing.runs == 1  # not due yet
    games.jobs, pairing.due = 3, clock.now()
    made._run_due()
    assert pairing.runs == 1 + 4  # at first, then in each of the games' batches
