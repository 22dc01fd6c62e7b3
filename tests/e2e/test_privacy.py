"""Privacy (docs/privacy.md, docs/api.md "Privacy"): a player's names and the client
addresses and request ids of their requests are sealed at rest under the player's key;
erasing the player destroys the key, so that nothing of them is readable in any answer,
in the database or its dumps, or in a backup restored afterwards, while every game goes
on, verifies and replays; client addresses expire with their day's key."""

from __future__ import annotations

import dataclasses
import random
import subprocess
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import create_engine, text

from service import cli
from service.adapters.postgres.engine import sqlalchemy_url
from service.application.jobs.housekeeping import Housekeeping
from service.application.privacy import sealing
from service.bootstrap import build
from service.rules import ERASED_NAME
from service.settings import Settings
from service.web.app import create_app
from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.deals import assert_problem
from tests.support.postgres import (
    AppUnderTest,
    MakeApp,
    migrated_database,
    new_database,
    pg_tool,
)

OTHERS = "198.51.100.9"  # where everybody else's requests come from


@dataclasses.dataclass
class Person:
    """A player who will be erased: a name, an address and request ids of their own."""

    api: Api
    id: str
    token: str
    name: str
    address: str
    request_id: str

    @property
    def auth(self) -> dict[str, str]:
        return {**bearer(self.token), "X-Request-ID": self.request_id}


def client_at(app: AppUnderTest, address: str) -> FlaskClient:
    client = app.client()
    client.environ_base["REMOTE_ADDR"] = address
    return client


def new_person(app: AppUnderTest, address: str) -> Person:
    mark = uuid.uuid4().hex[:10]
    api = Api(client_at(app, address))
    name, request_id = f"Zoë Erasable {mark}", f"req-{mark}"
    r = api.post("/v1/players", {"name": name}, **{"X-Request-ID": request_id})
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    return Person(api, body["id"], body["token"], name, address, request_id)


def seat_game(others: Api, person: Person, seat: int, players: int = 4, fill: bool = True) -> Game:
    """A game with the person on ``seat`` (by their player token) and, with ``fill``,
    anonymous seats in the others."""
    game = Game(others.create(players)["id"], players)
    for s in range(players):
        if s == seat:
            r = person.api.post(f"/v1/games/{game.id}/seats/{s}", {}, **person.auth)
            assert r.status_code == 201, r.get_json()
            game.tokens.append(r.get_json()["token"])
        elif fill or s == (seat + 1) % players:
            game.tokens.append(others.join(game.id, s))
    return game


def play(game: Game, person: Person, seat: int, others: Api, moves: int, seed: int) -> None:
    """Random legal moves, the person's seat's sent from the person's address."""
    rng = random.Random(seed)
    for _ in range(moves):
        views = [others.view(game, s) for s in range(game.players)]
        ready = [v for v in views if v["action"] is not None]
        if not ready:
            return
        v = rng.choice(ready)
        api = person.api if v["seat"] == seat else others
        extra = {"X-Request-ID": person.request_id} if v["seat"] == seat else {}
        if v["action"] == "pass":
            r = api.pass_cards(game, v["seat"], rng.sample(v["legal"], 3), **extra)
        else:
            r = api.play(game, v["seat"], rng.choice(v["legal"]), **extra)
        assert r.status_code == 200, r.get_json()


def dump(url: str, *extra: str) -> bytes:
    out = subprocess.run(
        [pg_tool("pg_dump"), "--no-owner", *extra, url], capture_output=True, check=True
    )
    return out.stdout


def traces(person: Person) -> list[bytes]:
    return [person.name.encode(), person.address.encode(), person.request_id.encode()]


