"""Proving a stored history: its hash chain, its numbering, and replay under the rules."""

from __future__ import annotations

from uuid import UUID

from service.application import chain
from service.application.codec import decode
from service.application.ports import StoredEvent
from service.application.results import VerifyReport
from service.rules import Event, EventDataError, HistoryError, replay_checked, unfair_deal


def verify_history(game_id: UUID, rows: list[StoredEvent], recorded_version: int) -> VerifyReport:
    """The first bad ``seq`` of a game's stored events, or that they are intact.

    ``recorded_version`` is the version the games table recorded with the last command:
    a history shorter than that lost its newest events.
    """
    count = len(rows)
    broken = chain.first_broken_link(rows)
    if broken is not None:
        return VerifyReport(game_id, count, False, broken[0], broken[1])
    events: list[Event] = []
    for row in rows:
        try:
            events.append(decode(row))
        except EventDataError as exc:
            return VerifyReport(game_id, count, False, row.seq, f"undecodable: {exc}")
    try:
        replay_checked(events)
    except HistoryError as exc:
        # The index may be one past the end: the history stops inside a command's events.
        seq = rows[exc.index].seq if exc.index < count else count + 1
        return VerifyReport(game_id, count, False, seq, exc.reason)
    unfair = unfair_deal(events)
    if unfair is not None:  # docs/fairness.md
        return VerifyReport(game_id, count, False, rows[unfair[0]].seq, unfair[1])
    if recorded_version != count:
        return VerifyReport(
            game_id,
            count,
            False,
            min(count, recorded_version) + 1,
            f"the games table records version {recorded_version}; the history has {count} events",
        )
    return VerifyReport(game_id, count, True)
