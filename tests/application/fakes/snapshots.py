"""State snapshots."""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

from service.application.games.ports import (
    Snapshot,
)
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeSnapshotStore:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow

    def get(self, game_id: UUID, schema_version: int) -> Snapshot | None:
        found = self._uow.read().snapshots.get(game_id)
        return found if found is not None and found.schema_version == schema_version else None

    def put(self, snapshot: Snapshot) -> None:
        def write(c: Commit) -> None:
            current = c.after.snapshots.get(snapshot.game_id)
            if (
                current is None
                or current.version < snapshot.version
                or current.schema_version != snapshot.schema_version
            ):
                c.after.snapshots[snapshot.game_id] = snapshot
            c.game(snapshot.game_id, "snapshots")

        self._uow.queue(write)
