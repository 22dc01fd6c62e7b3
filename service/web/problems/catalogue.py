"""Every problem ``code`` the service answers with (docs/api.md, "Problem details"): the
``title`` each problem document carries, a short sentence a client may show as it is,
and what to do about it, which the code's page says (``GET /problems/<code>``).

A code's title never changes from one occurrence to the next (RFC 9457 3.1.3); the
``detail`` says what happened this time. tests/web/test_problem_types.py holds every code
the service's source can raise to having an entry here. Past 400 lines: a catalogue of
every code, kept in one place so that a client's writer reads it as one list.
"""

from __future__ import annotations

from dataclasses import dataclass
from http import HTTPStatus

from service.settings import MAX_BODY_BYTES


@dataclass(frozen=True, slots=True)
class ProblemType:
    title: str
    advice: str


_BEARER = "Send Authorization: Bearer <token>"

PROBLEM_TYPES: dict[str, ProblemType] = {
    # 400: the request cannot be read
    "bad_request": ProblemType(
        "The request could not be read",
        "Check its method, headers and body against the API description (/v1/openapi.json).",
    ),
    "malformed_json": ProblemType(
        "The body is not valid JSON", "Send a JSON object (an empty body counts as {})."
    ),
    "malformed_body": ProblemType(
        "The body could not be read",
        "Send the whole body again; a hand record must be UTF-8 text.",
    ),
    "invalid_idempotency_key": ProblemType(
        "The Idempotency-Key header is not valid",
        "Use 1 to 255 visible ASCII characters: a random UUID.",
    ),
    "weak_idempotency_key": ProblemType(
        "The Idempotency-Key is too short to send without a token",
        "Without a token, use a key of at least 32 characters: a random UUID.",
    ),
    "invalid_if_match": ProblemType(
        "The If-Match header cannot be read",
        'Send * or a list of entity tags in quotes, such as "12" (the game\'s ETag).',
    ),
    # 401
    "missing_token": ProblemType(
        "This needs a token",
        f"{_BEARER} with the seat, player or operator token the endpoint asks for.",
    ),
    "invalid_token": ProblemType(
        "The token is not valid",
        f"{_BEARER} with a token this server gave and nobody revoked; join a seat or "
        "sign in again for a new one.",
    ),
    "invalid_id_token": ProblemType(
        "The sign-in was refused", "Sign in with the identity provider again."
    ),
    "invalid_link_code": ProblemType(
        "The link code is not valid",
        "Make a new link code where you are signed in: each is used once, and soon expires.",
    ),
    # 403
    "forbidden": ProblemType(
        "This token does not allow that",
        "Use the token of the seat, player or operator the action belongs to.",
    ),
    "seat_left": ProblemType(
        "You left this seat", "A bot plays it now: its tokens no longer act for it."
    ),
    "player_suspended": ProblemType(
        "This player is suspended", "An operator suspended this player: ask them why."
    ),
    "player_banned": ProblemType(
        "This player is banned from seeks and rated games for now",
        "Abandoning a rated or quick-play game bans for 10 minutes, doubled for each "
        "abandonment within 24 hours (at most 48 hours): wait until `banned_until`, or "
        "join a casual game meanwhile.",
    ),
    "player_muted": ProblemType(
        "This player may not chat for now",
        "An operator muted this player after a report: wait until `muted_until`.",
    ),
    "seat_reserved": ProblemType(
        "That seat is kept for an invited player",
        "Join a seat that is not reserved, or wait for the invited player.",
    ),
    "players_only": ProblemType(
        "Rated games are for players only",
        "Join with a player token: create a player or sign in first.",
    ),
    "blocked": ProblemType(
        "One of you blocked the other",
        "A player cannot invite, nor be invited by, a player either of them blocked.",
    ),
    # 404
    "game_not_found": ProblemType(
        "There is no such game", "Check the game's id: the whole UUID the API gave."
    ),
    "no_review": ProblemType(
        "This game's review was not asked for",
        "Ask for it first: POST /v1/games/{id}/review, then read it when it is done.",
    ),
    "unknown_seat": ProblemType(
        "There is no such seat",
        "Seats are numbered from 0 to the number of players less one.",
    ),
    "subscription_not_found": ProblemType(
        "There is no such push subscription",
        "List your subscriptions (GET /v1/me/push-subscriptions) for their ids.",
    ),
    "webhook_not_found": ProblemType(
        "There is no such webhook", "List your webhooks (GET /v1/webhooks) for their ids."
    ),
    "token_not_found": ProblemType(
        "There is no such token", "List the player's tokens for their ids."
    ),
    "player_not_found": ProblemType("There is no such player", "Check the player's id."),
    "message_not_found": ProblemType(
        "There is no such chat message", "Check the message's id in the game's chat."
    ),
    "report_not_found": ProblemType(
        "There is no such report", "List the reports (GET /v1/reports) for their ids."
    ),
    "seek_not_found": ProblemType(
        "There is no such seek",
        "Check the seek's id: a seek is gone once it is matched or cancelled.",
    ),
    "ladder_not_found": ProblemType(
        "There is no such ladder", "Check the ladder's name against the ratings' ladders."
    ),
    "not_found": ProblemType(
        "Nothing is at this address",
        "Check the path against the API description (/v1/openapi.json).",
    ),
    # 405, 406
    "method_not_allowed": ProblemType(
        "This method is not allowed here",
        "Use one of the methods the response's Allow header lists.",
    ),
    "not_acceptable": ProblemType("No answer in a format you accept", "Accept application/json."),
    # 409: not legal in the game's current state
    "wrong_phase": ProblemType(
        "That cannot be done at this point of the game",
        "Read the game again: its status and phase say what can be done now.",
    ),
    "not_your_turn": ProblemType(
        "It is not your turn", "Wait for your turn: the view says whose turn it is."
    ),
    "card_not_in_hand": ProblemType(
        "That card is not in your hand", "Choose a card of your hand (your seat's view)."
    ),
    "must_follow_suit": ProblemType(
        "You must follow suit",
        "Play a card of the suit led while you hold one: your view's legal lists them.",
    ),
    "already_passed": ProblemType(
        "You have passed your cards already", "Wait for the other seats to pass."
    ),
    "seat_taken": ProblemType(
        "That seat is taken", "Choose an empty seat: the public view shows which are."
    ),
    "game_over": ProblemType(
        "The game is over", "Nothing more can be played: read the result, or start a new game."
    ),
    "game_not_started": ProblemType(
        "The game has not started yet", "Wait until every seat is filled."
    ),
    "seat_empty": ProblemType("That seat is empty", "Someone must join the seat first."),
    "bot_seat": ProblemType("A bot holds that seat", "Choose a seat no bot holds."),
    "already_seated": ProblemType(
        "You hold a seat of this game already",
        "A player holds one seat per game: play from the one you hold.",
    ),
    "identity_in_use": ProblemType(
        "That identity belongs to another player",
        "Sign in as that player, or link another identity.",
    ),
    "already_seeking": ProblemType(
        "You are looking for a game already", "Cancel your open seek before making another."
    ),
    "seek_matched": ProblemType(
        "The seek has found its game already", "Open the game instead of cancelling the seek."
    ),
    "concurrent_update": ProblemType(
        "Too many changes to this game at once",
        "Retry the request, with the same Idempotency-Key.",
    ),
    "seat_not_reserved": ProblemType(
        "No seat is kept for you here", "Only a seat kept for you can be declined."
    ),
    "game_not_finished": ProblemType(
        "The game is not finished",
        "A rematch is made, and a hand review given, once the game is over.",
    ),
    "rematch_exists": ProblemType(
        "This game has its rematch already", "Open the rematch the game's view names."
    ),
    "report_closed": ProblemType(
        "This report is closed already",
        "Read how it was resolved in GET /v1/reports?status=closed.",
    ),
    # 412
    "stale_version": ProblemType(
        "The game changed since your copy",
        "Read the game again (its ETag is its version) and decide on what it shows now.",
    ),
    # 413, 415
    "body_too_large": ProblemType(
        "The body is too large", f"Send at most {MAX_BODY_BYTES:,} bytes (64 KiB)."
    ),
    "unsupported_media_type": ProblemType(
        "That content type cannot be imported", "Send a hand record as text or as JSON."
    ),
    # 422: well-formed, but invalid content
    "invalid_request": ProblemType(
        "Some fields are not valid",
        "The problem's errors name each field and what is wrong with it.",
    ),
    "unknown_card": ProblemType(
        "There is no such card", "Use the card ids of your view (docs/rules.md R-1.4)."
    ),
    "invalid_pass": ProblemType(
        "A pass is three different cards", "Pass exactly three different cards of your hand."
    ),
    "invalid_options": ProblemType(
        "Those game options do not go together",
        "Check the players, scoring, variant and clock against docs/api.md.",
    ),
    "invalid_deal": ProblemType(
        "The deal is not valid", "Give each seat the right number of cards, none twice."
    ),
    "invalid_client_seed": ProblemType(
        "The client seed is not valid", "Send it in the form docs/fairness.md gives."
    ),
    "name_required": ProblemType("A name is needed", "Give a name to join the seat."),
    "player_gone": ProblemType("This player no longer exists", "Create a player or sign in again."),
    "idempotency_key_reused": ProblemType(
        "That Idempotency-Key was used for another request",
        "Use a new key for each request; send a key again only to retry the same request.",
    ),
    "invalid_cursor": ProblemType(
        "The cursor is not valid", "Send a next_cursor of an earlier page, as it was given."
    ),
    "at_out_of_range": ProblemType(
        "The game has no such version", "Give an at between 1 and the game's version."
    ),
    "after_out_of_range": ProblemType(
        "That event is ahead of the game",
        "Give a position no greater than the game's version.",
    ),
    "invalid_last_event_id": ProblemType(
        "The Last-Event-ID header is not a number",
        "Send the id of the last event received, or none.",
    ),
    "webhook_url_forbidden": ProblemType(
        "That webhook address is not allowed", "Use a public https:// address."
    ),
    "unknown_event": ProblemType(
        "There is no such webhook event", "Choose among the events the detail lists."
    ),
    "invalid_subscription": ProblemType(
        "The push subscription is not valid",
        "Send the browser's PushSubscription as JSON: an https endpoint and its keys.",
    ),
    "too_many_subscriptions": ProblemType(
        "You have too many push subscriptions", "Delete one you no longer use first."
    ),
    "cannot_block_self": ProblemType("You cannot block yourself", "Name another player's id."),
    "cannot_follow_self": ProblemType("You cannot follow yourself", "Name another player's id."),
    "too_many_blocks": ProblemType(
        "You have blocked too many players", "Lift a block you no longer need first."
    ),
    "too_many_follows": ProblemType("You follow too many players", "Stop following one first."),
    "mail_unavailable": ProblemType(
        "This server sends no mail", "Use pushes, or ask the operators to set up mail."
    ),
    "invalid_email": ProblemType(
        "That is not an e-mail address", "Send one address, such as name@example.org."
    ),
    "too_many_codes": ProblemType(
        "Too many codes were sent today", "Use a code you were sent, or try again tomorrow."
    ),
    "wrong_code": ProblemType(
        "That is not the code that was sent", "Check the latest message and type its code."
    ),
    "code_expired": ProblemType(
        "That code no longer works", "Ask for a new code (POST /v1/me/email)."
    ),
    "no_code": ProblemType("No code was sent", "Give your address first (POST /v1/me/email)."),
    "unknown_token": ProblemType(
        "That unsubscribe link is not known", "Turn mail off in your notification settings."
    ),
    "invalid_choice": ProblemType(
        "That notification choice is not valid", "The detail says which value to change."
    ),
    "too_many_webhooks": ProblemType(
        "You have too many webhooks", "Delete one you no longer need first."
    ),
    "invalid_record": ProblemType(
        "The hand record cannot be read",
        "Fix the line the detail names (docs/record-format.md).",
    ),
    "illegal_move": ProblemType(
        "The hand record holds an illegal move", "Fix the move of the line the detail names."
    ),
    "record_mismatch": ProblemType(
        "The hand record contradicts itself",
        "Fix the line the detail names: it disagrees with the deal or the result.",
    ),
    "invalid_rating_range": ProblemType(
        "The rating range is not valid", "Give a range whose low bound is at most its high one."
    ),
    "invited_twice": ProblemType("A player is invited twice", "Invite each player once."),
    "cannot_report_yourself": ProblemType(
        "A player cannot report themself", "Name another player in `player_id`."
    ),
    "message_not_theirs": ProblemType(
        "That message is not the reported player's",
        "Name a message the player in `player_id` wrote.",
    ),
    "message_not_in_game": ProblemType(
        "That message is not of the game named",
        "Name a message of the game in `game_id`, or leave `game_id` out.",
    ),
    "invalid_reason": ProblemType(
        "The reason cannot be taken",
        "Say what happened in 1 to 1000 characters, without control characters.",
    ),
    "invalid_note": ProblemType(
        "The note cannot be taken",
        "Write 1 to 1000 characters, without control characters.",
    ),
    "invalid_minutes": ProblemType(
        "These minutes do not fit the action",
        "Give `minutes` (1 to 10080) for a mute, and only for a mute.",
    ),
    "unknown_player": ProblemType(
        "There is no such player to invite", "Check the invited players' ids."
    ),
    "text_or_preset": ProblemType(
        "A message is a text or a preset", "Send exactly one of text and preset."
    ),
    "invalid_text": ProblemType(
        "That message cannot be sent",
        "Write 1 to 280 characters, without control characters.",
    ),
    "unknown_preset": ProblemType("There is no such preset", "Choose one of GET /v1/chat/presets."),
    "presets_only": ProblemType(
        "This table takes presets only",
        "In a rated four-player game, partners talk with the presets alone.",
    ),
    # 429
    "chat_too_fast": ProblemType(
        "Too many messages at once", "Wait a few seconds before the next message."
    ),
    "rate_limited": ProblemType(
        "Too many requests", "Wait for the seconds of the Retry-After header, then retry."
    ),
    "too_many_reports": ProblemType(
        "Too many reports were made today",
        "A player makes at most 10 reports in 24 hours: try again later.",
    ),
    "too_many_streams": ProblemType(
        "Too many open streams",
        "Close a stream before opening another, or wait for the Retry-After seconds.",
    ),
    # 5xx: the server's own failures
    "internal_error": ProblemType(
        "The server failed",
        "The request changed nothing: retry later, and report the request_id if it goes on.",
    ),
    "store_unavailable": ProblemType(
        "The database cannot be reached",
        "Retry after the Retry-After seconds with the same Idempotency-Key: the detail "
        "says whether the command may have been done.",
    ),
    "provider_unavailable": ProblemType(
        "The identity provider cannot be reached", "Sign in again in a few seconds."
    ),
    # any other HTTP error
    "http_error": ProblemType(
        "The request was refused", "The problem's status and detail say why."
    ),
}


def title(code: str, status: int) -> str:
    """The code's title; the HTTP reason for a code without an entry."""
    found = PROBLEM_TYPES.get(code)
    return found.title if found is not None else HTTPStatus(status).phrase


def page(code: str) -> str | None:
    """The code's page as text (None: no such code): its title and what to do."""
    found = PROBLEM_TYPES.get(code)
    if found is None:
        return None
    return (
        f"{found.title}\n\n{found.advice}\n\n"
        f"Problem code: {code}. Clients switch on the code; the detail of each problem "
        'says what happened (docs/api.md, "Problem details").\n'
    )
