"""Honest audit records (issue 15): the server makes each request's id (the client's
``X-Request-ID`` is kept beside it), records the client's address after the trusted
proxies, and names the actor exactly: an operator by its token's name, a seat, a player
by id, a bot, the system, or anonymous."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import pytest

from service.application.commands import Advance, Context
from service.application.identity.principals import Operator
from service.application.write.registry import execute
from service.bootstrap import Container
from tests.application.fakes import FixedClock
from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.deals import PASSES_4P, start_ordered
from tests.support.postgres import MakeApp


def audit(api: Api, game_id: str) -> list[dict[str, Any]]:
    r = api.get(f"/v1/games/{game_id}/audit?limit=1000", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    events: list[dict[str, Any]] = r.get_json()["events"]
    return events


def test_the_same_client_request_id_twice_is_two_requests(api: Api) -> None:
    """Before: the stored request id was whatever X-Request-ID said, so an event could
    carry an unrelated earlier request's id."""
    game = start_ordered(api)
    version = api.public(game.id)["version"]
    answers = [
        api.pass_cards(game, seat, PASSES_4P[seat], X_Request_Id="the-same-id") for seat in (0, 1)
    ]
    assert [r.status_code for r in answers] == [200, 200]
    mine = [e for e in audit(api, game.id) if e["seq"] > version]
    assert [e["request_id"] for e in mine] == [r.headers["X-Request-Id"] for r in answers]
    assert len({e["request_id"] for e in mine}) == 2
    assert [e["client_request_id"] for e in mine] == ["the-same-id"] * 2


def test_each_actor_is_named_exactly(api: Api, container: Container) -> None:
    player = api.post("/v1/players", {"name": "Mio"}).get_json()
    created = api.create(4, bots=[{"seat": 3, "level": "basic"}])
    game = Game(created["id"], 4)
    join = api.post(f"/v1/games/{game.id}/seats/0", {}, **bearer(player["token"]))
    assert join.status_code == 201, join.get_json()
    game.tokens.append(join.get_json()["token"])
    assert api.post(f"/v1/games/{game.id}/seats/1", {"name": "anon"}).status_code == 201
    by_operator = api.post(f"/v1/games/{game.id}/seats/2", {"name": "house"}, **OPERATOR)
    assert by_operator.status_code == 201
    # Round 1 is dealt; the bot passes when the worker advances the game.
    execute(container.deps, Advance(UUID(game.id)), Context(Operator()))

    actors = {(e["type"], e["data"].get("seat")): e["actor"] for e in audit(api, game.id)}
    anonymous = {"kind": "anonymous", "seat": None, "id": None}
    assert actors[("GameCreated", None)] == anonymous
    # The bot took its seat in the creating command: the creator's.
    assert actors[("SeatJoined", 3)] == anonymous
    assert actors[("SeatJoined", 0)] == {"kind": "player", "seat": 0, "id": player["id"]}
    assert actors[("SeatJoined", 1)] == {"kind": "anonymous", "seat": 1, "id": None}
    assert actors[("SeatJoined", 2)] == {"kind": "operator", "seat": 2, "id": "operator"}
    assert actors[("RoundDealt", None)] == {"kind": "system", "seat": None, "id": None}
    assert actors[("CardsPassed", 3)] == {"kind": "bot", "seat": 3, "id": None}

    cards = api.view(game, 0)["legal"][:3]
    r = api.post(f"/v1/games/{game.id}/pass", {"cards": cards}, **bearer(player["token"]))
    assert r.status_code == 200, r.get_json()
    last = audit(api, game.id)[-1]
    assert last["actor"] == {"kind": "player", "seat": 0, "id": player["id"]}


