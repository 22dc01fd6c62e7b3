"""The /v1 game endpoints. Each view: load the body, build the command, run it, render
the result (a command's response is the view at the version it produced). Errors are
rendered by service.web.errors."""

from __future__ import annotations

from typing import Any

from flask import Response

from service.application.commands import (
    BotSeat,
    CreateGame,
    DealInput,
    DeclineSeat,
    Invitation,
    JoinSeat,
    Leave,
    PassCards,
    PlayCard,
    Rematch,
    Resign,
    SeatBot,
)
from service.application.games.queries import feeds, listing, views
from service.application.integrity.verify import verify_for
from service.application.live import longpolls
from service.application.results import Acted, Executed
from service.application.write.registry import execute
from service.rules import TurnClock
from service.web.api import BEARER, Blueprint
from service.web.conditional import if_none_match
from service.web.fields import IDEMPOTENCY_KEY, IF_MATCH, IF_NONE_MATCH, SEAT
from service.web.games.feed_schemas import (
    AuditSchema,
    EventsQuerySchema,
    FeedQuerySchema,
    FeedSchema,
)
from service.web.games.schemas import (
    BotLevelSchema,
    CreateGameSchema,
    GameListSchema,
    GamesQuerySchema,
    JoinedSchema,
    JoinSchema,
    PassSchema,
    PlaySchema,
    StateQuerySchema,
    VerifySchema,
)
from service.web.games.view_schemas import (
    GameViewSchema,
    OperatorStateSchema,
    RematchSchema,
    SeatViewSchema,
)
from service.web.live.holding import held_open
from service.web.render import json_answer, json_response, rendered, view_response
from service.web.request import command_context, deps, game_uuid, principal

blp = Blueprint(
    "games", __name__, url_prefix="/v1", description="Games: commands, views, feeds and audits"
)

# Response schemas, made once (views are rendered by render.json_ready, checked against
# the view schemas and FeedSchema by tests/web/test_render.py).
GAME_LIST = GameListSchema()
JOINED = JoinedSchema()
AUDIT = AuditSchema()
VERIFIED = VerifySchema()


_ETAG = {
    "ETag": {"description": 'the game\'s version: `"<version>"`', "schema": {"type": "string"}}
}
_COMMAND_PARAMETERS = [IDEMPOTENCY_KEY, IF_MATCH]


def _links(game_id: str, operations: list[str], **parameters: str) -> dict[str, Any]:
    """OpenAPI links from a response to the operations that act on what it made, so a
    client (or a stateful fuzzer) knows where its values go."""
    return {
        op: {"operationId": op, "parameters": {"path.game_id": game_id, **parameters}}
        for op in operations
    }


# A new game: join its seats, read it (operators: its state, audit and verify).
_CREATED_LINKS = _links(
    "$response.body#/id",
    ["join_seat", "get_game", "game_stream", "game_record", "seat_bot", "state", "audit", "verify"],
)
# A joined seat: its token acts for the seat in every later call.
_SEAT_LINKS = _links(
    "$response.body#/game_id",
    [
        *("seat_view", "pass_cards", "play_card", "leave", "resign"),
        *("events", "game_stream", "game_record"),
    ],
    **{"header.Authorization": "Bearer {$response.body#/token}"},
)
_ERRORS = (400, 401, 403, 404, 409, 412, 413, 422, 429)
SEAT_TOKEN = "a seat token"


