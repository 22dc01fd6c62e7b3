"""/v1/lobby: public games waiting for players, for anyone; as a page (with a long-poll)
and as a stream."""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify

from service.application.live import longpolls
from service.application.live.lobby_stream import lobby_stream
from service.application.lobby.ports import LobbyFilter
from service.application.lobby.queries import LobbyUnchanged
from service.web.api import Blueprint
from service.web.conditional import if_none_match_tags
from service.web.fields import IF_NONE_MATCH_INBOX
from service.web.live.holding import held_open, open_streams
from service.web.live.routes import event_stream, sse_event_doc, sse_games_doc
from service.web.lobby.schemas import LobbyFilterSchema, LobbyQuerySchema, LobbySchema
from service.web.request import deps

blp = Blueprint("lobby", __name__, url_prefix="/v1", description="The lobby: public tables")

LOBBY = LobbySchema()


def _filter(query: dict[str, Any]) -> LobbyFilter:
    variant, scoring = query.get("variant"), query.get("scoring")
    return LobbyFilter(
        players=query.get("players"),
        variant=variant.value if variant is not None else None,
        scoring=scoring.value if scoring is not None else None,
        rated=query.get("rated"),
    )


@blp.route("/lobby", methods=["GET"])
@blp.arguments(LobbyQuerySchema(), location="query")
@blp.response(200, LobbySchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(parameters=[IF_NONE_MATCH_INBOX])
@blp.problems(304, 422, 429)
def lobby(query: dict[str, Any]) -> Response:
    """Public games still waiting with a free seat, oldest first, with filters.

    With `wait` and an `If-None-Match` naming the current ETag, a long-poll: the answer
    waits until the lobby changes (200) or `wait` seconds pass (304).
    """
    unless = if_none_match_tags()
    wait = query["wait"] if unless else 0
    release = held_open() if wait else None
    try:
        page = longpolls.lobby(
            deps(), _filter(query), query.get("cursor"), query["limit"], unless, wait
        )
    finally:
        if release is not None:
            release()
    if isinstance(page, LobbyUnchanged):
        response = Response(status=304)
    else:
        response = jsonify(LOBBY.dump(page))
    response.headers["ETag"] = f'"{page.etag}"'
    return response


_LOBBY_STREAM_DOC = {
    "description": 'Server-Sent Events. `event: lobby` (`data`: `{"games": [...]}`, the '
    "first page of open tables, oldest first) first, then `event: table` (`data`: one "
    "table, with `open_seats` 0 once it left the lobby) each time a table changes; "
    "`: keep-alive` comments at least every 15 s.",
    "content": {
        "text/event-stream": {
            "schema": {
                "oneOf": [
                    sse_games_doc("lobby", "LobbyGame"),
                    sse_event_doc("table", "LobbyGame"),
                ]
            }
        }
    },
}


@blp.route("/lobby/stream", methods=["GET"])
@blp.arguments(LobbyFilterSchema(), location="query")
@blp.doc(responses={"200": _LOBBY_STREAM_DOC})
@blp.problems(422, 429)
def stream(query: dict[str, Any]) -> Response:
    """The lobby as it changes: the open tables, then each table that changes."""
    release = held_open()
    try:
        opened = lobby_stream(deps(), _filter(query), open_streams().keepalive)
    except BaseException:
        release()
        raise
    return event_stream(opened, release)
