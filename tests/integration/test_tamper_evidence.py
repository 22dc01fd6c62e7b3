"""The events table is append-only in the database itself, and an edit made around the
guard is found by `yokai verify`, which names the first bad ``seq``.

The attacks of issue 15 run here as the database's owner (a superuser, who can lift the
guard): rewriting an event and recomputing the plain SHA-256 chain, deleting the newest
events and editing ``games.version`` to match. The chain is an HMAC under a key kept
outside the database, and each game's head is anchored outside it by the worker
(docs/security.md): each attack is found.

These tests tamper with histories on a database of their own, so that no other test's
`verify --all` ever meets a game broken on purpose.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import pytest
from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from service import cli
from service.adapters import migrate
from service.adapters.integrity.anchor_files import AnchorDirectory
from service.adapters.integrity.chain_keys import parse_key
from service.adapters.postgres.engine import sqlalchemy_url
from service.adapters.postgres.unit_of_work import SqlUnitOfWork
from service.application.games.ports import GameSummary
from service.application.identity.bearer import token_digest
from service.application.integrity import chain
from service.application.integrity.chain import ChainKeys
from service.application.jobs.anchoring import Anchoring
from service.application.ports import Actor, ActorKind, StoredEvent
from service.settings import Settings
from tests.support.api import OPERATOR, Api, Game
from tests.support.postgres import AppUnderTest, MakeApp, new_database, running_app

INSUFFICIENT_PRIVILEGE = "42501"
SERVICE_KEYS = ChainKeys(parse_key(os.environ["YOKAI_CHAIN_KEY"]))  # tests/conftest.py


@pytest.fixture(scope="module")
def tamper_url(server_url: str) -> str:
    url = new_database(server_url, prefix="yokai_tamper")
    migrate.upgrade(url)
    return url


@pytest.fixture(scope="module")
def tapp(tamper_url: str, settings: Settings) -> Iterator[AppUnderTest]:
    with running_app(dataclasses.replace(settings, database_url=tamper_url)) as made:
        yield made


@pytest.fixture(scope="module")
def tapi(tapp: AppUnderTest) -> Api:
    return tapp.api()


@pytest.fixture(scope="module")
def engine(tamper_url: str) -> Iterator[Engine]:
    """The superuser's connection to the tampered database."""
    built = create_engine(sqlalchemy_url(tamper_url))
    yield built
    built.dispose()