@blp.route("/games", methods=["POST"])
@blp.arguments(CreateGameSchema())
@blp.response(201, GameViewSchema, headers={"Location": {"schema": {"type": "string"}}, **_ETAG})
@blp.doc(parameters=[IDEMPOTENCY_KEY], responses={201: {"links": _CREATED_LINKS}})
@blp.problems(400, 401, 403, 413, 422, 429)
def create_game(body: dict[str, Any]) -> Response:
    """Create a game.

    Anyone may create a game, with a turn clock (`clock`) and bots on any seats (`bots`:
    a game whose seats bots fill starts at once and plays itself); operators may also
    give `seed` and `deals`. A player may invite players (`invite`): their seats are
    kept for them (403 `seat_reserved` to anyone else) until they join or decline.
    """
    deals = body.get("deals")
    clock = body.get("clock")
    command = CreateGame(
        players=body["players"],
        scoring=body["scoring"],
        variant=body["variant"],
        seed=body.get("seed"),
        deals=None
        if deals is None
        else tuple(DealInput(tuple(map(tuple, d["hands"])), d["trump"]) for d in deals),
        clock=None if clock is None else TurnClock(clock["turn_seconds"], clock["on_timeout"]),
        bots=tuple(BotSeat(b["seat"], b["level"]) for b in body.get("bots", ())),
        visibility=body["visibility"],
        rated=body["rated"],
        invite=tuple(Invitation(i["player_id"], i.get("seat")) for i in body.get("invite", ())),
    )
    done = execute(deps(), command, command_context())
    created = done.result
    view = views.public_view_at(deps(), created.game_id, created.version, done.state)
    response = view_response(view, status=201)
    response.headers["Location"] = f"/v1/games/{created.game_id}"
    return response


@blp.route("/games", methods=["GET"])
@blp.arguments(GamesQuerySchema(), location="query")
@blp.response(200, GameListSchema)
@blp.doc(security=BEARER)
@blp.problems(401, 403, 422, 429)
def list_games(query: dict[str, Any]) -> Response:
    """List games, newest first (operators)."""
    page = listing.list_games(
        deps(), principal(), query.get("status"), query.get("cursor"), query["limit"]
    )
    return json_response(GAME_LIST, page)


@blp.route("/games/<id:game_id>", methods=["GET"])
@blp.response(200, GameViewSchema, headers=_ETAG)
@blp.doc(parameters=[IF_NONE_MATCH])
@blp.problems(304, 404, 429)
def get_game(game_id: str) -> Response:
    """The public view of a game: no hidden information."""
    view = views.public_view(deps(), game_uuid(game_id), unless=if_none_match())
    return view_response(view)


@blp.route("/games/<id:game_id>/seats/<int:seat>", methods=["POST"], parameters=[SEAT])
@blp.arguments(JoinSchema())
@blp.response(201, JoinedSchema, headers=_ETAG)
@blp.doc(parameters=_COMMAND_PARAMETERS, responses={201: {"links": _SEAT_LINKS}})
@blp.problems(400, 401, 404, 409, 412, 413, 422, 429)
def join_seat(body: dict[str, Any], game_id: str, seat: int) -> Response:
    """Join a seat. The response holds the seat's secret token, shown only this once.

    The game starts (round 1 is dealt) when the last seat is filled. With a player token
    the seat is the player's: their token acts for it too, `name` may be left out (the
    player's name is used), and a player holds one seat per game (409 `already_seated`).
    """
    command = JoinSeat(game_uuid(game_id), seat, body.get("name"), body.get("client_seed"))
    joined = execute(deps(), command, command_context(answers_a_secret=True)).result
    return json_response(JOINED, joined, status=201, version=joined.version)


@blp.route("/games/<id:game_id>/seats/<int:seat>/bot", methods=["POST"], parameters=[SEAT])
@blp.arguments(BotLevelSchema())
@blp.response(201, GameViewSchema, headers=_ETAG)
@blp.doc(security=BEARER, parameters=_COMMAND_PARAMETERS)
@blp.problems(400, 401, 403, 404, 409, 412, 413, 422, 429)
def seat_bot(body: dict[str, Any], game_id: str, seat: int) -> Response:
    """Seat a bot on a free seat (operators). Returns the public view."""
    command = SeatBot(game_uuid(game_id), seat, body["level"])
    done = execute(deps(), command, command_context(requires="an operator token"))
    return _public_view_after(done, status=201)


