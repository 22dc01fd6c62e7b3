"""The /v1 player endpoints: players, and each player's inbox."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from flask import Response

from service.application.commands import (
    CreateLinkCode,
    CreatePlayer,
    ErasePlayer,
    LiftBan,
    RenamePlayer,
    RevokeToken,
    SuspendPlayer,
)
from service.application.games.ports import InboxEntry
from service.application.identity import queries
from service.application.live import longpolls
from service.application.results import InboxPage, InboxUnchanged, PlayerSuspended
from service.application.write.registry import execute
from service.web.api import BEARER, Blueprint
from service.web.conditional import if_none_match_tags
from service.web.fields import IDEMPOTENCY_KEY, IF_NONE_MATCH_INBOX
from service.web.live.holding import held_open
from service.web.players.schemas import (
    InboxEntrySchema,
    InboxQuerySchema,
    InboxSchema,
    LinkCodeSchema,
    PlayerAuditQuerySchema,
    PlayerAuditSchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    RenameSchema,
    SuspendSchema,
    SuspensionSchema,
    TokenListSchema,
    TokensQuerySchema,
    UnbanSchema,
)
from service.web.render import json_answer, json_response, shaped_by, tagged_response
from service.web.request import command_context, deps, game_uuid, principal

blp = Blueprint("players", __name__, url_prefix="/v1", description="Players and their inbox")

PLAYER_CREATED = PlayerCreatedSchema()
PLAYER = PlayerSchema()
TOKENS = TokenListSchema()
LINK_CODE = LinkCodeSchema()
SUSPENSION = SuspensionSchema()
PLAYER_AUDIT = PlayerAuditSchema()
UNBAN = UnbanSchema()
# The inbox is on the hot path: answered by orjson in its schemas' shape (service/web/render.py).
shaped_by(InboxPage, InboxSchema())
shaped_by(InboxEntry, InboxEntrySchema())


# A player's token acts in the player's calls.
_PLAYER_LINKS = {
    op: {
        "operationId": op,
        "parameters": {"header.Authorization": "Bearer {$response.body#/token}"},
    }
    for op in (
        "me",
        "my_games",
        "my_tokens",
        "player_stream",
        "create_webhook",
        "list_webhooks",
        "create_seek",
    )
}


@blp.route("/players", methods=["POST"])
@blp.arguments(PlayerCreateSchema())
@blp.response(201, PlayerCreatedSchema)
@blp.doc(parameters=[IDEMPOTENCY_KEY], responses={201: {"links": _PLAYER_LINKS}})
@blp.problems(400, 401, 413, 422, 429)
def create_player(body: dict[str, Any]) -> Response:
    """Become a player: one identity across games. The token is shown only this once."""
    created = execute(
        deps(), CreatePlayer(body["name"]), command_context(answers_a_secret=True)
    ).result
    body = {"id": created.player_id, "name": created.name, "token": created.token}
    return json_response(PLAYER_CREATED, body, status=201)


@blp.route("/me", methods=["GET"])
@blp.response(200, PlayerSchema)
@blp.doc(security=BEARER)
@blp.problems(401, 403, 429)
def me() -> Response:
    """The player whose token is given."""
    return json_response(PLAYER, queries.me(deps(), principal()))


@blp.route("/me/games", methods=["GET"])
@blp.arguments(InboxQuerySchema(), location="query")
@blp.response(200, InboxSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(security=BEARER, parameters=[IF_NONE_MATCH_INBOX])
@blp.problems(304, 401, 403, 422, 429)
def my_games(query: dict[str, Any]) -> Response:
    """My games, the ones where I must act first (soonest deadline, longest waiting),
    then the others, most recently updated first.

    With `wait` and an `If-None-Match` naming the current ETag, a long-poll: the answer
    waits until the inbox changes (200) or `wait` seconds pass (304).
    """
    unless = if_none_match_tags()
    wait = query["wait"] if unless else 0
    release = held_open() if wait else None
    try:
        page = longpolls.my_games(
            deps(),
            principal(),
            query["status"],
            query.get("cursor"),
            query["limit"],
            unless,
            wait,
            game_uuid(query["game"]) if "game" in query else None,
        )
    finally:
        if release is not None:
            release()
    response = Response(status=304) if isinstance(page, InboxUnchanged) else json_answer(page)
    response.headers["ETag"] = f'"{page.etag}"'
    return response


@blp.route("/me", methods=["PATCH"])
@blp.arguments(RenameSchema())
@blp.response(200, PlayerSchema)
@blp.doc(security=BEARER, operationId="rename_me", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 413, 422, 429)
def rename(body: dict[str, Any]) -> Response:
    """Rename the player (the games they played keep the names they were played under)."""
    done = execute(deps(), RenamePlayer(body["name"]), command_context(_PLAYER_TOKEN)).result
    return json_response(PLAYER, {"id": done.player_id, "name": done.name})


@blp.route("/me", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="erase_me", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 422, 429)
def erase_me() -> Response:
    """Erase the player for good (docs/privacy.md): the names they played under, their
    linked identities and the client addresses of their requests become unreadable
    everywhere at once; their tokens stop; their seats in running games go to bots as on
    `leave`, their seats in games still waiting are freed. Every game stays playable and
    verifiable; views that showed the name get a new version (ETag)."""
    execute(deps(), ErasePlayer(), command_context(_PLAYER_TOKEN))
    return Response(status=204)


@blp.route("/me/tokens", methods=["GET"])
@blp.arguments(TokensQuerySchema(), location="query")
@blp.response(200, TokenListSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(security=BEARER, operationId="my_tokens", parameters=[IF_NONE_MATCH_INBOX])
@blp.problems(304, 401, 403, 422, 429)
def my_tokens(query: dict[str, Any]) -> Response:
    """The player's tokens that still open it, newest first: when each was made and last
    used (to the minute), how (`via`), and which one this request was sent with."""
    page = queries.tokens(deps(), principal(), query.get("cursor"), query["limit"])
    return tagged_response(TOKENS, page.etag, lambda: page)


@blp.route("/me/tokens/<id:token_id>", methods=["DELETE"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="revoke_token", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def revoke_token(token_id: str) -> Response:
    """Revoke one of the player's tokens (this one too): from now on it opens nothing, in
    every process, and the streams it opened end."""
    execute(deps(), RevokeToken(UUID(token_id)), command_context(_PLAYER_TOKEN))
    return Response(status=204)


_PLAYER_TOKEN = "a player token"


@blp.route("/me/link-codes", methods=["POST"])
@blp.response(201, LinkCodeSchema)
@blp.doc(security=BEARER, operationId="create_link_code", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 422, 429)
def create_link_code() -> Response:
    """A code that signs this player in on another device (`POST /v1/sessions`
    `{"link_code"}`): one use, for 10 minutes. Shown only here."""
    made = execute(deps(), CreateLinkCode(), command_context(_PLAYER_TOKEN)).result
    return json_response(LINK_CODE, made, status=201)


@blp.route("/players/<id:player_id>/suspend", methods=["POST"])
@blp.arguments(SuspendSchema())
@blp.response(200, SuspensionSchema)
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 413, 422, 429)
def suspend_player(body: dict[str, Any], player_id: str) -> Response:
    """Suspend a player (operators): every token of theirs is answered 403
    `player_suspended` from its next request on, and their streams end; their seats are
    as a player's who does not act. Who, when and why: the player's audit."""
    command = SuspendPlayer(UUID(player_id), True, body["reason"])
    return _suspension(execute(deps(), command, command_context(_OPERATOR_TOKEN)).result)


@blp.route("/players/<id:player_id>/unsuspend", methods=["POST"])
@blp.response(200, SuspensionSchema)
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def unsuspend_player(player_id: str) -> Response:
    """Lift a player's suspension (operators)."""
    command = SuspendPlayer(UUID(player_id), False)
    return _suspension(execute(deps(), command, command_context(_OPERATOR_TOKEN)).result)