@pytest.fixture
def verify(
    tamper_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Any:
    """Run `yokai verify ARGS` against the tampered database: (exit code, stdout)."""
    monkeypatch.setenv("DATABASE_URL", tamper_url)

    def run(*args: str) -> tuple[int, str]:
        capsys.readouterr()
        code = cli.main(["verify", *args])
        return code, capsys.readouterr().out

    return run


def played_game(api: Api, seed: int, commands: int = 16) -> Game:
    """A four-player game with its passes and some tricks played."""
    game = api.start(4, seed=seed)
    rng = random.Random(seed)
    for _ in range(commands):
        assert api.act_randomly(game, rng) is not None
    return game


def load(engine: Engine, game_id: str) -> list[StoredEvent]:
    with SqlUnitOfWork(engine) as uow:
        return uow.events.load(UUID(game_id))


@contextmanager
def unguarded(engine: Engine) -> Iterator[Connection]:
    """A transaction in which the append-only triggers do not fire (superuser only)."""
    with engine.begin() as conn:
        conn.execute(text("SET LOCAL session_replication_role = replica"))
        yield conn


Edit = Callable[[StoredEvent], StoredEvent]


def rechain(
    engine: Engine, events: list[StoredEvent], start: int, edit: Edit, keys: ChainKeys | None
) -> None:
    """As the owner, rewrite the events from ``start`` on (each through ``edit``) and
    recompute their chain: under ``keys`` (a key holder's forgery, or a guessed key), or
    as the plain SHA-256 chain anyone can compute (None)."""
    prev = chain.GENESIS if start == 1 else events[start - 2].hash
    with unguarded(engine) as conn:
        for original in events[start - 1 :]:
            e = edit(original)
            if keys is None:  # the forger's best: nothing a plain hash does not cover
                e = as_v1(e)
            made = chain.event_hash(
                prev,
                e.game_id,
                e.seq,
                chain.Unchained(e.type, e.schema_version, e.data, e.actor),
                e.recorded_at,
                chain.origin_of(e),
                keys,
            )
            assert made is not None
            conn.execute(
                text(
                    "UPDATE events SET data = CAST(:d AS jsonb), actor_kind = :kind, "
                    "actor_seat = :seat, actor_id = :actor, request_id = :r, "
                    "client_request_id = :cr, client_address = :ca, prev_hash = :p, hash = :h, "
                    "chain_key = :k WHERE game_id = :g AND seq = :s"
                ),
                {
                    "d": chain.canonical(e.data).decode(),
                    "kind": e.actor.kind.value,
                    "seat": e.actor.seat,
                    "actor": e.actor.id,
                    "r": e.request_id,
                    "cr": e.client_request_id,
                    "ca": e.client_address,
                    "p": prev,
                    "h": made,
                    "k": None if keys is None else keys.current,
                    "g": e.game_id,
                    "s": e.seq,
                },
            )
            prev = made


def as_v1(e: StoredEvent) -> StoredEvent:
    """An event as it would have been stored before migration 0009."""
    kind = ActorKind.SEAT if e.actor.kind is ActorKind.ANONYMOUS else e.actor.kind
    return replace(
        e,
        actor=Actor(kind, e.actor.seat),
        client_request_id=None,
        client_address=None,
        chain_key=None,
    )


def first_of(events: list[StoredEvent], type_: str, after: int) -> StoredEvent:
    return next(e for e in events if e.type == type_ and e.seq > after)


def broken_seqs(output: str, game_id: str) -> list[int]:
    return [int(n) for n in re.findall(rf"game {game_id}: BROKEN at seq (\d+)", output)]


def assert_refused(engine: Engine, statement: str, **params: Any) -> None:
    with pytest.raises(DBAPIError) as caught, engine.begin() as conn:
        conn.execute(text(statement), params)
    assert getattr(caught.value.orig, "sqlstate", None) == INSUFFICIENT_PRIVILEGE
    assert "append-only" in str(caught.value.orig)


# --- the guard --------------------------------------------------------------------------


def test_update_delete_and_truncate_are_refused_even_for_a_superuser(
    tapi: Api, engine: Engine
) -> None:
    game = played_game(tapi, seed=1)
    before = load(engine, game.id)
    with engine.connect() as conn:
        assert conn.scalar(text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"))

    assert_refused(engine, "UPDATE events SET data = '{}' WHERE game_id = :g", g=game.id)
    assert_refused(engine, "UPDATE events SET seq = seq + 1000 WHERE game_id = :g", g=game.id)
    assert_refused(engine, "DELETE FROM events WHERE game_id = :g AND seq = 3", g=game.id)
    assert_refused(engine, "DELETE FROM events")
    assert_refused(engine, "TRUNCATE events CASCADE")

    assert load(engine, game.id) == before


def test_appending_still_works_under_the_guard(tapi: Api, engine: Engine) -> None:
    game = played_game(tapi, seed=2, commands=4)
    before = len(load(engine, game.id))
    assert tapi.act_randomly(game, random.Random(2)) is not None
    assert len(load(engine, game.id)) > before


# --- verify -----------------------------------------------------------------------------


def test_an_untouched_game_is_reported_intact(tapi: Api, verify: Any) -> None:
    game = played_game(tapi, seed=3)
    code, out = verify(game.id)
    assert code == 0
    assert out.strip() == f"game {game.id}: intact ({tapi.public(game.id)['version']} events)"


def test_an_edited_card_is_found_at_its_seq_by_verify_and_verify_all(
    tapi: Api, engine: Engine, verify: Any
) -> None:
    intact = played_game(tapi, seed=4)
    game = played_game(tapi, seed=5)
    events = load(engine, game.id)
    target = first_of(events, "CardPlayed", after=len(events) // 2)
    hands = tapi.state(game.id)["hands"]
    other = next(c for h in hands for c in h if c != target.data["card"])

    # Lift the guard by disabling its trigger, edit, and restore it in one transaction.
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE events DISABLE TRIGGER events_append_only"))
        conn.execute(
            text(
                "UPDATE events SET data = jsonb_set(data, '{card}', to_jsonb(CAST(:c AS text))) "
                "WHERE game_id = :g AND seq = :s"
            ),
            {"c": other, "g": game.id, "s": target.seq},
        )
        conn.execute(text("ALTER TABLE events ENABLE TRIGGER events_append_only"))
    assert load(engine, game.id)[target.seq - 1].data["card"] == other
    assert_refused(engine, "UPDATE events SET data = '{}' WHERE game_id = :g", g=game.id)

    code, out = verify(game.id)
    assert code != 0
    assert broken_seqs(out, game.id) == [target.seq]
    assert "content does not match its hash" in out

    code, out = verify(intact.id)
    assert code == 0
    assert f"game {intact.id}: intact" in out

    code, out = verify("--all")
    assert code != 0
    assert broken_seqs(out, game.id) == [target.seq]
    assert f"game {intact.id}: intact" in out
    lines = [line for line in out.splitlines() if line.startswith("game ")]
    with engine.connect() as conn:
        total = conn.scalar(text("SELECT count(*) FROM games"))
    assert len(lines) == total
    broken = sum("BROKEN" in line for line in lines)
    assert out.strip().splitlines()[-1] == f"{total - broken} of {total} games intact"


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("type", "'TrickTaken'"),
        ("schema_version", "2"),
        ("recorded_at", "recorded_at + interval '1 second'"),
        ("actor_seat", "(actor_seat + 1) % 4"),
        ("request_id", "'forged-request'"),
        ("idempotency_key", "repeat('a', 64)"),
        ("actor_kind", "'anonymous'"),
        ("actor_id", "'someone-else'"),
        ("client_request_id", "'forged-client-request'"),
        ("client_address", "'198.51.100.1'"),
        ("chain_key", "NULL"),
    ],
)
def test_every_stored_field_is_covered_by_the_hash(
    tapi: Api, engine: Engine, verify: Any, column: str, value: str
) -> None:
    game = played_game(tapi, seed=6)
    events = load(engine, game.id)
    target = first_of(events, "CardPlayed", after=len(events) // 2)
    with unguarded(engine) as conn:
        conn.execute(
            text(f"UPDATE events SET {column} = {value} WHERE game_id = :g AND seq = :s"),
            {"g": game.id, "s": target.seq},
        )

    code, out = verify(game.id)
    assert code != 0
    assert broken_seqs(out, game.id) == [target.seq]


def test_the_verify_endpoint_answers_as_yokai_verify_does(
    tapi: Api, engine: Engine, verify: Any
) -> None:
    """GET /v1/games/{id}/verify (operators) runs the check of `yokai verify`: intact,
    then, after an edit made around the guard, the same first bad seq and reason."""
    game = played_game(tapi, seed=8)
    r = tapi.get(f"/v1/games/{game.id}/verify", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    version = tapi.public(game.id)["version"]
    assert r.get_json() == {
        "intact": True,
        "events": version,
        "first_bad_seq": None,
        "reason": None,
    }
    events = load(engine, game.id)
    target = first_of(events, "CardPlayed", after=len(events) // 2)
    with unguarded(engine) as conn:
        conn.execute(
            text(
                "UPDATE events SET actor_seat = (actor_seat + 1) % 4 "
                "WHERE game_id = :g AND seq = :s"
            ),
            {"g": game.id, "s": target.seq},
        )

    r = tapi.get(f"/v1/games/{game.id}/verify", **OPERATOR)
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert (body["intact"], body["events"], body["first_bad_seq"]) == (False, version, target.seq)
    code, out = verify(game.id)
    assert code != 0
    assert f"BROKEN at seq {target.seq}: {body['reason']}" in out


def test_a_deleted_middle_event_is_named_as_a_gap(tapi: Api, engine: Engine, verify: Any) -> None:
    game = played_game(tapi, seed=7)
    events = load(engine, game.id)
    gone = events[len(events) // 2].seq
    with unguarded(engine) as conn:
        conn.execute(
            text("DELETE FROM events WHERE game_id = :g AND seq = :s"),
            {"g": game.id, "s": gone},
        )
    assert [e.seq for e in load(engine, game.id)] == [e.seq for e in events if e.seq != gone]

    code, out = verify(game.id)
    assert code != 0
    assert broken_seqs(out, game.id) == [gone]
    assert "gap" in out


def _rehash(event: StoredEvent, prev_hash: str, data: dict[str, Any], keys: ChainKeys) -> str:
    """The event's hash as the key holder would make it, for ``data``."""
    made = chain.event_hash(
        prev_hash,
        event.game_id,
        event.seq,
        chain.Unchained(event.type, event.schema_version, data, event.actor),
        event.recorded_at,
        chain.origin_of(event),
        keys,
    )
    assert made is not None
    return made


def test_a_hash_recomputed_for_edited_content_breaks_the_next_link(
    tapi: Api, engine: Engine, verify: Any
) -> None:
    """The forger (even one holding the key) fixes the edited event's own hash but not
    the chain after it."""
    game = played_game(tapi, seed=8)
    events = load(engine, game.id)
    target = first_of(events, "CardPlayed", after=len(events) // 2)
    assert target.seq < len(events)
    forged = {**target.data, "seat": (target.data["seat"] + 1) % 4}
    new_hash = _rehash(target, target.prev_hash, forged, SERVICE_KEYS)
    with unguarded(engine) as conn:
        conn.execute(
            text(
                "UPDATE events SET data = CAST(:d AS jsonb), hash = :h "
                "WHERE game_id = :g AND seq = :s"
            ),
            {"d": chain.canonical(forged).decode(), "h": new_hash, "g": game.id, "s": target.seq},
        )
    assert chain.first_broken_link(load(engine, game.id), SERVICE_KEYS) is not None

    code, out = verify(game.id)
    assert code != 0
    assert broken_seqs(out, game.id) == [target.seq + 1]
    assert "prev_hash" in out


def test_a_fully_rechained_illegal_edit_is_refused_by_the_replay(
    tapi: Api, engine: Engine, verify: Any
) -> None:
    """The key holder rebuilds the whole chain after the edit: the hashes hold, but
    replaying the history under the rules names the edited event."""
    game = played_game(tapi, seed=9)
    events = load(engine, game.id)
    target = first_of(events, "CardPlayed", after=len(events) // 2)
    hands = tapi.state(game.id)["hands"]
    not_held = hands[(target.data["seat"] + 1) % 4][0]
    rechain(
        engine,
        events,
        target.seq,
        lambda e: replace(e, data={**e.data, "card": not_held}) if e.seq == target.seq else e,
        SERVICE_KEYS,
    )
    assert chain.first_broken_link(load(engine, game.id), SERVICE_KEYS) is None

    code, out = verify(game.id)
    assert code != 0
    assert broken_seqs(out, game.id) == [target.seq]


def test_verify_of_an_unknown_game_fails(verify: Any) -> None:
    code, _ = verify("00000000-0000-4000-8000-000000000000")
    assert code == 2


def game_ending_with_a_command_of(api: Api, seed: int, events: int) -> Game:
    """A game whose last command appended exactly ``events`` events (1: a card played
    mid-trick; 2: a card that completed a trick)."""
    game = api.start(4, seed=seed)
    rng = random.Random(seed)
    version = api.public(game.id)["version"]
    for _ in range(200):
        assert api.act_randomly(game, rng) is not None
        before, version = version, api.public(game.id)["version"]
        if version - before == events and api.public(game.id)["status"] == "playing":
            return game
    raise AssertionError("no such command")


def delete_last_event(engine: Engine, game_id: str) -> int:
    last = load(engine, game_id)[-1].seq
    with unguarded(engine) as conn:
        conn.execute(
            text("DELETE FROM events WHERE game_id = :g AND seq = :s"),
            {"g": game_id, "s": last},
        )
    return last


def test_a_history_cut_inside_a_command_is_reported_broken(
    server_url: str,
    make_app: MakeApp,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A database of its own: while the bug stands, this game makes `verify --all` crash.
    url = new_database(server_url, prefix="yokai_tamper_cut")
    migrate.upgrade(url)
    engine = create_engine(sqlalchemy_url(url))
    try:
        game = game_ending_with_a_command_of(make_app(database_url=url).api(), seed=10, events=2)
        last = delete_last_event(engine, game.id)
    finally:
        engine.dispose()
    monkeypatch.setenv("DATABASE_URL", url)
    capsys.readouterr()

    code = cli.main(["verify", game.id])
    out = capsys.readouterr().out
    assert code != 0, out
    assert broken_seqs(out, game.id) == [last]


def test_a_history_cut_after_a_command_is_reported_broken(
    tapi: Api, engine: Engine, verify: Any
) -> None:
    game = game_ending_with_a_command_of(tapi, seed=11, events=1)
    last = delete_last_event(engine, game.id)
    with engine.connect() as conn:
        recorded = conn.scalar(text("SELECT version FROM games WHERE id = :g"), {"g": game.id})
    assert recorded == last

    code, out = verify(game.id)
    assert code != 0, out
    assert broken_seqs(out, game.id) == [last]


# --- the attacks of issue 15, as the database's owner -------------------------------------


def anchor_now(app: AppUnderTest, folder: Path) -> None:
    """One period of the worker's anchoring, into ``folder``."""
    Anchoring(AnchorDirectory(folder, "test")).run_due(app.container.deps)


def rename_seat(name: str) -> Edit:
    def edit(e: StoredEvent) -> StoredEvent:
        if e.type == "SeatJoined" and e.data["seat"] == 1:
            return replace(e, data={**e.data, "name": name})
        return e

    return edit


def other_actor(e: StoredEvent) -> StoredEvent:
    if e.type == "CardPlayed":
        return replace(e, actor=Actor(ActorKind.SEAT, (e.data["seat"] + 1) % 4))
    return e


def other_request_id(e: StoredEvent) -> StoredEvent:
    if e.type == "CardPlayed":
        return replace(e, request_id="an-unrelated-earlier-request")
    return e


LEGAL_EDITS: dict[str, Edit] = {
    "seat name": rename_seat("Forged"),
    "actor": other_actor,
    "request id": other_request_id,
}


@pytest.mark.parametrize("what", list(LEGAL_EDITS))
def test_a_legal_edit_with_the_unkeyed_chain_recomputed_is_found(
    tapi: Api, engine: Engine, verify: Any, what: str
) -> None:
    """Before: the forger rewrote the event and recomputed the SHA-256 chain from the
    start, and verify said "intact". Now the chain is an HMAC under a key the forger does
    not have: a chain hashed without it is vouched for by nothing."""
    game = played_game(tapi, seed=20 + len(what))
    events = load(engine, game.id)
    rechain(engine, events, 1, LEGAL_EDITS[what], None)
    forged = load(engine, game.id)
    assert forged != events
    assert chain.check(forged, SERVICE_KEYS).broken is None  # every plain link holds

    code, out = verify(game.id)
    assert code == 1, out
    assert broken_seqs(out, game.id) == [1]
    assert "hashed without a key" in out


@pytest.mark.parametrize("what", list(LEGAL_EDITS))
def test_a_legal_edit_rechained_from_the_edit_on_is_found_where_the_key_stops(
    tapi: Api, engine: Engine, verify: Any, what: str
) -> None:
    """The forger recomputes only from the edited event on, plain SHA-256 after the keyed
    events before it (or under a key of their own): found at the first rewritten event."""
    game = played_game(tapi, seed=30 + len(what))
    events = load(engine, game.id)
    edit = LEGAL_EDITS[what]
    start = next(e.seq for e in events if edit(e) != e)
    rechain(engine, events, start, edit, None)
    code, out = verify(game.id)
    assert code == 1, out
    assert broken_seqs(out, game.id) == [start]
    assert "hashed without a key after keyed events" in out

    guessed = ChainKeys(b"the-forger-does-not-have-the-key")
    rechain(engine, load(engine, game.id), start, lambda e: e, guessed)
    code, out = verify(game.id)
    assert code == 1, out
    assert broken_seqs(out, game.id) == [start]
    assert "which this service does not have" in out


def test_a_key_guessed_under_the_services_key_id_does_not_verify(
    tapi: Api, engine: Engine, verify: Any
) -> None:
    """Writing the service's key id beside a hash made under another key: the HMAC does
    not hold."""
    game = played_game(tapi, seed=40)
    events = load(engine, game.id)
    edit = rename_seat("Forged")
    start = next(e.seq for e in events if edit(e) != e)
    rechain(engine, events, start, edit, ChainKeys(b"the-forger-does-not-have-the-key"))
    with unguarded(engine) as conn:
        conn.execute(
            text("UPDATE events SET chain_key = :k WHERE game_id = :g AND seq >= :s"),
            {"k": SERVICE_KEYS.current, "g": game.id, "s": start},
        )
    code, out = verify(game.id)
    assert code == 1, out
    assert broken_seqs(out, game.id) == [start]
    assert "content does not match its hash" in out


def delete_tail(engine: Engine, game_id: str, keep: int) -> None:
    """As the owner: delete the events after ``keep``, and make the games row agree."""
    with unguarded(engine) as conn:
        conn.execute(
            text("DELETE FROM events WHERE game_id = :g AND seq > :k"), {"g": game_id, "k": keep}
        )
        conn.execute(text("UPDATE games SET version = :k WHERE id = :g"), {"g": game_id, "k": keep})


def test_a_deleted_tail_with_the_games_version_edited_is_found_by_the_anchors(
    tapp: AppUnderTest, tapi: Api, engine: Engine, verify: Any, tmp_path: Path
) -> None:
    """Before: deleting the newest events and editing games.version to match passed.
    The chain that is left is a true prefix, so only something outside the database can
    tell: the anchored head is gone."""
    game = game_ending_with_a_command_of(tapi, seed=41, events=1)
    anchor_now(tapp, tmp_path)
    version = tapi.public(game.id)["version"]
    delete_tail(engine, game.id, version - 3)

    code, out = verify(game.id)
    assert code == 0, out  # what the database alone can tell: a true prefix

    code, out = verify(game.id, "--anchors", str(tmp_path))
    assert code == 1, out
    assert broken_seqs(out, game.id) == [version - 2]
    assert f"anchored at version {version}" in out
    assert "newest were deleted" in out


def test_a_chain_recomputed_even_by_the_key_holder_is_found_by_the_anchors(
    tapp: AppUnderTest, tapi: Api, engine: Engine, verify: Any, tmp_path: Path
) -> None:
    game = played_game(tapi, seed=42)
    anchor_now(tapp, tmp_path)
    events = load(engine, game.id)
    rechain(engine, events, 1, rename_seat("Forged"), SERVICE_KEYS)
    code, out = verify(game.id)
    assert code == 0, out  # the key holder can forge a chain: the anchors cannot be

    code, out = verify(game.id, "--anchors", str(tmp_path))
    assert code == 1, out
    assert broken_seqs(out, game.id) == [len(events)]
    assert "rewritten since" in out


def test_a_deleted_game_is_found_by_the_anchors(
    tapp: AppUnderTest, tapi: Api, engine: Engine, verify: Any, tmp_path: Path
) -> None:
    game = played_game(tapi, seed=43, commands=2)
    anchor_now(tapp, tmp_path)
    with unguarded(engine) as conn:
        for table in ("events", "seat_credentials", "wakeups", "snapshots", "games"):
            column = "id" if table == "games" else "game_id"
            conn.execute(text(f"DELETE FROM {table} WHERE {column} = :g"), {"g": game.id})

    code, out = verify("--all", "--anchors", str(tmp_path))
    assert code == 1, out
    assert re.search(rf"game {game.id}: BROKEN: anchored at version \d+, not in the database", out)


def test_an_altered_anchor_is_not_trusted(
    tapp: AppUnderTest, tapi: Api, verify: Any, tmp_path: Path
) -> None:
    game = played_game(tapi, seed=44, commands=2)
    anchor_now(tapp, tmp_path)
    (anchors,) = list(tmp_path.glob("*.jsonl"))
    lines = anchors.read_text().splitlines()
    mine = next(i for i, line in enumerate(lines) if game.id in line)
    version = tapi.public(game.id)["version"]
    lines[mine] = lines[mine].replace(f'"version":{version}', f'"version":{version - 1}')
    forged = tmp_path / "forged"
    forged.mkdir()
    (forged / "anchors.jsonl").write_text("\n".join(lines) + "\n")

    code, out = verify(game.id, "--anchors", str(forged))
    assert code == 1, out
    assert "UNTRUSTED: its signature does not hold" in out
    code, out = verify(game.id, "--anchors", str(tmp_path))
    assert code == 0, out
    assert f"anchored at version {version}" in out


def test_an_untouched_game_stays_intact_with_its_anchors(
    tapp: AppUnderTest, tapi: Api, verify: Any, tmp_path: Path
) -> None:
    game = played_game(tapi, seed=45)
    anchor_now(tapp, tmp_path)
    assert tapi.act_randomly(game, random.Random(45)) is not None  # moves on after it
    code, out = verify(game.id, "--anchors", str(tmp_path))
    assert code == 0, out
    assert f"game {game.id}: intact" in out


def test_a_rotated_key_still_verifies_the_events_it_hashed(
    tapi: Api,
    tamper_url: str,
    settings: Settings,
    engine: Engine,
    verify: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    old, new = os.environ["YOKAI_CHAIN_KEY"], "ab" * 32
    game = played_game(tapi, seed=46, commands=6)  # under the old key
    rotated = dataclasses.replace(
        settings, database_url=tamper_url, chain_key=new, chain_old_keys=old
    )
    with running_app(rotated) as made:
        assert made.api().act_randomly(game, random.Random(46)) is not None
    keyed_by = {e.chain_key for e in load(engine, game.id)}
    assert keyed_by == {SERVICE_KEYS.current, ChainKeys(bytes.fromhex(new)).current}

    monkeypatch.setenv("YOKAI_CHAIN_KEY", new)
    monkeypatch.setenv("YOKAI_CHAIN_OLD_KEYS", old)
    code, out = verify(game.id)
    assert code == 0, out
    monkeypatch.delenv("YOKAI_CHAIN_OLD_KEYS")
    code, out = verify(game.id)
    assert code == 1, out
    assert broken_seqs(out, game.id) == [1]
    assert f"chain key {SERVICE_KEYS.current}, which this service does not have" in out


# --- histories from before the chain key (plain SHA-256, migration 0009) -----------------


def legacy_copy(engine: Engine, source: Game, tokens: bool = False) -> Game:
    """A copy of ``source``'s history as the service stored it before the chain key:
    plain SHA-256 chain, no audit fields; with ``tokens``, seat tokens to go on with."""
    events = load(engine, source.id)
    game_id = uuid4()
    now = datetime(2026, 1, 1, tzinfo=UTC)
    unchained = [chain.Unchained(e.type, e.schema_version, e.data, as_v1(e).actor) for e in events]
    rows = chain.link(game_id, 0, chain.GENESIS, unchained, now, chain.Origin(), None)
    copy = Game(str(game_id), source.players)
    with SqlUnitOfWork(engine) as uow:
        with engine.connect() as conn:
            status = conn.scalar(text("SELECT status FROM games WHERE id = :g"), {"g": source.id})
        uow.games.add(GameSummary(game_id, now, now, 4, "basic", "standard", status, len(rows)))
        uow.events.append(rows)
        if tokens:
            for seat in range(source.players):
                copy.tokens.append(f"legacy-{game_id}-{seat}")
                uow.credentials.add(game_id, seat, token_digest(copy.tokens[-1]), now)
        uow.commit()
    return copy


def test_a_history_from_before_the_key_needs_an_anchor_or_a_word(
    tapp: AppUnderTest, tapi: Api, engine: Engine, verify: Any, tmp_path: Path
) -> None:
    """A plain SHA-256 chain to its end proves nothing against the owner, who could have
    recomputed it: verify says so, unless an anchor made since vouches for its head, or
    the operator accepts such chains (--allow-unkeyed)."""
    legacy = legacy_copy(engine, played_game(tapi, seed=50))
    count = len(load(engine, legacy.id))
    code, out = verify(legacy.id)
    assert code == 1, out
    assert broken_seqs(out, legacy.id) == [1]
    assert "no anchor vouches for it" in out

    code, out = verify(legacy.id, "--allow-unkeyed")
    assert code == 0, out
    assert f"the first {count} unkeyed" in out

    anchor_now(tapp, tmp_path)
    code, out = verify(legacy.id, "--anchors", str(tmp_path))
    assert code == 0, out
    assert f"anchored at version {count}" in out

    rechain(engine, load(engine, legacy.id), 1, rename_seat("Forged"), None)
    code, out = verify(legacy.id, "--anchors", str(tmp_path))
    assert code == 1, out
    assert "rewritten since" in out


def test_a_history_from_before_the_key_goes_on_keyed_and_is_pinned_by_it(
    tapi: Api, engine: Engine, verify: Any
) -> None:
    """A game under way at the upgrade: its next events are keyed, and the first of them
    holds the hash of the last unkeyed one, so the older part cannot be recomputed."""
    legacy = legacy_copy(engine, played_game(tapi, seed=51), tokens=True)
    count = len(load(engine, legacy.id))
    assert tapi.act_randomly(legacy, random.Random(51)) is not None
    stored = load(engine, legacy.id)
    assert [e.chain_key for e in stored[count - 1 : count + 1]] == [None, SERVICE_KEYS.current]
    code, out = verify(legacy.id)
    assert code == 0, out
    assert f"the first {count} unkeyed" in out

    edit = rename_seat("Forged")
    start = next(e.seq for e in stored if edit(e) != e)
    rechain(engine, stored[:count], start, edit, None)  # the plain part, recomputed
    code, out = verify(legacy.id)
    assert code == 1, out
    assert broken_seqs(out, legacy.id) == [count + 1]
    assert "prev_hash" in out