@blp.route("/games/<id:game_id>/leave", methods=["POST"])
@blp.response(200, GameViewSchema, headers=_ETAG)
@blp.doc(security=BEARER, parameters=_COMMAND_PARAMETERS)
@blp.problems(*_ERRORS)
def leave(game_id: str) -> Response:
    """Leave the game: a `basic` bot plays the seat from now on, and the game goes on.

    From then on the seat's tokens (the seat's own, and the player's for this game) no
    longer act for it or see its hand (403 `seat_left`). Returns the public view.
    """
    done = execute(deps(), Leave(game_uuid(game_id)), command_context(requires=SEAT_TOKEN))
    return _public_view_after(done)


@blp.route("/games/<id:game_id>/resign", methods=["POST"])
@blp.response(200, SeatViewSchema, headers=_ETAG)
@blp.doc(security=BEARER, parameters=_COMMAND_PARAMETERS)
@blp.problems(*_ERRORS)
def resign(game_id: str) -> Response:
    """Resign: the game ends, the seat's side (team or seat) losing; the round's `reason`
    is `resign`. Returns the seat's view."""
    done = execute(deps(), Resign(game_uuid(game_id)), command_context(requires=SEAT_TOKEN))
    return _seat_view_after(done)


@blp.route("/games/<id:game_id>/seats/<int:seat>/decline", methods=["POST"], parameters=[SEAT])
@blp.response(200, GameViewSchema, headers=_ETAG)
@blp.doc(security=BEARER, parameters=_COMMAND_PARAMETERS)
@blp.problems(*_ERRORS)
def decline_seat(game_id: str, seat: int) -> Response:
    """Decline an invitation: the seat kept for the caller (a player token) becomes free
    for anyone (409 `seat_not_reserved` when it is not kept for them). Returns the public
    view."""
    command = DeclineSeat(game_uuid(game_id), seat)
    done = execute(deps(), command, command_context(requires="a player token"))
    return _public_view_after(done)


@blp.route("/games/<id:game_id>/rematch", methods=["POST"])
@blp.response(201, RematchSchema, headers={"Location": {"schema": {"type": "string"}}, **_ETAG})
@blp.alt_response(
    200,
    schema=GameViewSchema,
    description="the rematch made before",
    headers={"Location": {"schema": {"type": "string"}}, **_ETAG},
)
@blp.doc(parameters=[IDEMPOTENCY_KEY], responses={201: {"links": _CREATED_LINKS}})
@blp.problems(*_ERRORS)
def rematch(game_id: str) -> Response:
    """Play a finished game again: the new game's public view (docs/api.md "Rematch").

    A seat of the finished game (or its player) makes it: same players, scoring,
    variant, clock and visibility; each seat's player invited to the seat to its left
    (seat + 1), the caller seated there at once. Asked with a seat token, the answer
    carries that seat's new token under `joined`. Once made, anyone asking gets it
    (200); an unfinished game is 409 `game_not_finished`.
    """
    done = execute(deps(), Rematch(game_uuid(game_id)), command_context(answers_a_secret=True))
    made = done.result
    view = views.public_view_at(deps(), made.game_id, made.version, done.state)
    status = 201 if made.created else 200
    if made.token is None:
        response = view_response(view, status=status)
    else:
        body = {**rendered(view), "joined": {"seat": made.seat, "token": made.token}}
        response = json_answer(body, status=status, version=made.version)
    response.headers["Location"] = f"/v1/games/{made.game_id}"
    return response


def _public_view_after(done: Executed[Acted], *, status: int = 200) -> Response:
    acted = done.result
    view = views.public_view_at(deps(), acted.game_id, acted.version, done.state)
    return view_response(view, status=status)


@blp.route("/games/<id:game_id>/view", methods=["GET"])
@blp.response(200, SeatViewSchema, headers=_ETAG)
@blp.doc(security=BEARER, parameters=[IF_NONE_MATCH])
@blp.problems(304, 401, 403, 404, 429)
def seat_view(game_id: str) -> Response:
    """The view of the seat whose token is given: the table plus its hand and legal moves."""
    view = views.seat_view(deps(), game_uuid(game_id), principal(), unless=if_none_match())
    return view_response(view)


