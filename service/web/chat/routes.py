"""Table talk (docs/api.md "Table talk"): a game's chat, written and paged, and its
presets. The game stream delivers the messages as they come (``event: chat``)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import Response, jsonify

from service.application.chat import reading
from service.application.chat.ports import ChatMessage
from service.application.chat.reading import as_json
from service.application.chat.texts import PRESETS
from service.application.commands import PostChat
from service.application.privacy import reveal
from service.application.write.registry import execute
from service.web.api import BEARER, Blueprint
from service.web.chat.schemas import (
    ChatMessageSchema,
    ChatPageSchema,
    ChatPostSchema,
    ChatQuerySchema,
    PresetListSchema,
)
from service.web.conditional import if_none_match_tags
from service.web.fields import IDEMPOTENCY_KEY, IF_NONE_MATCH_TAG
from service.web.render import json_response, tagged_response
from service.web.request import command_context, deps, game_uuid, principal

blp = Blueprint("chat", __name__, url_prefix="/v1", description="Table talk: a game's chat")

MESSAGE = ChatMessageSchema()
PAGE = ChatPageSchema()
PRESET_LIST = PresetListSchema()
_PRESETS = {"presets": [{"id": p.id, "text": p.text()} for p in PRESETS]}
_PRESETS_TAG = hashlib.sha256(json.dumps(_PRESETS, sort_keys=True).encode()).hexdigest()[:32]


@blp.route("/games/<id:game_id>/chat", methods=["POST"])
@blp.arguments(ChatPostSchema())
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY_KEY])
@blp.response(201, ChatMessageSchema)
@blp.problems(400, 401, 403, 404, 422, 429)
def post_chat(body: dict[str, Any], game_id: str) -> Response:
    """Write in a game's chat: a seat's token (or its player's) on the `table` channel,
    a player's token without a seat on the `spectators` channel. A text or a preset
    (422 `text_or_preset`, `invalid_text`, `unknown_preset`; `presets_only` on a rated
    four-player table); 5 messages in 10 s per sender (429 `chat_too_fast`)."""
    game = game_uuid(game_id)
    cmd = PostChat(game, body.get("text"), body.get("preset"))
    done = execute(deps(), cmd, command_context("a seat's or a player's token")).result
    written = ChatMessage(
        done.id, game, done.posted_at, done.channel, done.seat, done.player_id, done.name,
        done.text, done.preset,
    )  # fmt: skip
    return json_response(MESSAGE, as_json(written), status=201)


@blp.route("/games/<id:game_id>/chat", methods=["GET"])
@blp.arguments(ChatQuerySchema(), location="query")
@blp.doc(security=BEARER, parameters=[IF_NONE_MATCH_TAG])
@blp.response(200, ChatPageSchema)
@blp.alt_response(304, description="Not modified (If-None-Match)")
@blp.problems(401, 403, 404, 422, 429)
def chat(query: dict[str, Any], game_id: str) -> Response:
    """The messages the caller may read, oldest first, after the message `after`:
    seated players the `table` channel (and `spectators` once the game is over), a
    player without a seat the `spectators` channel; never those of players the caller
    blocked. `next_after` is the last message's id, for the next poll."""
    found = reading.page(
        deps(), game_uuid(game_id), principal(), query.get("after"), query["limit"]
    )
    body = PAGE.dump(
        {"messages": [as_json(m) for m in found.messages], "next_after": found.next_after}
    )
    opened = json.loads(reveal.json_text(deps().vault, json.dumps(body)))
    # The tag of the page as its reader sees it: an author's erasure changes it.
    tag = hashlib.sha256(json.dumps(opened, sort_keys=True).encode()).hexdigest()[:32]
    unless = if_none_match_tags()
    response = Response(status=304) if tag in unless or "*" in unless else jsonify(opened)
    response.headers["ETag"] = f'"{tag}"'
    return response


@blp.route("/chat/presets", methods=["GET"])
@blp.doc(security=[{}], parameters=[IF_NONE_MATCH_TAG])
@blp.response(200, PresetListSchema)
@blp.alt_response(304, description="Not modified (If-None-Match)")
@blp.problems(429)
def presets() -> Response:
    """The chat's presets, each in English, French, German and Chinese."""
    return tagged_response(PRESET_LIST, _PRESETS_TAG, lambda: _PRESETS)
