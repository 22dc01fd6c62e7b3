"""Hand records (docs/record-format.md): a game's record for whoever asks, the operators'
import of a finished game's record, and their NDJSON export of many games."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Response, request

from service.application.commands import ImportRecord
from service.application.games.queries import views
from service.application.handrecords import queries
from service.application.handrecords.as_json import to_json
from service.application.handrecords.text import to_text
from service.application.privacy import reveal
from service.application.write.registry import execute
from service.settings import MAX_BODY_BYTES
from service.web.api import BEARER, Blueprint
from service.web.errors import RequestProblemError
from service.web.fields import IDEMPOTENCY_KEY
from service.web.games.view_schemas import GameViewSchema
from service.web.records.schemas import ExportQuerySchema, HandRecordSchema, ImportSchema
from service.web.render import view_response
from service.web.request import command_context, deps, game_uuid, principal

blp = Blueprint(
    "records", __name__, url_prefix="/v1", description="Hand records: read, import, export"
)

TEXT = "text/plain; charset=utf-8"
NDJSON = "application/x-ndjson"

_RECORD_DOC = {
    "description": "The record as text (docs/record-format.md); with `Accept: "
    "application/json`, the same as JSON. Only what the caller may see: before the end a "
    "seat sees its own hands and passes, the public none; after it everyone sees all.",
    "content": {
        "text/plain": {"schema": {"type": "string"}},
        "application/json": {"schema": HandRecordSchema},
    },
}


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/plain", "application/json"])
    return best == "application/json"


@blp.route("/games/<id:game_id>/record", methods=["GET"])
@blp.doc(security=[{}, *BEARER], responses={"200": _RECORD_DOC})
@blp.problems(401, 403, 404, 429)
def game_record(game_id: str) -> Response:
    """A game as a hand record, as the caller may see it (no token: the public)."""
    record = queries.record(deps(), game_uuid(game_id), principal())
    if _wants_json():
        return Response(
            json.dumps(to_json(record), ensure_ascii=False),
            mimetype="application/json",
        )
    return Response(to_text(record), content_type=TEXT)


# The limit is the body's, in bytes (service/web/request.py check_body_size): no
# maxLength, which counts characters, can say it, so the description does.
_IMPORT_BODY = {
    "required": True,
    "description": "A finished game's complete record (every card shown), as UTF-8 text; or "
    f'JSON `{{"record": "<the text>"}}`. The body is at most {MAX_BODY_BYTES:,} bytes '
    "(64 KiB) in either form, 413 `body_too_large` beyond: larger records with "
    "`yokai import`.",
    "content": {
        "text/plain": {"schema": {"type": "string"}},
        "application/json": {"schema": ImportSchema},
    },
}


@blp.route("/games/import", methods=["POST"])
@blp.doc(security=BEARER, requestBody=_IMPORT_BODY, parameters=[IDEMPOTENCY_KEY])
@blp.response(201, GameViewSchema)
@blp.problems(400, 401, 403, 413, 415, 422, 429)
def import_game(**_: Any) -> Response:
    """Import a finished game's record (operators): a new game whose events replay it.

    The record's moves are played again through the rules in one transaction: nothing
    is created when a line is not a record (422 `invalid_record`), a move breaks a rule
    (`illegal_move`) or a result is not what the rules give (`record_mismatch`); the
    problem's detail names the line.
    """
    context = command_context(requires="an operator token")
    done = execute(deps(), ImportRecord(_record_text()), context)
    created = done.result
    view = views.public_view_at(deps(), created.game_id, created.version, done.state)
    response = view_response(view, status=201)
    response.headers["Location"] = f"/v1/games/{created.game_id}"
    return response


def _record_text() -> str:
    mimetype = request.mimetype
    raw = request.get_data(cache=True)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RequestProblemError(400, "malformed_body", "a record is UTF-8 text") from None
    if mimetype == "application/json":
        try:
            body = json.loads(text)
        except (ValueError, RecursionError):
            raise RequestProblemError(400, "malformed_json", "the body is not JSON") from None
        if not isinstance(body, dict) or not isinstance(body.get("record"), str):
            raise RequestProblemError(
                422, "invalid_request", 'a JSON body is {"record": "<the record text>"}'
            )
        return str(body["record"])
    if mimetype not in ("text/plain", ""):
        raise RequestProblemError(
            415, "unsupported_media_type", "send the record as text/plain (or JSON)"
        )
    return text


_EXPORT_DOC = {
    "description": "One JSON object per line, streamed: `id`, `created_at`, `updated_at`, "
    "`version` and `record` (the whole record, as `/record` gives it in JSON).",
    "content": {NDJSON: {"schema": {"type": "string"}}},
}


@blp.route("/export", methods=["GET"])
@blp.arguments(ExportQuerySchema(), location="query")
@blp.doc(security=BEARER, responses={"200": _EXPORT_DOC})
@blp.problems(401, 403, 422, 429)
def export(query: dict[str, Any]) -> Response:
    """Every game's record as NDJSON, oldest change first (operators), for analytics.

    `since` keeps the games that changed at or after that time: a client that keeps the
    `updated_at` of the last line asks again from there (lines at that very time come
    again). Read a page of games at a time, never the whole table.
    """
    lines = queries.export(deps(), principal(), query.get("status"), query.get("since"))
    first = next(lines, None)  # refusals (401, 403) before any byte is sent
    vault = deps().vault  # personal data opened line by line (docs/privacy.md)

    def body() -> Iterator[bytes]:
        item = first
        while item is not None:
            yield reveal.json_bytes(vault, queries.export_line(*item))
            item = next(lines, None)

    return Response(body(), mimetype=NDJSON)