def answers(api: Api, games: list[Game], player_id: str) -> list[bytes]:
    """Every answer that could show a player: views, feeds, audits, states, records,
    the export, profiles, the lobby, the game list."""
    paths = [f"/v1/players/{player_id}", f"/v1/players/{player_id}/audit", "/v1/lobby"]
    paths += ["/v1/games?limit=100", "/v1/export"]
    for g in games:
        paths += [f"/v1/games/{g.id}{end}" for end in ("", "/events", "/audit", "/state")]
        paths += [f"/v1/games/{g.id}/record", f"/v1/games/{g.id}/record?format=json"]
    out = []
    for path in paths:
        r = api.get(path, **OPERATOR)
        assert r.status_code == 200, (path, r.status_code, r.get_data(as_text=True)[:300])
        out.append(r.get_data())
    return out


@pytest.fixture(scope="module")
def private_url(server_url: str) -> str:
    """A database of this module's own: its dump holds only what these tests wrote."""
    return migrated_database(server_url, "yokai_privacy")


@pytest.fixture
def private(make_app: MakeApp, private_url: str, tmp_path: Path) -> AppUnderTest:
    return make_app(database_url=private_url, erasure_list=tmp_path / "erasures.list")


@pytest.fixture
def others(private: AppUnderTest) -> Api:
    return Api(client_at(private, OTHERS))


def test_personal_data_is_sealed_at_rest_and_shown_in_answers(
    private: AppUnderTest, others: Api, private_url: str
) -> None:
    person = new_person(private, "203.0.113.70")
    game = seat_game(others, person, 0)
    play(game, person, 0, others, 10, seed=1)
    seats = others.public(game.id)["seats"]
    assert seats[0]["name"] == person.name
    audit = others.get(f"/v1/games/{game.id}/audit", **OPERATOR).get_json()["events"]
    mine = [e for e in audit if e["client_address"] == person.address]
    assert mine and all(e["client_request_id"] == person.request_id for e in mine)
    assert {e["client_address"] for e in audit} == {person.address, OTHERS}
    assert others.get("/v1/me", **bearer(person.token)).get_json()["name"] == person.name
    stored = dump(private_url)
    for trace in traces(person):
        assert trace not in stored  # sealed: the name, the address, the request id


