"""Blocks and follows (API.md Part 4, "Table talk, friends, blocks and reports"): a
player blocks or follows another player, undoes it, and lists them."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response

from service.application.commands import SetBlock, SetFollow
from service.application.social import queries
from service.application.social.ports import Friend, Listed
from service.application.write.registry import execute
from service.web.api import BEARER, Blueprint
from service.web.fields import IDEMPOTENCY_KEY, IF_NONE_MATCH_TAG
from service.web.render import tagged_response
from service.web.request import command_context, deps, principal
from service.web.social.schemas import BlockListSchema, FollowListSchema, RelationsQuerySchema

blp = Blueprint("social", __name__, url_prefix="/v1", description="Blocks and follows")

BLOCKS = BlockListSchema()
FOLLOWS = FollowListSchema()

_PLAYER_TOKEN = "a player token"


def _blocked(p: Listed) -> dict[str, Any]:
    return {"player_id": p.player_id, "name": p.name, "since": p.since}


def _followed(p: Friend) -> dict[str, Any]:
    return {
        "player_id": p.player_id,
        "name": p.name,
        "since": p.since,
        "online": p.online,
        "playing": list(p.playing),
    }


@blp.route("/me/blocks/<id:player_id>", methods=["PUT"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="block_player", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def block(player_id: str) -> Response:
    """Block a player: their chat messages never reach this player, neither can invite
    the other (403 `blocked`), and quick play never seats them together. Blocking them
    again changes nothing; yourself: 422 `cannot_block_self`; past 1000: 422
    `too_many_blocks`."""
    execute(deps(), SetBlock(UUID(player_id), True), command_context(_PLAYER_TOKEN))
    return Response(status=204)


@blp.route("/me/blocks/<id:player_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="unblock_player", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def unblock(player_id: str) -> Response:
    """Lift the block of a player (not blocked: nothing changes)."""
    execute(deps(), SetBlock(UUID(player_id), False), command_context(_PLAYER_TOKEN))
    return Response(status=204)


@blp.route("/me/blocks", methods=["GET"])
@blp.arguments(RelationsQuerySchema(), location="query")
@blp.response(200, BlockListSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(security=BEARER, operationId="my_blocks", parameters=[IF_NONE_MATCH_TAG])
@blp.problems(304, 401, 403, 422, 429)
def blocks(query: dict[str, Any]) -> Response:
    """The players this player blocked, oldest block first, paged, with an `ETag`
    (`If-None-Match` → 304)."""
    page = queries.blocks(deps(), principal(), query.get("cursor"), query["limit"])
    body = {"players": [_blocked(p) for p in page.players], "next_cursor": page.next_cursor}
    return tagged_response(BLOCKS, page.etag, lambda: body)


@blp.route("/me/follows/<id:player_id>", methods=["PUT"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="follow_player", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def follow(player_id: str) -> Response:
    """Follow a player: they are in this player's list of follows, and each public game
    they create or join reaches this player's stream (`event: follow`). Following them
    again changes nothing; yourself: 422 `cannot_follow_self`; past 1000: 422
    `too_many_follows`."""
    execute(deps(), SetFollow(UUID(player_id), True), command_context(_PLAYER_TOKEN))
    return Response(status=204)


@blp.route("/me/follows/<id:player_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="unfollow_player", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def unfollow(player_id: str) -> Response:
    """Stop following a player (not followed: nothing changes)."""
    execute(deps(), SetFollow(UUID(player_id), False), command_context(_PLAYER_TOKEN))
    return Response(status=204)


@blp.route("/me/follows", methods=["GET"])
@blp.arguments(RelationsQuerySchema(), location="query")
@blp.response(200, FollowListSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(security=BEARER, operationId="my_follows", parameters=[IF_NONE_MATCH_TAG])
@blp.problems(304, 401, 403, 422, 429)
def follows(query: dict[str, Any]) -> Response:
    """The players this player follows, oldest follow first, paged, with an `ETag`
    (`If-None-Match` → 304): whether each is online (a stream of theirs is open) and the
    public games each sits in that are not over."""
    page = queries.follows(deps(), principal(), query.get("cursor"), query["limit"])
    body = {"players": [_followed(p) for p in page.players], "next_cursor": page.next_cursor}
    return tagged_response(FOLLOWS, page.etag, lambda: body)
