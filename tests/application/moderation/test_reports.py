"""Reports through the handlers, on the fakes: a mute refuses the player's chat (the
check the chat calls, :func:`check_may_chat`) until it ends, and only a mute does; the
other refusals of filing and resolving. Over HTTP, on PostgreSQL, with the operators'
list: tests/e2e/test_moderation.py."""

from __future__ import annotations

from datetime import timedelta
from uuid import uuid4

import pytest

from service.application.commands import CreatePlayer, FileReport, ResolveReport
from service.application.errors import InvalidInputError, TooManyError
from service.application.identity.bearer import token_digest
from service.application.identity.principals import Operator, PlayerHolder
from service.application.moderation.reports import (
    REPORTS_A_DAY,
    PlayerMutedError,
    ReportClosedError,
    ReportNotFoundError,
    check_may_chat,
)
from service.application.results import PlayerCreated, ReportFiled
from tests.application.table import Table

OPERATOR = Operator("moderator")


def player(table: Table, name: str) -> PlayerHolder:
    created = table.run(CreatePlayer(name))
    assert isinstance(created, PlayerCreated)
    return PlayerHolder(created.player_id, token_digest(created.token))


def report(table: Table, by: PlayerHolder, about: PlayerHolder) -> ReportFiled:
    filed = table.run(FileReport(about.player_id, "rude at the table"), by)
    assert isinstance(filed, ReportFiled)
    return filed


def may_chat(table: Table, who: PlayerHolder) -> None:
    with table.deps.uow() as uow:
        check_may_chat(uow, who.player_id, table.clock.now())


def test_a_mute_refuses_the_players_chat_until_it_ends(table: Table) -> None:
    mio, bo = player(table, "Mio"), player(table, "Bo")
    filed = report(table, mio, bo)
    may_chat(table, bo)  # reported is not muted
    table.run(ResolveReport(filed.report_id, "mute", "insults", 30), OPERATOR)
    with pytest.raises(PlayerMutedError) as refused:
        may_chat(table, bo)
    assert refused.value.code == "player_muted"
    ends = table.clock.now() + timedelta(minutes=30)
    assert refused.value.extensions() == {"muted_until": ends}
    may_chat(table, mio)  # the reporter is not
    table.clock.advance(timedelta(minutes=29, seconds=59))
    with pytest.raises(PlayerMutedError):
        may_chat(table, bo)
    table.clock.advance(timedelta(seconds=1))
    may_chat(table, bo)  # over


def test_the_longest_running_mute_holds(table: Table) -> None:
    mio, bo, kai = player(table, "Mio"), player(table, "Bo"), player(table, "Kai")
    long, short = report(table, mio, bo), report(table, kai, bo)
    table.run(ResolveReport(long.report_id, "mute", "insults", 60), OPERATOR)
    table.run(ResolveReport(short.report_id, "mute", "again", 5), OPERATOR)
    with pytest.raises(PlayerMutedError) as refused:
        may_chat(table, bo)
    assert refused.value.until == table.clock.now() + timedelta(minutes=60)


@pytest.mark.parametrize("action", ["none", "warn"])
def test_only_a_mute_refuses_chat(table: Table, action: str) -> None:
    mio, bo = player(table, "Mio"), player(table, "Bo")
    filed = report(table, mio, bo)
    table.run(ResolveReport(filed.report_id, action, "looked at it"), OPERATOR)
    may_chat(table, bo)


def test_a_closed_report_is_not_resolved_again_nor_an_unknown_one(table: Table) -> None:
    mio, bo = player(table, "Mio"), player(table, "Bo")
    filed = report(table, mio, bo)
    table.run(ResolveReport(filed.report_id, "warn", "first"), OPERATOR)
    with pytest.raises(ReportClosedError):
        table.run(ResolveReport(filed.report_id, "mute", "second", 10), OPERATOR)
    may_chat(table, bo)  # the refused mute left nothing
    with pytest.raises(ReportNotFoundError):
        table.run(ResolveReport(uuid4(), "warn", "who?"), OPERATOR)


@pytest.mark.parametrize(
    ("action", "minutes"),
    [("mute", None), ("mute", 0), ("mute", 7 * 24 * 60 + 1), ("warn", 5), ("suspend", 5)],
)
def test_minutes_go_with_a_mute_and_only_with_it(
    table: Table, action: str, minutes: int | None
) -> None:
    mio, bo = player(table, "Mio"), player(table, "Bo")
    filed = report(table, mio, bo)
    with pytest.raises(InvalidInputError) as refused:
        table.run(ResolveReport(filed.report_id, action, "note", minutes), OPERATOR)
    assert refused.value.code == "invalid_minutes"


def test_a_player_makes_ten_reports_a_day(table: Table) -> None:
    mio = player(table, "Mio")
    others = [player(table, f"P{n}") for n in range(REPORTS_A_DAY + 1)]
    for other in others[:REPORTS_A_DAY]:
        report(table, mio, other)
    with pytest.raises(TooManyError) as refused:
        report(table, mio, others[-1])
    assert refused.value.code == "too_many_reports"
    table.clock.advance(timedelta(days=1))  # the first ones are a day old
    report(table, mio, others[-1])


@pytest.mark.parametrize(
    ("reason", "code"),
    [("   ", "invalid_reason"), ("bell\x07", "invalid_reason"), ("x" * 1001, "invalid_reason")],
)
def test_a_reason_is_text(table: Table, reason: str, code: str) -> None:
    mio, bo = player(table, "Mio"), player(table, "Bo")
    with pytest.raises(InvalidInputError) as refused:
        table.run(FileReport(bo.player_id, reason), mio)
    assert refused.value.code == code


def test_a_player_does_not_report_themself(table: Table) -> None:
    mio = player(table, "Mio")
    with pytest.raises(InvalidInputError) as refused:
        table.run(FileReport(mio.player_id, "me"), mio)
    assert refused.value.code == "cannot_report_yourself"