def test_an_erased_player_is_unreadable_everywhere_and_every_game_goes_on(
    private: AppUnderTest,
    others: Api,
    private_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    person = new_person(private, "203.0.113.71")
    finished = seat_game(others, person, 0)
    play(finished, person, 0, others, 12, seed=2)
    assert (
        others.post(f"/v1/games/{finished.id}/resign", **finished.seat_headers(1)).status_code
        == 200
    )
    running = seat_game(others, person, 2)
    play(running, person, 2, others, 9, seed=3)
    waiting = seat_game(others, person, 1, fill=False)
    host = new_person(private, OTHERS)
    r = host.api.post("/v1/games", {"players": 3, "invite": [person.id]}, **bearer(host.token))
    assert r.status_code == 201, r.get_json()
    invited = Game(r.get_json()["id"], 3)
    games = [finished, running, waiting, invited]
    before = {g.id: others.client.get(f"/v1/games/{g.id}").headers["ETag"] for g in games}
    assert others.public(finished.id)["status"] == "finished"

    r = person.api.client.delete("/v1/me", headers=person.auth)
    assert r.status_code == 204, r.get_data(as_text=True)

    assert_problem(others.get("/v1/me", **bearer(person.token)), 401)
    for g in games:  # every view that showed the name has a new version
        assert others.client.get(f"/v1/games/{g.id}").headers["ETag"] != before[g.id]
    assert others.public(finished.id)["seats"][0]["name"] == ERASED_NAME
    seat = others.public(running.id)["seats"][2]
    assert (seat["name"], seat["bot"]) == (ERASED_NAME, "basic")  # a bot plays on
    assert others.public(running.id)["status"] == "playing"
    assert not others.public(waiting.id)["seats"][1]["joined"]  # freed
    assert others.public(invited.id)["seats"][1]["reserved_for"] is None
    others.join(waiting.id, 1, "Newcomer")  # anyone may take the freed seat
    assert_problem(others.get(f"/v1/games/{running.id}/view", **running.seat_headers(2)), 401)

    for body in answers(others, games, person.id):
        for trace in traces(person):
            assert trace not in body
    profile = others.get(f"/v1/players/{person.id}", **OPERATOR).get_json()
    assert profile["name"] == ERASED_NAME
    entries = others.get(f"/v1/players/{person.id}/audit", **OPERATOR).get_json()["entries"]
    erased = [e for e in entries if e["action"] == "erased"]
    assert len(erased) == 1 and erased[0]["actor"]["kind"] == "player"
    feed = others.feed(finished, None)
    assert any(e["type"] == "SeatErased" for e in feed)
    stored = dump(private_url)
    for trace in traces(person):
        assert trace not in stored
    monkeypatch.setenv("DATABASE_URL", private_url)
    capsys.readouterr()
    assert cli.main(["verify", "--all"]) == 0  # every history intact and replayed
    last = capsys.readouterr().out.strip().splitlines()[-1]
    intact, of = last.split(" games intact")[0].split(" of ")
    assert intact == of and int(of) >= len(games), last


def test_erasing_is_for_the_player_themself_or_an_operator(
    private: AppUnderTest, others: Api
) -> None:
    person, stranger = new_person(private, OTHERS), new_person(private, OTHERS)
    game = others.start(3)
    path = f"/v1/players/{person.id}/erase"
    assert_problem(others.post(path), 401, "missing_token")
    assert_problem(others.post(path, **bearer(stranger.token)), 403)
    assert_problem(others.post(path, **game.seat_headers(0)), 403)
    assert_problem(others.post(f"/v1/players/{uuid.uuid4()}/erase", **OPERATOR), 404)
    assert_problem(others.client.delete("/v1/me"), 401, "missing_token")
    assert others.post(path, **OPERATOR).status_code == 204
    assert others.post(path, **OPERATOR).status_code == 204  # once is enough: no change
    entries = others.get(f"/v1/players/{person.id}/audit", **OPERATOR).get_json()["entries"]
    assert [(e["action"], e["actor"]["kind"]) for e in entries] == [("erased", "operator")]
    assert others.get("/v1/me", **bearer(stranger.token)).status_code == 200


def test_a_backup_restored_after_an_erasure_keeps_the_player_erased(
    private: AppUnderTest,
    others: Api,
    private_url: str,
    server_url: str,
    make_app: MakeApp,
    tmp_path: Path,
) -> None:
    person = new_person(private, "203.0.113.72")
    game = seat_game(others, person, 3)
    backup = tmp_path / "before.dump"
    backup.write_bytes(dump(private_url, "--format=custom"))
    assert others.post(f"/v1/players/{person.id}/erase", **OPERATOR).status_code == 204

    restored_url = new_database(server_url, "yokai_restored")
    subprocess.run(
        [pg_tool("pg_restore"), "--no-owner", "--dbname", restored_url, str(backup)],
        check=True,
        capture_output=True,
    )
    engine = create_engine(sqlalchemy_url(restored_url))
    subject = sealing.player_subject(uuid.UUID(person.id))
    with engine.connect() as conn:  # the backup has the key: it was taken before
        assert conn.execute(
            text("SELECT key FROM privacy_keys WHERE subject = :s"), {"s": subject}
        ).scalar_one()
    # The service starts on the restored database, with the erasure list it kept.
    kept = private.container.erased
    assert kept is not None
    restored = make_app(database_url=restored_url, erasure_list=kept.path)
    api = Api(restored.client())
    assert api.public(game.id)["seats"][3]["name"] == ERASED_NAME
    assert api.get(f"/v1/players/{person.id}", **OPERATOR).get_json()["name"] == ERASED_NAME
    assert_problem(api.get("/v1/me", **bearer(person.token)), 401)
    with engine.connect() as conn:
        key, erased_at = conn.execute(
            text(
                "SELECT k.key, p.erased_at FROM privacy_keys AS k, players AS p "
                "WHERE k.subject = :s AND p.id = :p"
            ),
            {"s": subject, "p": person.id},
        ).one()
    engine.dispose()
    assert key is None and erased_at is not None
    for trace in traces(person):
        assert trace not in dump(restored_url)


def test_client_addresses_expire_with_their_day_and_names_stay(
    private: AppUnderTest, others: Api
) -> None:
    person = new_person(private, "203.0.113.73")
    game = seat_game(others, person, 0)
    audit = others.get(f"/v1/games/{game.id}/audit", **OPERATOR).get_json()["events"]
    assert {e["client_address"] for e in audit} == {person.address, OTHERS}
    deps = private.container.deps

    class Later:
        def now(self) -> Any:
            return deps.clock.now() + timedelta(days=31)

    job = Housekeeping(address_days=timedelta(days=30))
    assert job.run_due(dataclasses.replace(deps, clock=Later())) == 1
    audit = others.get(f"/v1/games/{game.id}/audit", **OPERATOR).get_json()["events"]
    assert {e["client_address"] for e in audit} == {None}
    assert {e["client_request_id"] for e in audit} == {None}
    assert others.public(game.id)["seats"][0]["name"] == person.name


# --- what was written before personal data was sealed ---------------------------------


@pytest.fixture
def legacy_url(server_url: str) -> str:
    return migrated_database(server_url, "yokai_legacy")


@pytest.fixture
def before_sealing(settings: Settings, legacy_url: str, tmp_path: Path) -> Iterator[AppUnderTest]:
    """The service as it wrote before migration 0014: no sealing."""
    changed = dataclasses.replace(
        settings, database_url=legacy_url, erasure_list=tmp_path / "erasures.list"
    )
    built = build(changed)
    unsealed = dataclasses.replace(built, deps=dataclasses.replace(built.deps, sealer=None))
    try:
        yield AppUnderTest(unsealed, create_app(changed, unsealed))
    finally:
        built.close()


def test_what_was_written_in_the_clear_is_sealed_by_reseal_and_still_verifies(
    before_sealing: AppUnderTest,
    legacy_url: str,
    make_app: MakeApp,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    old = Api(client_at(before_sealing, OTHERS))
    person = new_person(before_sealing, "203.0.113.74")
    game = seat_game(old, person, 1)
    play(game, person, 1, old, 8, seed=4)
    stored = dump(legacy_url)
    assert all(trace in stored for trace in traces(person))  # as it was before sealing

    monkeypatch.setenv("DATABASE_URL", legacy_url)
    monkeypatch.setenv("YOKAI_ERASURE_LIST", str(tmp_path / "erasures.list"))
    capsys.readouterr()
    assert cli.main(["privacy", "reseal"]) == 0
    assert "sealed" in capsys.readouterr().out
    for trace in traces(person):
        assert trace not in dump(legacy_url)
    assert cli.main(["verify", "--all"]) == 0  # the attestations hold

    now = Api(client_at(make_app(database_url=legacy_url), OTHERS))
    assert now.public(game.id)["seats"][1]["name"] == person.name
    audit = now.get(f"/v1/games/{game.id}/audit", **OPERATOR).get_json()["events"]
    assert {e["client_address"] for e in audit} == {person.address, OTHERS}
    assert now.post(f"/v1/players/{person.id}/erase", **OPERATOR).status_code == 204
    for body in answers(now, [game], person.id):
        for trace in traces(person):
            assert trace not in body
    assert cli.main(["verify", "--all"]) == 0
    assert cli.main(["privacy", "reseal"]) == 0  # nothing left to seal: a no-op

    # A resealed event edited afterwards is caught like any other edit.
    engine = create_engine(sqlalchemy_url(legacy_url), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("ALTER TABLE events DISABLE TRIGGER events_append_only"))
        conn.execute(
            text(
                "UPDATE events SET client_address = NULL "
                "WHERE game_id = :g AND resealed IS NOT NULL AND client_address IS NOT NULL "
                "AND seq = (SELECT min(seq) FROM events WHERE game_id = :g "
                "AND resealed IS NOT NULL AND client_address IS NOT NULL)"
            ),
            {"g": game.id},
        )
        conn.execute(text("ALTER TABLE events ENABLE TRIGGER events_append_only"))
    engine.dispose()
    capsys.readouterr()
    assert cli.main(["verify", game.id]) == 1
    assert "attestation" in capsys.readouterr().out
