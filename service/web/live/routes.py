"""Live delivery over HTTP: Server-Sent Events streams of a game and of a player, each
holding a place among the open streams of its token and address (holding.py).

A stream is checked (404, 401, 403, 422, 429) before its first byte; then its messages
(service/application/live/streams.py, player_stream.py) are written as SSE as they come. Under
gunicorn's gevent worker (deploy/gunicorn.conf.py) a waiting stream is a parked greenlet:
no OS thread, no database connection.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

from flask import Response, request

from service.application.chat.ports import ChatMessage
from service.application.chat.reading import as_json
from service.application.identity.principals import PlayerHolder, SeatHolder
from service.application.live import streams
from service.application.live.chat_stream import ChatStreamMessage
from service.application.live.lobby_stream import LobbyMessage, TableMessage
from service.application.live.player_stream import player_stream as open_player_stream
from service.application.live.streams import (
    EndMessage,
    EventMessage,
    FollowMessage,
    GameMessage,
    InboxMessage,
    KeepAlive,
    MatchedMessage,
    Stream,
    ViewMessage,
)
from service.application.privacy import reveal
from service.application.privacy.ports import KeyVault
from service.web.api import BEARER, Blueprint
from service.web.chat.schemas import ChatMessageSchema
from service.web.errors import RequestProblemError
from service.web.fields import LAST_EVENT_ID
from service.web.live.holding import held_open, open_streams
from service.web.live.schemas import StreamQuerySchema
from service.web.lobby.schemas import LobbyGameSchema
from service.web.players.schemas import InboxEntrySchema
from service.web.render import json_ready, rendered
from service.web.request import deps, game_uuid, principal

blp = Blueprint("live", __name__, url_prefix="/v1", description="Live delivery: event streams")

INBOX_ENTRY = InboxEntrySchema()  # as GET /v1/me/games gives an entry
LOBBY_GAME = LobbyGameSchema()  # as GET /v1/lobby gives a table
CHAT_MESSAGE = ChatMessageSchema()  # as GET /v1/games/{id}/chat gives a message
_LAST_EVENT_ID = re.compile(r"^\d{1,10}$")


def _sse(event: str, ident: int | None, data: Any) -> bytes:
    head = f"event: {event}\n" + (f"id: {ident}\n" if ident is not None else "")
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


KEEPALIVE_LINE = b": keep-alive\n\n"


@functools.lru_cache(maxsize=256)
def _chat_sse(message: ChatMessage) -> bytes:
    """A chat message's SSE bytes, made once per process for all the streams it goes to
    (its sealed name and text are opened by each stream as it sends them)."""
    return _sse("chat", None, CHAT_MESSAGE.dump(as_json(message)))


def encode(message: Any) -> bytes:
    """One stream message as SSE bytes."""
    match message:
        case ViewMessage(view=view):
            return _sse("view", view.version, rendered(view))
        case EventMessage(event=event):
            return _sse("game_event", event.seq, json_ready(event))
        case EndMessage(version=version):
            return _sse("end", None, {"version": version})
        case InboxMessage(games=games):
            return _sse("inbox", None, {"games": INBOX_ENTRY.dump(games, many=True)})
        case GameMessage(entry=entry):
            return _sse("game", None, INBOX_ENTRY.dump(entry))
        case MatchedMessage(seek=seek):
            matched = {"seek_id": str(seek.id), "game_id": str(seek.game_id), "seat": seek.seat}
            return _sse("matched", None, matched)
        case FollowMessage(player_id=player_id, game_id=game_id):
            return _sse("follow", None, {"game_id": str(game_id), "player_id": str(player_id)})
        case LobbyMessage(games=games):
            return _sse("lobby", None, {"games": LOBBY_GAME.dump(games, many=True)})
        case TableMessage(entry=entry):
            return _sse("table", None, LOBBY_GAME.dump(entry))
        case ChatStreamMessage(message=chat):
            return _chat_sse(chat)
        case KeepAlive():
            return KEEPALIVE_LINE
    raise TypeError(f"not a stream message: {message!r}")  # pragma: no cover


class EventStreamBody:
    """The response body: the stream's messages as SSE; closing it (the client went
    away, the server stops) closes the stream and gives back its place."""

    def __init__(
        self, stream: Stream[Any], release: Callable[[], None], vault: KeyVault | None = None
    ) -> None:
        self._stream = stream
        self._release = release
        self._vault = vault  # personal data is opened as each message goes out

    def __iter__(self) -> Iterator[bytes]:
        # A command's events go out with its view, in one write (one system call and one
        # chunk instead of one per message).
        pending: list[bytes] = []
        for message in self._stream:
            pending.append(encode(message))
            if not isinstance(message, EventMessage):
                yield reveal.json_bytes(self._vault, b"".join(pending))
                pending.clear()
        if pending:  # pragma: no cover - a stream's events are always followed by a view
            yield reveal.json_bytes(self._vault, b"".join(pending))

    def close(self) -> None:
        try:
            self._stream.close()
        finally:
            self._release()


def event_stream(stream: Stream[Any], release: Callable[[], None]) -> Response:
    vault = deps().vault
    response = Response(EventStreamBody(stream, release, vault), mimetype="text/event-stream")
    # What a stream carries depends on the token (a seat's hand): no cache keeps it.
    response.headers["Cache-Control"] = "private, no-store"
    response.headers["X-Accel-Buffering"] = "no"  # a proxy must not hold messages back
    return response


def _resume_after(query: dict[str, Any]) -> int | None:
    header = request.headers.get("Last-Event-ID")
    if header is None or header.strip() == "":
        after: int | None = query.get("after")
        return after
    if not _LAST_EVENT_ID.match(header.strip()):
        raise RequestProblemError(
            422, "invalid_last_event_id", "Last-Event-ID must be an event's seq (a number)"
        )
    return int(header)


def _sse_event(event: str, data: dict[str, Any], *, numbered: bool) -> dict[str, Any]:
    """One Server-Sent Event as the contract describes it: its `event` name, its `id`
    (the version or seq; an `end` event keeps the last one) and its JSON `data`."""
    properties: dict[str, Any] = {
        "event": {"type": "string", "const": event},
        "id": {"type": "string", "pattern": "^[0-9]+$"},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": data,
        },
    }
    required = ["event", "data", "id"] if numbered else ["event", "data"]
    return {"type": "object", "required": required, "properties": properties}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def sse_event_doc(event: str, component: str) -> dict[str, Any]:
    """An unnumbered event whose data is a component schema, as the contract says."""
    return _sse_event(event, _ref(component), numbered=False)


def sse_games_doc(event: str, component: str) -> dict[str, Any]:
    """An unnumbered event whose data is ``{"games": [component...]}`` (a stream's first
    message: the list it then keeps up to date one item at a time)."""
    games = {"type": "array", "items": _ref(component)}
    data = {"type": "object", "required": ["games"], "properties": {"games": games}}
    return _sse_event(event, data, numbered=False)


# Each event of a stream (the `schema` of an event stream is its events', as OpenAPI 3.2
# says with `itemSchema`); comments (keep-alives) are not events.
_GAME_STREAM_EVENT = {
    "oneOf": [
        _sse_event(
            "view",
            {"anyOf": [_ref("GameView"), _ref("SeatView"), _ref("OperatorState")]},
            numbered=True,
        ),
        _sse_event("game_event", _ref("FeedEvent"), numbered=True),
        _sse_event(
            "end",
            {
                "type": "object",
                "required": ["version"],
                "properties": {"version": {"type": "integer"}},
            },
            numbered=False,
        ),
        sse_event_doc("chat", "ChatMessage"),
    ]
}
_PLAYER_STREAM_EVENT = {
    "oneOf": [
        sse_games_doc("inbox", "InboxEntry"),
        sse_event_doc("game", "InboxEntry"),
        _sse_event(
            "matched",
            {
                "type": "object",
                "required": ["seek_id", "game_id", "seat"],
                "properties": {
                    "seek_id": {"type": "string", "format": "uuid"},
                    "game_id": {"type": "string", "format": "uuid"},
                    "seat": {"type": "integer"},
                },
            },
            numbered=False,
        ),
        _sse_event(
            "follow",
            {
                "type": "object",
                "required": ["game_id", "player_id"],
                "properties": {
                    "game_id": {"type": "string", "format": "uuid"},
                    "player_id": {"type": "string", "format": "uuid"},
                },
            },
            numbered=False,
        ),
    ]
}
_STREAM_DOC = {
    "description": "Server-Sent Events. `event: view` (`id`: the version; `data`: the "
    "viewer's view, as `GET /v1/games/{id}` (public), `/view` (a seat) or `/state` (an "
    "operator) give it at that version); `event: game_event` (`id`: the seq; `data`: the "
    "event as the viewer's `/events` feed gives it; the public sees what no seat hides); "
    '`event: end` (`data`: `{"version": n}`) after the view of a finished game, then the '
    "stream closes; `event: chat` (`data`: a message as `GET /v1/games/{id}/chat` gives "
    "it) for each chat message the viewer may read, from the stream's opening on; "
    "`: keep-alive` comments at least every 15 s.",
    "content": {
        "text/event-stream": {
            "schema": _GAME_STREAM_EVENT,
            "example": 'event: view\nid: 12\ndata: {"id": "...", "version": 12, ...}\n\n'
            'event: game_event\nid: 13\ndata: {"seq": 13, "type": "CardPlayed", ...}\n\n'
            'event: view\nid: 13\ndata: {"id": "...", "version": 13, ...}\n\n'
            ": keep-alive\n\n",
        }
    },
}


@blp.route("/games/<id:game_id>/stream", methods=["GET"])
@blp.arguments(StreamQuerySchema(), location="query")
@blp.doc(
    security=[{}, *BEARER],
    parameters=[LAST_EVENT_ID],
    responses={
        "200": _STREAM_DOC,
        "204": {
            "description": "`Last-Event-ID` is the final version of a finished game: "
            "nothing more will come (an EventSource stops reconnecting)"
        },
    },
)
@blp.problems(401, 403, 404, 422, 429)
def game_stream(query: dict[str, Any], game_id: str) -> Response:
    """A game as it happens: the viewer's view, then each command's events and the new view.

    No token: the public view; a seat's token (or the token of the player holding it):
    that seat and the table's chat; a player's token without a seat: the public view and
    the spectators' chat; an operator's token: everything.
    """
    after = _resume_after(query)
    release = held_open()
    try:
        stream = streams.game_stream(
            deps(), game_uuid(game_id), principal(), after, open_streams().keepalive
        )
    except BaseException:
        release()
        raise
    if stream.complete and request.headers.get("Last-Event-ID", "").strip():
        # An EventSource reconnecting after `end`: 204 is what makes it stop (HTML
        # Living Standard, server-sent events), where a stream would start it over.
        stream.close()
        release()
        return Response(status=204)
    return event_stream(stream, _watched(release, game_uuid(game_id)))


def _watched(release: Callable[[], None], game_id: UUID | None) -> Callable[[], None]:
    """``release``, and the end of the caller's looking (no push is sent to a player for
    a game they look at: service/application/notify/watching.py) if a player opened it."""
    who, watching = principal(), deps().watching
    player = who.player_id if isinstance(who, SeatHolder | PlayerHolder) else None
    if watching is None or player is None:
        return release
    unwatch = watching.open(player, game_id)

    def both() -> None:
        try:
            unwatch()
        finally:
            release()

    return both


_PLAYER_STREAM_DOC = {
    "description": 'Server-Sent Events. `event: inbox` (`data`: `{"games": [entry...]}`, '
    "the active inbox in inbox order) first, then `event: game` (`data`: one inbox entry) "
    "each time one of the player's games changes, and `event: matched` (`data`: "
    '`{"seek_id", "game_id", "seat"}`) when one of the player\'s seeks is paired (before '
    'its game\'s `game`), `event: follow` (`data`: `{"game_id", "player_id"}`) when a '
    "player they follow takes a seat of a public game; `: keep-alive` comments at least "
    "every 15 s.",
    "content": {"text/event-stream": {"schema": _PLAYER_STREAM_EVENT}},
}


@blp.route("/me/stream", methods=["GET"])
@blp.doc(security=BEARER, responses={"200": _PLAYER_STREAM_DOC})
@blp.problems(401, 403, 429)
def player_stream() -> Response:
    """My games as they change: the active inbox, then each entry that changes (and each
    seek of mine that is matched)."""
    release = held_open()
    try:
        stream = open_player_stream(deps(), principal(), open_streams().keepalive)
    except BaseException:
        release()
        raise
    return event_stream(stream, _watched(release, None))
