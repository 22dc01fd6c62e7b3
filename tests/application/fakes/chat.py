"""Chat messages, kept beside the tables (as FakeReviews keeps reviews)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from service.application.chat.ports import ChatMessage, Posted
from tests.application.fakes.tables import Commit

if TYPE_CHECKING:
    from tests.application.fakes.unit_of_work import FakeUnitOfWork


class FakeChat:
    def __init__(self, uow: FakeUnitOfWork) -> None:
        self._uow = uow
        self._db = uow.db

    def post(
        self,
        message: ChatMessage,
        sender: str,
        since: datetime,
        limit: int,
        *,
        named: UUID | None,
        atomic: bool,
    ) -> Posted:
        kept = self._db.chat
        player = message.player_id
        muted = None if player is None else self._uow.reports.muted_until(player, message.at)
        if muted is not None:
            return Posted(None, None, muted)
        if sum(1 for m, s in kept if s == sender and m.at > since) >= limit:
            return Posted(None, None)
        record = None if named is None else self._uow.players.get(named)
        name = message.name if record is None else record.name
        written = replace(message, id=len(kept) + 1, name=name)

        def write(c: Commit) -> None:
            c.db.chat.append((written, sender))

        self._uow.queue(write)
        return Posted(written.id, name)

    def page(
        self, game_id: UUID, channels: tuple[str, ...], after: int | None, limit: int
    ) -> list[ChatMessage]:
        found = [
            m
            for m, _ in self._db.chat
            if m.game_id == game_id and m.channel in channels and m.id > (after or 0)
        ]
        return found[:limit]

    def newest(self, game_id: UUID) -> int:
        return max((m.id for m, _ in self._db.chat if m.game_id == game_id), default=0)
