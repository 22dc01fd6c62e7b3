"""Reports and their resolution (docs/api.md "Reports and moderation"), commands run by
the write path like every command (write/registry.py), and the one check the chat makes
before a player's message: :func:`check_may_chat`.

A report's reason is personal data of the reporter's: sealed under their key. The
operator's note is about the reported player: sealed under theirs, in the report and in
the player's audit. ``suspend`` is the account suspension of docs/api.md "Accounts"
(every token of the player refused until an operator lifts it), so it holds wherever
that does."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

from service.application.commands import FileReport, ResolveReport, SuspendPlayer
from service.application.errors import (
    ConflictError,
    ForbiddenError,
    GameNotFoundError,
    InvalidInputError,
    NotFoundError,
    TooManyError,
)
from service.application.identity import players
from service.application.identity.players import PlayerNotFoundError, audit
from service.application.identity.principals import (
    Principal,
    actor_of,
    require_operator,
    require_player,
)
from service.application.moderation.ports import Report, Resolution
from service.application.ports import Actor, UnitOfWork
from service.application.results import ReportFiled, ReportResolved
from service.application.write.transaction import Transaction

REPORTS_A_DAY = 10
"""Reports one player may make in any 24 hours."""
MAX_MUTE_MINUTES = 7 * 24 * 60
MAX_TEXT = 1000  # a reason's or a note's characters

# What each action leaves in the reported player's audit (suspend: players.suspend's).
_AUDITED = {"none": "report_dismissed", "warn": "warned", "mute": "muted"}


class PlayerMutedError(ForbiddenError):
    code = "player_muted"

    def __init__(self, until: datetime) -> None:
        super().__init__(f"muted by an operator until {until.isoformat()}")
        self.until = until

    def extensions(self) -> dict[str, Any]:
        return {"muted_until": self.until}


class MessageNotFoundError(NotFoundError):
    code = "message_not_found"


class ReportNotFoundError(NotFoundError):
    code = "report_not_found"


class ReportClosedError(ConflictError):
    code = "report_closed"


def check_may_chat(uow: UnitOfWork, player_id: UUID, now: datetime) -> None:
    """:class:`PlayerMutedError` (403 ``player_muted``, with ``muted_until``) while an
    operator's mute of the player runs: the chat calls it before it takes a player's
    message (one read)."""
    until = uow.reports.muted_until(player_id, now)
    if until is not None:
        raise PlayerMutedError(until)


def authorize_file(cmd: FileReport, principal: Principal) -> Actor:
    """A player, with one of their tokens."""
    require_player(principal)
    return actor_of(principal)


def _text(value: str, what: str) -> str:
    """The text trimmed, in NFC; lines may break, no other control character."""
    kept = unicodedata.normalize("NFC", value.strip())
    controls = any(unicodedata.category(c) == "Cc" and c != "\n" for c in kept)
    if not kept or len(kept) > MAX_TEXT or controls:
        raise InvalidInputError(
            f"{what}: 1 to {MAX_TEXT} characters, no control characters", f"invalid_{what}"
        )
    return kept


def file(cmd: FileReport, actor: Actor, tx: Transaction) -> ReportFiled:
    """Refused (nothing kept) when the player, game or message does not exist, when the
    message is not the reported player's or not of the game named, when the reporter
    reports themself, and past :data:`REPORTS_A_DAY`."""
    reporter = require_player(tx.principal).player_id
    reason = _text(cmd.reason, "reason")
    if cmd.player_id == reporter:
        raise InvalidInputError("a player does not report themself", "cannot_report_yourself")
    reported = tx.uow.players.get(cmd.player_id)
    if reported is None or reported.erased_at is not None:
        raise PlayerNotFoundError("no such player")
    game_id = cmd.game_id
    if game_id is not None and tx.uow.games.get(game_id) is None:
        raise GameNotFoundError("no such game")
    if cmd.message_id is not None:
        message = tx.uow.reports.message(cmd.message_id)
        if message is None:
            raise MessageNotFoundError("no such chat message")
        if message.player_id != cmd.player_id:
            raise InvalidInputError("that message is not the player's", "message_not_theirs")
        if game_id is not None and message.game_id != game_id:
            raise InvalidInputError("that message is not of this game", "message_not_in_game")
        game_id = message.game_id
    if tx.uow.reports.made_since(reporter, tx.now - timedelta(days=1)) >= REPORTS_A_DAY:
        raise TooManyError(f"at most {REPORTS_A_DAY} reports in 24 hours", "too_many_reports", 3600)
    report = Report(
        uuid4(),
        reporter,
        cmd.player_id,
        game_id,
        cmd.message_id,
        tx.seal_personal(reporter, reason),
        tx.now,
    )
    tx.uow.reports.add(report)
    return ReportFiled(report.id)


def authorize_resolve(cmd: ResolveReport, principal: Principal) -> Actor:
    """Operators only."""
    require_operator(principal)
    return actor_of(principal)


def resolve(cmd: ResolveReport, actor: Actor, tx: Transaction) -> ReportResolved:
    """Close an open report with its action, recorded in the reported player's audit:
    ``none`` and ``warn`` only there, ``mute`` for ``minutes`` (the player's chat
    messages are refused until then), ``suspend`` the player's account."""
    note = _text(cmd.note, "note")
    if (cmd.minutes is not None) != (cmd.action == "mute"):
        raise InvalidInputError("minutes: given for a mute, and only then", "invalid_minutes")
    if cmd.minutes is not None and not 1 <= cmd.minutes <= MAX_MUTE_MINUTES:
        raise InvalidInputError(f"minutes: 1 to {MAX_MUTE_MINUTES}", "invalid_minutes")
    report = tx.uow.reports.get(cmd.report_id, lock=True)
    if report is None:
        raise ReportNotFoundError("no such report")
    if report.resolution is not None:
        raise ReportClosedError("this report is closed already")
    player_id = report.player_id
    until = None if cmd.minutes is None else tx.now + timedelta(minutes=cmd.minutes)
    said = f"report {report.id}: {cmd.action}"
    if until is not None:
        said += f" for {cmd.minutes} minutes, until {until.isoformat()}"
    reason = tx.seal_personal(player_id, f"{said}; {note}")
    if cmd.action == "suspend":
        record = tx.uow.players.get(player_id)
        if record is not None and record.suspended_at is not None:
            audit(tx, player_id, "suspended", actor, reason=reason)  # suspended already
        else:
            players.suspend(SuspendPlayer(player_id, True, reason), actor, tx)
    else:
        audit(tx, player_id, _AUDITED[cmd.action], actor, reason=reason)
    resolution = Resolution(
        tx.now, actor.id, cmd.action, cmd.minutes, until, tx.seal_personal(player_id, note)
    )
    tx.uow.reports.resolve(report.id, resolution)
    return ReportResolved(report.id)
