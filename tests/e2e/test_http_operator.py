"""The operator endpoints of docs/api.md over HTTP: the list of games, the state at any
version, and the audit trail with its request metadata and hash chain."""

from __future__ import annotations

import base64
import hashlib
import itertools
import uuid
from typing import Any

import pytest

from tests.support.api import OPERATOR, Api, Game
from tests.support.deals import (
    HANDS_AFTER_PASS_4P,
    PASSES_4P,
    assert_problem,
    ordered_deal,
    start_ordered,
    start_playing,
)

# --- GET /v1/games --------------------------------------------------------------------


def _list(api: Api, query: str = "") -> dict[str, Any]:
    r = api.get(f"/v1/games{query}", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    body: dict[str, Any] = r.get_json()
    return body


def test_the_list_is_newest_first_and_pages_with_a_cursor(api: Api) -> None:
    mine = [api.create(3 + i % 2)["id"] for i in range(5)]
    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(1000):
        page = _list(api, "?limit=2" + (f"&cursor={cursor}" if cursor else ""))
        assert len(page["games"]) <= 2
        seen.extend(page["games"])
        cursor = page["next_cursor"]
        if cursor is None or set(mine) <= {g["id"] for g in seen}:
            break
    ids = [g["id"] for g in seen]
    assert len(ids) == len(set(ids)), "a game was listed twice"
    # Newest first: my games in reverse order of creation, with nothing between them
    # (no other game was created meanwhile) and nothing of mine skipped.
    positions = [ids.index(i) for i in reversed(mine)]
    assert positions == list(range(positions[0], positions[0] + 5))
    stamps = [g["created_at"] for g in seen]
    assert stamps == sorted(stamps, reverse=True)
    first = next(g for g in seen if g["id"] == mine[-1])
    assert first["status"] == "waiting"
    assert first["version"] == 1
    assert first["players"] == 3  # the fifth game: 3 + 4 % 2 players


def test_the_list_walks_every_game_exactly_once(api: Api) -> None:
    for _ in range(3):
        api.create(4)
    every = _list(api, "?limit=100")
    expected: list[str] = []
    page = every
    while True:
        expected.extend(g["id"] for g in page["games"])
        if page["next_cursor"] is None:
            break
        page = _list(api, f"?limit=100&cursor={page['next_cursor']}")
    walked: list[str] = []
    cursor: str | None = None
    while True:
        page = _list(api, "?limit=7" + (f"&cursor={cursor}" if cursor else ""))
        walked.extend(g["id"] for g in page["games"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert walked == expected
    assert len(set(walked)) == len(walked)


def test_the_list_filters_by_status(api: Api) -> None:
    waiting = api.create(4)["id"]
    passing = api.start(3).id
    playing = start_playing(api).id
    for status, wanted, unwanted in [
        ("waiting", waiting, passing),
        ("passing", passing, playing),
        ("playing", playing, waiting),
    ]:
        page = _list(api, f"?status={status}&limit=100")
        assert all(g["status"] == status for g in page["games"]), status
        ids = {g["id"] for g in page["games"]}
        assert wanted in ids
        assert unwanted not in ids
    finished = _list(api, "?status=finished&limit=100")
    assert all(g["status"] == "finished" for g in finished["games"])


@pytest.mark.parametrize(
    "query",
    ["?cursor=not-a-cursor", "?cursor=!!!!", "?cursor=" + "A" * 300, "?status=lost",
     "?limit=0", "?limit=101", "?limit=x", "?cursor=" + base64.urlsafe_b64encode(
         b"yesterday|" + str(uuid.uuid4()).encode()).decode()],
)  # fmt: skip
def test_invalid_list_queries_are_422(api: Api, query: str) -> None:
    assert_problem(api.get(f"/v1/games{query}", **OPERATOR), 422)


# --- GET /v1/games/{id}/state ---------------------------------------------------------


def test_the_state_shows_every_hand_and_the_passes(api: Api) -> None:
    game = start_ordered(api)
    assert api.pass_cards(game, 1, PASSES_4P[1]).status_code == 200
    state = api.state(game.id)
    deal = ordered_deal(4)
    assert [sorted(h) for h in state["hands"]] == [sorted(h) for h in deal["hands"]]
    assert state["round"]["trump"] == "blue-13"
    passes = state["passes"]
    assert passes[1]["given"] == PASSES_4P[1]
    assert [passes[s] for s in (0, 2, 3)] == [None, None, None]
    assert state["version"] == api.public(game.id)["version"]
    for name in ("status", "seats", "round", "scores", "rounds", "winner", "players"):
        assert state[name] == api.public(game.id)[name], name


def test_the_state_after_the_exchange(api: Api) -> None:
    game = start_playing(api)
    state = api.state(game.id)
    assert [set(h) for h in state["hands"]] == HANDS_AFTER_PASS_4P
    for seat in range(4):
        assert state["passes"][seat]["given"] == PASSES_4P[seat]
        assert sorted(state["passes"][seat]["received"]) == sorted(PASSES_4P[(seat + 2) % 4])


def test_the_state_at_earlier_versions(api: Api) -> None:
    game = start_ordered(api)
    for seat, cards in PASSES_4P.items():
        assert api.pass_cards(game, seat, cards).status_code == 200
    assert api.play(game, 0, "purple-2").status_code == 200
    latest = api.state(game.id)
    created = api.state(game.id, at=1)
    assert created["version"] == 1
    assert created["status"] == "waiting"
    assert created["round"] is None
    assert [s["joined"] for s in created["seats"]] == [False] * 4
    two = api.state(game.id, at=3)
    assert [s["joined"] for s in two["seats"]] == [True, True, False, False]
    dealt = api.state(game.id, at=6)  # created, four joins, the deal
    assert dealt["status"] == "passing"
    assert [sorted(h) for h in dealt["hands"]] == [sorted(h) for h in ordered_deal(4)["hands"]]
    assert dealt["passes"] == [None, None, None, None]
    one_pass = api.state(game.id, at=7)
    assert one_pass["passes"][0]["given"] == PASSES_4P[0]
    assert one_pass["passes"][0]["received"] == [None, None, None]
    assert sum(p is not None for p in one_pass["passes"]) == 1
    before_play = api.state(game.id, at=latest["version"] - 1)
    assert before_play["status"] == "playing"
    assert "purple-2" in before_play["hands"][0]
    assert before_play["round"]["trick"] == []
    assert "purple-2" not in latest["hands"][0]
    assert api.state(game.id, at=latest["version"]) == latest


@pytest.mark.parametrize("at", ["0", "-1", "abc", "1.5", "99999999999999999999"])
def test_an_invalid_at_is_422(api: Api, at: str) -> None:
    game = start_ordered(api)
    assert_problem(api.get(f"/v1/games/{game.id}/state?at={at}", **OPERATOR), 422)


def test_an_at_past_the_version_is_422(api: Api) -> None:
    game = start_ordered(api)
    version = api.public(game.id)["version"]
    assert_problem(api.get(f"/v1/games/{game.id}/state?at={version + 1}", **OPERATOR), 422)
    assert api.state(game.id, at=version)["version"] == version


def test_the_same_seed_deals_the_same_hands(api: Api) -> None:
    seed = 987654321
    first = api.start(4, seed=seed)
    second = api.start(4, seed=seed)
    other = api.start(4, seed=seed + 1)
    hands = api.state(first.id)["hands"]
    assert len(hands) == 4
    assert api.state(second.id)["hands"] == hands
    assert api.state(first.id)["round"]["trump"] == api.state(second.id)["round"]["trump"]
    assert api.state(other.id)["hands"] != hands


# --- GET /v1/games/{id}/audit ---------------------------------------------------------


def _audit(api: Api, game: Game, query: str = "") -> dict[str, Any]:
    r = api.get(f"/v1/games/{game.id}/audit{query}", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    body: dict[str, Any] = r.get_json()
    return body


def test_the_audit_lists_every_event_with_actor_and_request_metadata(api: Api) -> None:
    game = start_ordered(api)
    key = "audit-key-" + uuid.uuid4().hex
    client_id = "req-" + uuid.uuid4().hex
    r = api.pass_cards(game, 2, PASSES_4P[2], Idempotency_Key=key, X_Request_Id=client_id)
    assert r.status_code == 200
    server_id = r.headers["X-Request-Id"]
    assert server_id and server_id != client_id  # the server's, never the client's word
    trail = _audit(api, game)
    events = trail["events"]
    version = api.public(game.id)["version"]
    assert [e["seq"] for e in events] == list(range(1, version + 1))
    for e in events:
        for name in AUDIT_FIELDS:
            assert name in e, (name, e)
        assert e["actor"]["kind"] in ("seat", "operator", "system", "anonymous")
        assert e["client_address"] == "127.0.0.1"
    created, *joins, dealt, passed = events
    assert created["type"] == "GameCreated"
    # Created with deals, by the operator of YOKAI_OPERATOR_TOKEN.
    assert created["actor"] == {"kind": "operator", "seat": None, "id": "operator"}
    assert created["data"]["deals"][0]["hands"] == ordered_deal(4)["hands"]
    assert [(j["type"], j["actor"]) for j in joins] == [
        ("SeatJoined", {"kind": "anonymous", "seat": s, "id": None}) for s in range(4)
    ]
    assert dealt["type"] == "RoundDealt"
    assert dealt["actor"]["kind"] == "system"
    assert passed["type"] == "CardsPassed"
    assert passed["actor"] == {"kind": "seat", "seat": 2, "id": None}
    assert passed["data"] == {"seat": 2, "cards": PASSES_4P[2]}
    assert (passed["request_id"], passed["client_request_id"]) == (server_id, client_id)
    assert passed["idempotency_key"] == hashlib.sha256(key.encode()).hexdigest()
    assert passed["chain_key"] is not None
    assert key not in str(trail)
    for e in (created, *joins, dealt):
        assert e["idempotency_key"] is None
        assert e["client_request_id"] is None
        assert e["request_id"] not in (server_id, client_id)


AUDIT_FIELDS = (
    "seq",
    "type",
    "data",
    "recorded_at",
    "actor",
    "request_id",
    "client_request_id",
    "client_address",
    "idempotency_key",
    "prev_hash",
    "hash",
    "chain_key",
)


def test_an_anonymous_creation_is_recorded_as_anonymous(api: Api) -> None:
    """Before: recorded as the system, as if the server had made the game itself."""
    game = Game(api.create(3)["id"], 3)
    created = _audit(api, game)["events"][0]
    assert created["type"] == "GameCreated"
    assert created["actor"] == {"kind": "anonymous", "seat": None, "id": None}


def test_the_audit_hashes_form_a_chain(api: Api) -> None:
    game = start_playing(api)
    assert api.play(game, 0, "purple-2").status_code == 200
    events = _audit(api, game)["events"]
    hashes = [e["hash"] for e in events]
    assert len(set(hashes)) == len(hashes)
    for e in events:
        assert len(e["hash"]) == 64
        int(e["hash"], 16)
    for previous, current in itertools.pairwise(events):
        assert current["prev_hash"] == previous["hash"], current["seq"]
    assert events[0]["prev_hash"] != events[0]["hash"]


def test_the_audit_pages_like_the_feed(api: Api) -> None:
    game = start_playing(api)
    total = api.public(game.id)["version"]
    first = _audit(api, game, "?limit=4")
    assert [e["seq"] for e in first["events"]] == [1, 2, 3, 4]
    assert first["next_after"] == 4
    rest = _audit(api, game, "?after=4&limit=1000")
    assert [e["seq"] for e in rest["events"]] == list(range(5, total + 1))
    assert rest["next_after"] is None
    assert rest["events"][0]["prev_hash"] == first["events"][-1]["hash"]
    assert_problem(api.get(f"/v1/games/{game.id}/audit?limit=0", **OPERATOR), 422)
    assert_problem(api.get(f"/v1/games/{game.id}/audit?after=-1", **OPERATOR), 422)


# --- GET /v1/games/{id}/verify ----------------------------------------------------------


def test_verify_reports_an_untouched_game_intact(api: Api) -> None:
    game = start_playing(api)
    assert api.play(game, 0, "purple-2").status_code == 200
    r = api.get(f"/v1/games/{game.id}/verify", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    assert r.headers["Cache-Control"] == "private, no-store"
    assert r.get_json() == {
        "intact": True,
        "events": api.public(game.id)["version"],
        "first_bad_seq": None,
        "reason": None,
    }


def test_verify_is_for_operators_only(api: Api) -> None:
    game = start_playing(api)
    path = f"/v1/games/{game.id}/verify"
    assert_problem(api.get(path), 401, "missing_token")
    assert_problem(api.get(path, Authorization="Bearer not-a-token"), 401)
    assert_problem(api.get(path, **game.seat_headers(0)), 403)


def test_verify_of_an_unknown_game_is_404(api: Api) -> None:
    assert_problem(api.get(f"/v1/games/{uuid.uuid4()}/verify", **OPERATOR), 404)
    assert_problem(api.get("/v1/games/not-a-game/verify", **OPERATOR), 404)
