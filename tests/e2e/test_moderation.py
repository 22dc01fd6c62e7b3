"""Reports and moderation over HTTP (docs/api.md "Reports and moderation"): a player
reports a player, a game or one of the player's chat messages (refused with its code
when something does not exist or fit, once per Idempotency-Key); operators list the
reports, each reported message with the messages around it in its game and channel,
opened; they resolve each once with an action that the player's audit records (a mute
refuses chat: tests/application/moderation/test_reports.py; a suspension, every
request), reasons and notes stored sealed; erasure removes the reports about a player
and the reasons of a reporter.

The chat's messages are rows of ``chat_messages`` written here as the chat writes them
(its name and text sealed under the author's key): the chat's endpoints are not this
module's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

import pytest
from flask import Flask, Response

from service.application.moderation.reports import PlayerMutedError, check_may_chat
from service.bootstrap import Container
from tests.support.api import OPERATOR, Api, bearer


class Player:
    def __init__(self, api: Api, name: str) -> None:
        r = api.post("/v1/players", {"name": name})
        assert r.status_code == 201, r.get_json()
        self.id: str = r.get_json()["id"]
        self.token: str = r.get_json()["token"]
        self.name = name
        self.auth = bearer(self.token)


class Chat:
    """Messages of a game as the chat stores them."""

    def __init__(self, sql: Any, container: Container) -> None:
        self._sql = sql
        self._sealer = container.deps.sealer
        self._at = datetime(2026, 11, 28, 12, tzinfo=UTC)

    def say(self, game_id: str, who: Player, text: str, channel: str = "table") -> int:
        sealer, player = self._sealer, UUID(who.id)
        name = who.name if sealer is None else sealer.name(player, who.name)
        sealed = text if sealer is None else sealer.personal(player, text)
        self._at += timedelta(seconds=1)
        rows = self._sql(
            "INSERT INTO chat_messages (game_id, channel, seat, player_id, name, text, "
            "sender, at) VALUES (:g, :c, NULL, :p, :n, :t, :s, :at) RETURNING id",
            g=game_id,
            c=channel,
            p=who.id,
            n=name,
            t=sealed,
            s=f"p{who.id}",
            at=self._at,
        )
        return int(rows[0][0])


@pytest.fixture
def chat(sql: Any, container: Container) -> Chat:
    return Chat(sql, container)


def new_game(api: Api) -> str:
    game_id: str = api.create(4)["id"]
    return game_id


def report(api: Api, by: Player, about: Player, **body: Any) -> Any:
    return api.post("/v1/reports", {"player_id": about.id, "reason": "rude", **body}, **by.auth)


def filed(api: Api, by: Player, about: Player, **body: Any) -> dict[str, Any]:
    r = report(api, by, about, **body)
    assert r.status_code == 201, r.get_json()
    found: dict[str, Any] = r.get_json()
    return found


def problem(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.get_json()
    body: dict[str, Any] = r.get_json()
    assert body["code"] == code, body
    return body


def listed(api: Api, status: str = "open", **query: Any) -> list[dict[str, Any]]:
    """Every report of the list, page after page."""
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        params = "&".join(f"{k}={v}" for k, v in {"status": status, **query}.items())
        r = api.get(f"/v1/reports?{params}" + (f"&cursor={cursor}" if cursor else ""), **OPERATOR)
        assert r.status_code == 200, r.get_json()
        found += r.get_json()["reports"]
        cursor = r.get_json()["next_cursor"]
        if cursor is None:
            return found


def one(api: Api, report_id: str, status: str = "open") -> dict[str, Any]:
    (found,) = [r for r in listed(api, status) if r["id"] == report_id]
    return found


def resolve(api: Api, report_id: str, action: str, **body: Any) -> Any:
    return api.post(
        f"/v1/reports/{report_id}/resolve",
        {"action": action, "note": f"{action}: seen the log", **body},
        **OPERATOR,
    )


def audit(api: Api, player: Player) -> list[dict[str, Any]]:
    r = api.get(f"/v1/players/{player.id}/audit", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    entries: list[dict[str, Any]] = r.get_json()["entries"]
    return entries


def test_a_reported_message_reaches_the_operators_with_the_talk_around_it(
    api: Api, chat: Chat
) -> None:
    mio, bo, kai = Player(api, "Mio"), Player(api, "Bo"), Player(api, "Kai")
    game, other = new_game(api), new_game(api)
    said = [chat.say(game, (mio, bo)[n % 2], f"line {n}") for n in range(5)]
    chat.say(game, kai, "from the rail", channel="spectators")  # another channel
    chat.say(other, bo, "elsewhere")  # another game
    said += [chat.say(game, (mio, bo)[n % 2], f"line {n}") for n in range(5, 9)]
    reported = said[5]  # Bo's "line 5"

    mine = filed(api, mio, bo, message_id=reported, reason="  insulted me  ")
    assert mine["status"] == "open" and mine["reason"] == "insulted me"
    assert (mine["player_id"], mine["game_id"], mine["message_id"]) == (bo.id, game, reported)

    seen = one(api, mine["id"])
    assert seen["reporter"] == {"id": mio.id, "name": "Mio", "erased": False}
    assert seen["player"] == {"id": bo.id, "name": "Bo", "erased": False}
    assert seen["reason"] == "insulted me" and seen["resolution"] is None
    context = seen["context"]
    assert [m["id"] for m in context] == said[2:9]  # three before, three after
    assert [m["text"] for m in context] == [f"line {n}" for n in range(2, 9)]
    assert [m["name"] for m in context] == ["Mio", "Bo"] * 3 + ["Mio"]
    assert [m["reported"] for m in context] == [False] * 3 + [True] + [False] * 3
    assert {m["channel"] for m in context} == {"table"}


def test_the_list_is_tagged_and_paged(api: Api, chat: Chat) -> None:
    mio, bo = Player(api, "Mio"), Player(api, "Bo")
    made = [filed(api, mio, bo, reason=f"reason {n}")["id"] for n in range(3)]
    r = api.get("/v1/reports?status=open&limit=1", **OPERATOR)
    assert r.status_code == 200 and r.get_json()["next_cursor"] is not None
    etag = r.headers["ETag"]
    assert (
        api.get("/v1/reports?status=open&limit=1", If_None_Match=etag, **OPERATOR).status_code
        == 304
    )
    ids = [x["id"] for x in listed(api, limit=1)]
    assert [i for i in ids if i in made] == made  # oldest first, each once
    assert len(ids) == len(set(ids))
    for report_id in made[:2]:
        assert resolve(api, report_id, "none").status_code == 200
    closed = [x["id"] for x in listed(api, "closed", limit=2) if x["id"] in made]
    assert closed == made[1::-1]  # newest first
    assert [x["id"] for x in listed(api) if x["id"] in made] == made[2:]


def test_a_report_names_what_exists_and_fits(api: Api, chat: Chat) -> None:
    mio, bo, kai = Player(api, "Mio"), Player(api, "Bo"), Player(api, "Kai")
    game, other = new_game(api), new_game(api)
    bos = chat.say(game, bo, "hello")
    kais = chat.say(game, kai, "hi")
    problem(report(api, mio, mio), 422, "cannot_report_yourself")
    stranger = {"player_id": str(uuid4()), "reason": "x"}
    problem(api.post("/v1/reports", stranger, **mio.auth), 404, "player_not_found")
    problem(report(api, mio, bo, game_id=str(uuid4())), 404, "game_not_found")
    problem(report(api, mio, bo, message_id=10**12), 404, "message_not_found")
    problem(report(api, mio, bo, message_id=kais), 422, "message_not_theirs")
    problem(report(api, mio, bo, game_id=other, message_id=bos), 422, "message_not_in_game")
    problem(report(api, mio, bo, reason=" \t "), 422, "invalid_reason")
    problem(api.post("/v1/reports", {"player_id": bo.id, "reason": "x"}), 401, "missing_token")
    problem(
        api.post("/v1/reports", {"player_id": bo.id, "reason": "x"}, **OPERATOR), 403, "forbidden"
    )
    assert filed(api, mio, bo, game_id=game)["game_id"] == game
    assert filed(api, mio, bo, game_id=game, message_id=bos)["message_id"] == bos


def test_a_report_sent_twice_with_one_key_is_one_report(api: Api) -> None:
    mio, bo = Player(api, "Mio"), Player(api, "Bo")
    key = str(uuid4())
    body = {"player_id": bo.id, "reason": "rude"}
    first = api.post("/v1/reports", body, Idempotency_Key=key, **mio.auth)
    again = api.post("/v1/reports", body, Idempotency_Key=key, **mio.auth)
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert [r["id"] for r in listed(api) if r["reporter"]["id"] == mio.id] == [
        first.get_json()["id"]
    ]


def test_ten_reports_a_day(api: Api) -> None:
    mio = Player(api, "Mio")
    others = [Player(api, f"P{n}") for n in range(11)]
    for other in others[:10]:
        filed(api, mio, other)
    refused = report(api, mio, others[10])
    problem(refused, 429, "too_many_reports")
    assert refused.headers["Retry-After"]


def test_operators_alone_resolve_and_each_report_once(api: Api) -> None:
    mio, bo = Player(api, "Mio"), Player(api, "Bo")
    made = filed(api, mio, bo)["id"]
    problem(
        api.post(f"/v1/reports/{made}/resolve", {"action": "warn", "note": "x"}, **mio.auth),
        403,
        "forbidden",
    )
    problem(resolve(api, made, "mute"), 422, "invalid_minutes")
    problem(resolve(api, made, "warn", minutes=5), 422, "invalid_minutes")
    problem(resolve(api, made, "ban"), 422, "invalid_request")
    problem(resolve(api, str(uuid4()), "warn"), 404, "report_not_found")
    problem(resolve(api, "not-an-id", "warn"), 404, "not_found")
    done = resolve(api, made, "warn")
    assert done.status_code == 200, done.get_json()
    resolution = done.get_json()["resolution"]
    assert done.get_json()["status"] == "closed"
    assert (resolution["action"], resolution["note"], resolution["minutes"]) == (
        "warn",
        "warn: seen the log",
        None,
    )
    problem(resolve(api, made, "mute", minutes=10), 409, "report_closed")
    assert one(api, made, "closed")["resolution"]["action"] == "warn"


def test_each_action_is_in_the_players_audit(api: Api, container: Container, sql: Any) -> None:
    mio, bo = Player(api, "Mio"), Player(api, "Bo")
    reports = {a: filed(api, mio, bo)["id"] for a in ("none", "warn", "mute")}
    resolve(api, reports["none"], "none")
    resolve(api, reports["warn"], "warn")
    muted = resolve(api, reports["mute"], "mute", minutes=30).get_json()["resolution"]
    entries = audit(api, bo)
    assert [e["action"] for e in entries] == ["report_dismissed", "warned", "muted"]
    assert {e["actor"]["kind"] for e in entries} == {"operator"}
    assert entries[2]["reason"].startswith(f"report {reports['mute']}: mute for 30 minutes")
    assert entries[2]["reason"].endswith("; mute: seen the log")
    # Stored sealed: the reason under the reporter's key, the note under the player's.
    stored = sql("SELECT reason, note FROM reports WHERE player_id = :p", p=bo.id)
    stored += sql("SELECT reason, NULL FROM player_audit WHERE player_id = :p", p=bo.id)
    assert len(stored) == 6
    assert all(r[0].startswith("pd1.") and "rude" not in r[0] for r in stored)
    assert all("seen the log" not in r[0] and (r[1] is None or "seen" not in r[1]) for r in stored)
    until = datetime.fromisoformat(muted["until"])
    with container.deps.uow() as uow, pytest.raises(PlayerMutedError) as refused:
        check_may_chat(uow, UUID(bo.id), until - timedelta(seconds=1))
    assert refused.value.until == until
    with container.deps.uow() as uow:
        check_may_chat(uow, UUID(bo.id), until)  # it ended
        check_may_chat(uow, UUID(mio.id), until - timedelta(seconds=1))


def test_a_suspension_closes_the_players_account(api: Api) -> None:
    mio, bo = Player(api, "Mio"), Player(api, "Bo")
    made = filed(api, mio, bo)["id"]
    assert resolve(api, made, "suspend").status_code == 200
    problem(api.get("/v1/me", **bo.auth), 403, "player_suspended")
    (entry,) = audit(api, bo)
    assert entry["action"] == "suspended"
    assert entry["reason"] == f"report {made}: suspend; suspend: seen the log"
    again = filed(api, mio, bo)["id"]  # suspended already: the audit says so again
    assert resolve(api, again, "suspend").status_code == 200
    assert [e["action"] for e in audit(api, bo)] == ["suspended", "suspended"]
    api.post(f"/v1/players/{bo.id}/unsuspend", **OPERATOR)
    assert api.get("/v1/me", **bo.auth).status_code == 200


def test_erasure_takes_the_reports_about_a_player_and_the_reasons_of_a_reporter(
    api: Api, chat: Chat
) -> None:
    mio, bo, kai = Player(api, "Mio"), Player(api, "Bo"), Player(api, "Kai")
    game = new_game(api)
    said = chat.say(game, bo, "something rude")
    by_mio = filed(api, mio, bo, message_id=said, reason="Mio's words")["id"]
    about_kai = filed(api, bo, kai, reason="Bo's words")["id"]
    assert api.client.delete("/v1/me", headers=mio.auth).status_code == 204
    seen = one(api, by_mio)
    assert seen["reason"] is None  # the reporter's words, unreadable
    assert seen["reporter"] == {"id": mio.id, "name": "erased player", "erased": True}
    assert [m["text"] for m in seen["context"]] == ["something rude"]
    assert api.post(f"/v1/players/{kai.id}/erase", **OPERATOR).status_code == 204
    assert about_kai not in [r["id"] for r in listed(api)]
    assert about_kai not in [r["id"] for r in listed(api, "closed")]


def test_a_muted_players_refusal_says_until_when(app: Flask) -> None:
    """What the chat answers a muted player (its route raises PlayerMutedError)."""
    until = datetime(2026, 11, 28, 13, 30, tzinfo=UTC)
    with app.test_request_context("/v1/games"):
        answer = app.handle_user_exception(PlayerMutedError(until))
    assert isinstance(answer, Response) and answer.status_code == 403
    body = answer.get_json()
    assert (body["code"], body["muted_until"]) == ("player_muted", "2026-11-28T13:30:00+00:00")
    assert body["title"] == "This player may not chat for now"
