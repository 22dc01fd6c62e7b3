"""Reports and moderation (API.md Part 4, "Table talk, friends, blocks and reports"): a
player reports a player; operators list the reports and resolve them."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response

from service.application.commands import FileReport, ResolveReport
from service.application.moderation import queries
from service.application.moderation.ports import Listed, Message, Report
from service.application.moderation.queries import ReportPage
from service.application.write.registry import execute
from service.web.api import BEARER, Blueprint
from service.web.fields import IDEMPOTENCY_KEY, IF_NONE_MATCH_TAG
from service.web.moderation.schemas import (
    OperatorReportSchema,
    ReportCreateSchema,
    ReportListSchema,
    ReportSchema,
    ReportsQuerySchema,
    ResolveSchema,
)
from service.web.render import json_response, tagged_response
from service.web.request import command_context, deps, principal

blp = Blueprint("reports", __name__, url_prefix="/v1", description="Reports and moderation")

REPORT = ReportSchema()
OPERATOR_REPORT = OperatorReportSchema()
REPORTS = ReportListSchema()

_PLAYER_TOKEN = "a player token"
_OPERATOR_TOKEN = "an operator token"


def _status(report: Report) -> str:
    return "open" if report.resolution is None else "closed"


def _message(m: Message, reported: int | None) -> dict[str, Any]:
    return {
        "id": m.id,
        "channel": m.channel,
        "seat": m.seat,
        "player_id": m.player_id,
        "name": m.name,
        "text": m.text,
        "preset": m.preset,
        "at": m.at,
        "reported": m.id == reported,
    }


def _listed(found: Listed, context: dict[int, list[Message]]) -> dict[str, Any]:
    r, solved = found.report, found.report.resolution
    shown = context.get(r.message_id, []) if r.message_id is not None else []
    return {
        "id": r.id,
        "status": _status(r),
        "created_at": r.created_at,
        "player": {"id": r.player_id, "name": found.player_name, "erased": found.erased[1]},
        "reporter": {"id": r.reporter_id, "name": found.reporter_name, "erased": found.erased[0]},
        "game_id": r.game_id,
        "message_id": r.message_id,
        "reason": r.reason,
        "context": [_message(m, r.message_id) for m in shown],
        "resolution": None
        if solved is None
        else {
            "action": solved.action,
            "minutes": solved.minutes,
            "until": solved.until,
            "note": solved.note,
            "at": solved.at,
            "by": solved.by,
        },
    }


def _page(page: ReportPage) -> list[dict[str, Any]]:
    return [_listed(found, page.context) for found in page.reports]


@blp.route("/reports", methods=["POST"])
@blp.arguments(ReportCreateSchema())
@blp.response(201, ReportSchema)
@blp.doc(security=BEARER, operationId="create_report", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 413, 422, 429)
def create_report(body: dict[str, Any]) -> Response:
    """Report a player to the operators (a player token), naming a game of theirs or one
    of their chat messages, or neither. 404 `player_not_found`, `game_not_found`,
    `message_not_found`; 422 `cannot_report_yourself`, `message_not_theirs` (the message
    is another's), `message_not_in_game` (of another game than `game_id`),
    `invalid_reason`; 429 `too_many_reports` (10 in any 24 hours)."""
    command = FileReport(body["player_id"], body["reason"], body["game_id"], body["message_id"])
    done = execute(deps(), command, command_context(_PLAYER_TOKEN)).result
    r = queries.own(deps(), principal(), done.report_id)
    answer = {
        "id": r.id,
        "player_id": r.player_id,
        "game_id": r.game_id,
        "message_id": r.message_id,
        "reason": r.reason,
        "status": _status(r),
        "created_at": r.created_at,
    }
    return json_response(REPORT, answer, status=201)


@blp.route("/reports", methods=["GET"])
@blp.arguments(ReportsQuerySchema(), location="query")
@blp.response(200, ReportListSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(security=BEARER, operationId="list_reports", parameters=[IF_NONE_MATCH_TAG])
@blp.problems(304, 401, 403, 422, 429)
def list_reports(query: dict[str, Any]) -> Response:
    """The reports (operators): `open` ones oldest first (the queue), `closed` ones
    newest first, each naming a message with the messages around it in its game and
    channel, their texts and names opened (`"erased player"`, and no text, once their
    author is erased); with an `ETag` (`If-None-Match` → 304)."""
    resolved = query["status"] == "closed"
    page = queries.page(deps(), principal(), resolved, query.get("cursor"), query["limit"])
    return tagged_response(
        REPORTS, page.etag, lambda: {"reports": _page(page), "next_cursor": page.next_cursor}
    )


@blp.route("/reports/<id:report_id>/resolve", methods=["POST"])
@blp.arguments(ResolveSchema())
@blp.response(200, OperatorReportSchema)
@blp.doc(security=BEARER, operationId="resolve_report", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 409, 413, 422, 429)
def resolve_report(body: dict[str, Any], report_id: str) -> Response:
    """Close a report (operators) with an action, recorded in the reported player's
    audit: `none` (dismissed), `warn`, `mute` for `minutes` (their chat messages are
    refused with 403 `player_muted` until then), `suspend` (their account, as `POST
    /v1/players/{id}/suspend`, until an operator lifts it). 404 `report_not_found`;
    409 `report_closed`; 422 `invalid_minutes` (a mute without minutes or past the cap,
    minutes with another action), `invalid_note`."""
    wanted = UUID(report_id)
    command = ResolveReport(wanted, body["action"], body["note"], body["minutes"])
    execute(deps(), command, command_context(_OPERATOR_TOKEN))
    page = queries.one(deps(), principal(), wanted)
    return json_response(OPERATOR_REPORT, _page(page)[0])
