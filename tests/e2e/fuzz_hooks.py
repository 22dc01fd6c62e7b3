"""Schemathesis hooks of tests/e2e/test_fuzz.py (loaded through SCHEMATHESIS_HOOKS).

Tokens: the operator's token (YOKAI_FUZZ_OPERATOR_TOKEN) goes where the contract asks for
a bearer token, unless an OpenAPI link has given the request one already (the token a
join or a new player answered with: the stateful phase acts as that seat or player).
Operations that need no token are sent without one, except in the stateful phase, where
the operator creates the games and joins the seats that the links lead from (a join
without a token needs a 32-character Idempotency-Key, which no schema can say).

`positive_data_acceptance` says that a request valid by the contract is not refused.
Some refusals depend on what no JSON Schema can say: the game's state, other fields of
the same body, who sends the request, or a record's text. This check is the built-in one
with exactly those refusals let through, each named by its status and problem `code`;
any other refusal of a valid request fails the run as the built-in check would. Each
refusal let through is written to the file named by YOKAI_FUZZ_EXCUSED, so the test can
say how many there were and why.
"""

from __future__ import annotations

import json
import os
from typing import Any

import schemathesis
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.specs.openapi.checks import positive_data_acceptance

BEYOND_SCHEMA: dict[tuple[int, str], str] = {
    # Across fields, or across the deck: every card once, the variant's players.
    (422, "invalid_deal"): "a deal uses every card of the game's deck exactly once",
    (422, "invalid_options"): "Seven Followers is for four players; seeds and fair deals",
    (422, "unknown_seat"): "a bot's seat is one the game has (players)",
    (422, "seat_taken"): "a bot's or an invitation's seat is named once",
    (422, "unknown_player"): "an invitation names a player who exists",
    (422, "invited_twice"): "an invitation names each player once",
    (422, "invalid_minutes"): "a resolution's minutes go with a mute, and only with it",
    (422, "message_not_theirs"): "a reported message is the reported player's",
    (422, "message_not_in_game"): "a reported message is of the game the report names",
    # The game's state or its variant.
    (422, "unknown_card"): "a second seven (`-7b`) in a standard game",
    (422, "at_out_of_range"): "`at` beyond the game's version",
    (422, "after_out_of_range"): "`after` / Last-Event-ID beyond the game's version",
    (422, "idempotency_key_reused"): "a key already used for another request",
    (422, "invalid_rating_range"): "a rating range's low bound is not above its high one",
    (422, "cannot_block_self"): "a player blocks another player, not themself",
    (422, "cannot_follow_self"): "a player follows another player, not themself",
    # What the player has open (409s are the state's, let through by the configuration too).
    (409, "already_seeking"): "the player has an open seek already",
    (409, "seek_matched"): "the seek was paired into a game meanwhile",
    (422, "invalid_cursor"): "a cursor the server did not give",
    (422, "too_many_webhooks"): "the owner's webhooks are at their limit",
    # Who sends it.
    (422, "name_required"): "a name is needed without a player token",
    (422, "cannot_report_yourself"): "a player reports another player",
    (400, "weak_idempotency_key"): "without a token a key needs 32 characters",
    # What no pattern says: a record's text, the address a host name resolves to.
    (422, "invalid_record"): "a record's text follows docs/record-format.md",
    (422, "invalid_reason"): "a report's reason is not blank, without control characters",
    (422, "invalid_note"): "a resolution's note is not blank, without control characters",
    (422, "record_mismatch"): "a record's results are what the rules give",
    (422, "illegal_move"): "a record's moves follow the rules",
    (422, "webhook_url_forbidden"): "the host resolves to a public address",
    (401, "invalid_id_token"): "an ID token is signed by a configured issuer's key",
    (401, "invalid_link_code"): "a link code is one a signed-in device made, unused",
    # A size in bytes: maxLength counts characters (the 413 response says the limit).
    (413, "body_too_large"): "a body is at most 65,536 bytes, whatever its characters",
}


def _problem_code(body: bytes) -> str | None:
    try:
        problem = json.loads(body)
    except ValueError:
        return None
    code = problem.get("code") if isinstance(problem, dict) else None
    return code if isinstance(code, str) else None


def _has_authorization(case: Any) -> bool:
    return any(name.lower() == "authorization" for name in case.headers or {})


@schemathesis.hook
def map_body(ctx: Any, body: Any) -> Any:
    """The stateful phase (YOKAI_FUZZ_STATEFUL set) creates games whose seats its joins can
    take: the operator joins as "Fuzzy", so no seat may be kept for a player (`invite`)
    and the game may not be rated (players only). The other phases fuzz both fields."""
    operation = ctx.operation
    if (
        os.environ.get("YOKAI_FUZZ_STATEFUL")
        and operation is not None
        and (operation.method.upper(), operation.path) == ("POST", "/v1/games")
        and isinstance(body, dict)
    ):
        return {k: v for k, v in body.items() if k not in ("invite", "rated")}
    return body


@schemathesis.auth(refresh_interval=None)
class OperatorUnlessLinked:
    def get(self, case: Any, context: Any) -> str:
        return os.environ["YOKAI_FUZZ_OPERATOR_TOKEN"]

    def set(self, case: Any, data: str, context: Any) -> None:
        if _has_authorization(case):
            return  # a link's token: the seat's or the player's
        secured = bool(case.operation.definition.raw.get("security"))
        if secured or case.meta is None or case.meta.phase.name == "stateful":
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.check
def positive_data_acceptance_beyond_schema(ctx: Any, response: Any, case: Any) -> bool | None:
    """The built-in positive_data_acceptance, but for the refusals of BEYOND_SCHEMA."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        key = (response.status_code, _problem_code(response.content))
        if key not in BEYOND_SCHEMA:
            raise
        excused = os.environ.get("YOKAI_FUZZ_EXCUSED")
        if excused:
            with open(excused, "a", encoding="utf-8") as out:
                line = {"operation": case.operation.label, "status": key[0], "code": key[1]}
                out.write(json.dumps(line) + "\n")
        return None
