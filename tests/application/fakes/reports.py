"""Reports: kept beside the tables (as FakeReputations keeps marks), enough for the
write path's handlers and the chat's mute check; the operators' list and the chat
messages it shows are read on PostgreSQL only (tests/e2e/test_moderation.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.moderation.ports import Listed, Message, Report, Resolution
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork

_POSTGRES = "moderation's lists run on PostgreSQL: tests/e2e/test_moderation.py"


class FakeReports:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow
        self._db = uow.db

    def add(self, report: Report) -> None:
        def write(c: Commit) -> None:
            c.db.reports[report.id] = report

        self._uow.queue(write)

    def get(self, report_id: UUID, *, lock: bool = False) -> Report | None:
        self._uow.read()
        return self._db.reports.get(report_id)

    def resolve(self, report_id: UUID, resolution: Resolution) -> None:
        def write(c: Commit) -> None:
            c.db.reports[report_id] = replace(c.db.reports[report_id], resolution=resolution)

        self._uow.queue(write)

    def made_since(self, reporter_id: UUID, since: datetime) -> int:
        self._uow.read()
        mine = self._db.reports.values()
        return sum(1 for r in mine if r.reporter_id == reporter_id and r.created_at > since)

    def muted_until(self, player_id: UUID, now: datetime) -> datetime | None:
        self._uow.read()
        ends = [
            r.resolution.until
            for r in self._db.reports.values()
            if r.player_id == player_id
            and r.resolution is not None
            and r.resolution.action == "mute"
            and r.resolution.until is not None
            and r.resolution.until > now
        ]
        return max(ends, default=None)

    def message(self, message_id: int) -> Message | None:
        raise NotImplementedError(_POSTGRES)

    def page(self, resolved: bool, after: tuple[datetime, UUID] | None, limit: int) -> list[Listed]:
        raise NotImplementedError(_POSTGRES)

    def listed(self, report_id: UUID) -> Listed | None:
        raise NotImplementedError(_POSTGRES)

    def around(
        self, message_ids: Sequence[int], before: int, after: int
    ) -> dict[int, list[Message]]:
        raise NotImplementedError(_POSTGRES)