def test_the_client_address_is_the_one_the_trusted_proxies_saw(make_app: MakeApp) -> None:
    direct = make_app(shared=True).api()
    game = created(direct, X_Forwarded_For="203.0.113.7")
    # No proxy trusted: the header is the client's word, and the peer is recorded.
    assert audit(direct, game.id)[0]["client_address"] == "127.0.0.1"

    proxied = make_app(shared=True, trusted_proxies=1).api()
    game = created(proxied, X_Forwarded_For="198.51.100.1, 203.0.113.7")
    (first,) = audit(proxied, game.id)
    assert first["client_address"] == "203.0.113.7"  # the one proxy's word, not the client's


def test_an_unusable_client_request_id_is_not_kept(api: Api) -> None:
    game = created(api, X_Request_Id="x" * 129)
    (first,) = audit(api, game.id)
    assert first["client_request_id"] is None
    assert uuid.UUID(first["request_id"]).hex == first["request_id"]


def created(api: Api, **headers: str) -> Game:
    r = api.post("/v1/games", {"players": 3}, **headers)
    assert r.status_code == 201, r.get_json()
    return Game(r.get_json()["id"], 3)


SYSTEM = {"kind": "system", "seat": None, "id": None}
TIMEOUT = {"kind": "system", "seat": None, "id": "timeout"}


@pytest.mark.parametrize(("players", "on_timeout"), [(4, "autoplay"), (3, "forfeit")])
def test_the_audit_says_which_system_acts_a_timeout_made(
    api: Api, container: Container, players: int, on_timeout: str
) -> None:
    """Issue 27: what a turn clock did at its deadline was recorded as the system's,
    like a deal, so an operator reading the audit could not tell a timeout from any
    other act of the service. Its events keep the actor `system`; the audit's `id`
    says `timeout`."""
    game = api.start(players, clock={"turn_seconds": 1, "on_timeout": on_timeout})
    r = api.pass_cards(game, 1, api.view(game, 1)["legal"][:3])
    assert r.status_code == 200, r.get_json()
    before = api.public(game.id)["version"]
    deadline = max(
        datetime.fromisoformat(s["deadline"]) for s in api.public(game.id)["seats"] if s["deadline"]
    )
    # The worker's command, a second after the deadline: no sleeping.
    later = dataclasses.replace(container.deps, clock=FixedClock(deadline + timedelta(seconds=1)))
    done = execute(later, Advance(UUID(game.id)), Context(Operator(), request_id="worker:test"))
    assert done.result.acted

    events = audit(api, game.id)
    late = [s for s in range(players) if s != 1]
    timed_out = [e for e in events if e["type"] == "TurnTimedOut"]
    assert [e["data"]["seat"] for e in timed_out] == late
    by_clock = [e for e in events if e["seq"] > before and e["type"] not in _SERVICE_ACTS]
    assert by_clock and all(e["actor"] == TIMEOUT for e in by_clock), by_clock
    # The service's own acts keep `id` null: the deal, and the seed's reveal.
    assert all(e["actor"] == SYSTEM for e in events if e["type"] in _SERVICE_ACTS)
    passed = {e["data"]["seat"]: e["actor"] for e in events if e["type"] == "CardsPassed"}
    if on_timeout == "autoplay":
        assert passed == {1: {"kind": "seat", "seat": 1, "id": None}} | dict.fromkeys(late, TIMEOUT)
    else:
        assert api.public(game.id)["rounds"][-1]["reason"] == "forfeit"
        assert {e["type"] for e in by_clock} == {"TurnTimedOut", "RoundEnded", "GameEnded"}
    # The feed shows the actor as before; the hash chain covers the audit's `id`.
    feed = api.get(f"/v1/games/{game.id}/events?limit=1000", **OPERATOR).get_json()["events"]
    assert all(e["actor"] == {"kind": "system", "seat": None} for e in feed if e["seq"] > before)
    verified = api.get(f"/v1/games/{game.id}/verify", **OPERATOR).get_json()
    assert verified["intact"], verified


_SERVICE_ACTS = ("RoundDealt", "SeedRevealed")
