"""Reports (migration 0024), and the chat messages moderation reads (``chat_messages``,
migration 0022). A report's context is read in one statement for a whole page: for each
reported message, a few of its game and channel's messages before and after it (two
index scans of ``chat_by_game`` each)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.session import Session, Statement
from service.application.moderation.ports import Listed, Message, Report, Resolution

_REPORT = (
    "r.id, r.reporter_id, r.player_id, r.game_id, r.message_id, r.reason, r.created_at, "
    "r.resolved_at, r.resolved_by, r.action, r.minutes, r.until, r.note"
)
_LISTED = (
    f"SELECT {_REPORT}, a.name, b.name, a.erased_at IS NOT NULL, b.erased_at IS NOT NULL "
    "FROM reports AS r JOIN players AS a ON a.id = r.reporter_id "
    "JOIN players AS b ON b.id = r.player_id "
)
_MESSAGE = "m.id, m.game_id, m.channel, m.seat, m.player_id, m.name, m.text, m.preset, m.at"
_AROUND = (
    f"SELECT c.id, {_MESSAGE} FROM chat_messages AS c CROSS JOIN LATERAL ("
    f"(SELECT {_MESSAGE} FROM chat_messages AS m WHERE m.game_id = c.game_id "
    "AND m.channel = c.channel AND m.id < c.id ORDER BY m.id DESC LIMIT %s) UNION ALL "
    f"(SELECT {_MESSAGE} FROM chat_messages AS m WHERE m.game_id = c.game_id "
    "AND m.channel = c.channel AND m.id >= c.id ORDER BY m.id LIMIT %s)) AS m "
    "WHERE c.id = ANY(%s) ORDER BY c.id, m.id"
)


def _report(row: Sequence[Any]) -> Report:
    resolution = None
    if row[7] is not None:
        resolution = Resolution(row[7], row[8], row[9], row[10], row[11], row[12])
    return Report(row[0], row[1], row[2], row[3], row[4], row[5], row[6], resolution)


def _listed(row: Sequence[Any]) -> Listed:
    return Listed(_report(row), row[13], row[14], (bool(row[15]), bool(row[16])))


def _message(row: Sequence[Any]) -> Message:
    return Message(int(row[0]), *row[1:])


class SqlReports:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, report: Report) -> None:
        self._session.write(
            Statement(
                "INSERT INTO reports (id, reporter_id, player_id, game_id, message_id, reason, "
                "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (
                    report.id,
                    report.reporter_id,
                    report.player_id,
                    report.game_id,
                    report.message_id,
                    report.reason,
                    report.created_at,
                ),
            )
        )

    def get(self, report_id: UUID, *, lock: bool = False) -> Report | None:
        if lock:
            self._session.begin()
        rows = self._session.fetch(
            f"SELECT {_REPORT} FROM reports AS r WHERE r.id = %s" + (" FOR UPDATE" if lock else ""),
            [report_id],
            one_row=True,
        )
        return _report(rows[0]) if rows else None

    def resolve(self, report_id: UUID, resolution: Resolution) -> None:
        r = resolution
        self._session.write(
            Statement(
                "UPDATE reports SET resolved_at = %s, resolved_by = %s, action = %s, "
                "minutes = %s, until = %s, note = %s WHERE id = %s",
                (r.at, r.by, r.action, r.minutes, r.until, r.note, report_id),
            )
        )

    def made_since(self, reporter_id: UUID, since: datetime) -> int:
        rows = self._session.fetch(
            "SELECT count(*) FROM reports WHERE reporter_id = %s AND created_at > %s",
            [reporter_id, since],
            one_row=True,
        )
        return int(rows[0][0])

    def muted_until(self, player_id: UUID, now: datetime) -> datetime | None:
        rows = self._session.fetch(
            "SELECT max(until) FROM reports WHERE player_id = %s AND action = 'mute' "
            "AND until > %s",
            [player_id, now],
            one_row=True,
        )
        found: datetime | None = rows[0][0]
        return found

    def message(self, message_id: int) -> Message | None:
        rows = self._session.fetch(
            f"SELECT {_MESSAGE} FROM chat_messages AS m WHERE m.id = %s",
            [message_id],
            one_row=True,
        )
        return _message(rows[0]) if rows else None

    def page(self, resolved: bool, after: tuple[datetime, UUID] | None, limit: int) -> list[Listed]:
        where = "r.resolved_at IS NOT NULL" if resolved else "r.resolved_at IS NULL"
        params: list[Any] = []
        if after is not None:
            where += " AND (r.created_at, r.id) " + ("<" if resolved else ">") + " (%s, %s)"
            params += list(after)
        order = "DESC" if resolved else "ASC"
        rows = self._session.fetch(
            f"{_LISTED}WHERE {where} ORDER BY r.created_at {order}, r.id {order} LIMIT %s",
            [*params, limit],
        )
        return [_listed(r) for r in rows]

    def listed(self, report_id: UUID) -> Listed | None:
        rows = self._session.fetch(f"{_LISTED}WHERE r.id = %s", [report_id], one_row=True)
        return _listed(rows[0]) if rows else None

    def around(
        self, message_ids: Sequence[int], before: int, after: int
    ) -> dict[int, list[Message]]:
        found: dict[int, list[Message]] = {int(i): [] for i in message_ids}
        for row in self._session.fetch(_AROUND, [before, after + 1, list(found)]):
            found[int(row[0])].append(_message(row[1:]))
        return found