@blp.route("/games/<id:game_id>/pass", methods=["POST"])
@blp.arguments(PassSchema())
@blp.response(200, SeatViewSchema, headers=_ETAG)
@blp.doc(security=BEARER, parameters=_COMMAND_PARAMETERS)
@blp.problems(*_ERRORS)
def pass_cards(body: dict[str, Any], game_id: str) -> Response:
    """Pass three cards (secret until every seat has passed). Returns the seat's view."""
    command = PassCards(game_uuid(game_id), tuple(body["cards"]))
    done = execute(deps(), command, command_context(requires=SEAT_TOKEN))
    return _seat_view_after(done)


@blp.route("/games/<id:game_id>/play", methods=["POST"])
@blp.arguments(PlaySchema())
@blp.response(200, SeatViewSchema, headers=_ETAG)
@blp.doc(security=BEARER, parameters=_COMMAND_PARAMETERS)
@blp.problems(*_ERRORS)
def play_card(body: dict[str, Any], game_id: str) -> Response:
    """Play a card. Returns the seat's view."""
    command = PlayCard(game_uuid(game_id), body["card"])
    done = execute(deps(), command, command_context(requires=SEAT_TOKEN))
    return _seat_view_after(done)


def _seat_view_after(done: Executed[Acted]) -> Response:
    """A seat's command is answered with its view at the version the command produced
    (also when a retry replays it after the game moved on)."""
    acted = done.result
    view = views.seat_view_at(deps(), acted.game_id, principal(), acted.version, done.state)
    return view_response(view)


@blp.route("/games/<id:game_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, FeedSchema)
@blp.doc(security=BEARER)
@blp.problems(401, 403, 404, 422, 429)
def events(query: dict[str, Any], game_id: str) -> Response:
    """Events after `after`, oldest first: redacted for a seat, complete for an operator.

    With `wait`, a long-poll: nothing after `after` yet holds the answer until an event
    commits or `wait` seconds pass.
    """
    wait = query["wait"]
    release = held_open() if wait else None
    try:
        feed = longpolls.feed(
            deps(), game_uuid(game_id), principal(), query["after"], query["limit"], wait
        )
    finally:
        if release is not None:
            release()
    return json_answer(feed, version=feed.version)


@blp.route("/games/<id:game_id>/state", methods=["GET"])
@blp.arguments(StateQuerySchema(), location="query")
@blp.response(200, OperatorStateSchema)
@blp.doc(security=BEARER)
@blp.problems(401, 403, 404, 422, 429)
def state(query: dict[str, Any], game_id: str) -> Response:
    """The complete state (every hand, the passes) rebuilt from events 1..at (operators)."""
    view = views.operator_state(deps(), game_uuid(game_id), principal(), query.get("at"))
    return view_response(view)


@blp.route("/games/<id:game_id>/audit", methods=["GET"])
@blp.arguments(FeedQuerySchema(), location="query")
@blp.response(200, AuditSchema)
@blp.doc(security=BEARER)
@blp.problems(401, 403, 404, 422, 429)
def audit(query: dict[str, Any], game_id: str) -> Response:
    """The full history: every event with its actor, request metadata and chain hash
    (operators)."""
    trail = feeds.audit(deps(), game_uuid(game_id), principal(), query["after"], query["limit"])
    return json_response(AUDIT, trail, version=trail.version)


@blp.route("/games/<id:game_id>/verify", methods=["GET"])
@blp.response(200, VerifySchema)
@blp.doc(security=BEARER)
@blp.problems(401, 403, 404, 429)
def verify(game_id: str) -> Response:
    """Prove the stored history (operators): recompute the hash chain and replay every
    event under the rules, as `yokai verify` does (its anchors, outside the database,
    are checked by `yokai verify --anchors`). Intact, or the first bad `seq`."""
    report = verify_for(deps(), principal(), game_uuid(game_id))
    body = {
        "intact": report.intact,
        "events": report.events,
        "first_bad_seq": report.bad_seq,
        "reason": report.reason,
    }
    return json_response(VERIFIED, body)