@blp.route("/players/<id:player_id>/unban", methods=["POST"])
@blp.response(200, UnbanSchema)
@blp.doc(security=BEARER, parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def unban_player(player_id: str) -> Response:
    """Lift a player's running ban (operators): they may seek and join rated games again
    at once; their abandonments still count for the next ban. The player's audit records
    it (`ban_lifted`, with the ban and why); without a running ban nothing is done
    (`lifted` false)."""
    done = execute(deps(), LiftBan(UUID(player_id)), command_context(_OPERATOR_TOKEN)).result
    body = {"id": done.player_id, "name": done.name, "lifted": done.lifted, "banned_until": None}
    return json_response(UNBAN, body)


@blp.route("/players/<id:player_id>/erase", methods=["POST"])
@blp.response(204)
@blp.doc(security=BEARER, operationId="erase_player", parameters=[IDEMPOTENCY_KEY])
@blp.problems(400, 401, 403, 404, 422, 429)
def erase_player(player_id: str) -> Response:
    """Erase a player for good (operators), as `DELETE /v1/me` does; the player's audit
    records who erased them and when (not what). Erasing an erased player changes
    nothing."""
    execute(deps(), ErasePlayer(UUID(player_id)), command_context(_OPERATOR_TOKEN))
    return Response(status=204)


def _suspension(done: PlayerSuspended) -> Response:
    body = {"id": done.player_id, "name": done.name, "suspended": done.suspended}
    return json_response(SUSPENSION, body)


@blp.route("/players/<id:player_id>/audit", methods=["GET"])
@blp.arguments(PlayerAuditQuerySchema(), location="query")
@blp.response(200, PlayerAuditSchema, headers={"ETag": {"schema": {"type": "string"}}})
@blp.doc(security=BEARER, parameters=[IF_NONE_MATCH_INBOX])
@blp.problems(304, 401, 403, 404, 422, 429)
def player_audit(query: dict[str, Any], player_id: str) -> Response:
    """What was done to a player, oldest first (operators): suspensions and their
    lifting, bans lifted, renames, revoked tokens; by whom (an operator by name, the
    player), when and why."""
    page = queries.player_audit(
        deps(), principal(), UUID(player_id), query.get("cursor"), query["limit"]
    )

    def body() -> dict[str, Any]:
        return {
            "player_id": page.player_id,
            "entries": [
                {
                    "at": e.at,
                    "action": e.action,
                    "actor": {"kind": e.actor_kind, "id": e.actor_id},
                    "reason": e.reason,
                    "request_id": e.request_id,
                }
                for e in page.entries
            ],
            "next_cursor": page.next_cursor,
        }

    return tagged_response(PLAYER_AUDIT, page.etag, body)


_OPERATOR_TOKEN = "an operator token"
