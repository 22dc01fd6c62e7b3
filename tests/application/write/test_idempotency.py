"""Idempotency keys: a command sent again under its key is done once (the first outcome
comes back, nothing more is appended); keys are scoped to who sends them; refusals that
depend only on the command and the game are remembered too."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from service.application.commands import Command, CreateGame, JoinSeat, PlayCard
from service.application.errors import (
    IdempotencyKeyReusedError,
    InvalidInputError,
    SeatNotFoundError,
    UnauthenticatedError,
)
from service.application.identity.principals import Anonymous, BadToken
from service.application.ports import Actor
from service.application.results import Created, Joined, Result
from service.application.write import registry
from service.application.write.idempotency import Registered
from service.application.write.ports import SealedRecord
from service.application.write.sealed import digest
from service.application.write.transaction import Transaction
from service.rules import RuleViolationError, Scoring, Violation, card
from tests.application.table import Game, Table

KEY = "7b1b5a8e-1f7c-4a53-9d55-2b3a64c9e0f1"


def count_calls(monkeypatch: pytest.MonkeyPatch, command: type[Command]) -> list[Command]:
    """Record every time the handler of ``command`` is called."""
    calls: list[Command] = []
    real: Registered[Command, Result] = registry.HANDLERS[command]

    def spy(cmd: Command, actor: Actor, tx: Transaction) -> Result:
        calls.append(cmd)
        return real.handle(cmd, actor, tx)

    monkeypatch.setitem(registry.HANDLERS, command, Registered(real.authorize, spy))
    return calls


def test_a_play_sent_again_under_its_key_is_done_once(table: Table, playing: Game) -> None:
    seat = table.turn(playing)
    play = PlayCard(playing.id, table.view(playing, seat).legal[0])
    first = table.run(play, playing.seats[seat], idempotency_key=KEY)
    stored = len(table.stream(playing.id))

    again = table.run(play, playing.seats[seat], idempotency_key=KEY)

    assert again == first
    assert len(table.stream(playing.id)) == stored


def test_a_create_sent_again_under_its_key_creates_one_game(table: Table) -> None:
    create = CreateGame(3, Scoring.ADVANCED)
    first = table.run(create, client="10.0.0.1", idempotency_key=KEY)
    again = table.run(create, client="10.0.0.1", idempotency_key=KEY)
    assert isinstance(first, Created)
    assert again == first
    assert list(table.db.committed.games) == [first.game_id]


def test_a_join_sent_again_gets_its_token_which_is_stored_sealed(table: Table) -> None:
    game_id = table.create()
    first = table.join(game_id, 2, client="10.0.0.1", idempotency_key=KEY)
    again = table.join(game_id, 2, client="10.0.0.1", idempotency_key=KEY)

    assert again == first  # the token too
    assert table.types(game_id) == ["GameCreated", "SeatJoined"]
    ((scope, key_digest), row) = next(iter(table.db.committed.idempotency.items()))
    assert key_digest == digest(KEY)
    assert first.token.encode() not in row.record.sealed
    assert first.token not in row.record.fingerprint
    assert KEY not in scope


def test_another_command_under_a_used_key_is_refused(table: Table, playing: Game) -> None:
    seat = table.turn(playing)
    first, second = table.view(playing, seat).legal[:2]
    table.run(PlayCard(playing.id, first), playing.seats[seat], idempotency_key=KEY)
    stored = len(table.stream(playing.id))

    with pytest.raises(IdempotencyKeyReusedError):
        table.run(PlayCard(playing.id, second), playing.seats[seat], idempotency_key=KEY)
    assert len(table.stream(playing.id)) == stored


@pytest.mark.parametrize(
    ("command", "error", "code"),
    [
        (lambda g: PlayCard(g, "not-a-card"), InvalidInputError, "unknown_card"),
        (lambda g: PlayCard(g, "green-7b"), InvalidInputError, "unknown_card"),
        (lambda g: JoinSeat(g, 4, "late"), SeatNotFoundError, "unknown_seat"),
        (lambda g: JoinSeat(g, 0, "again"), RuleViolationError, Violation.SEAT_TAKEN),
    ],
    ids=["unknown card", "card of another deck", "unknown seat", "rule violation"],
)
def test_a_refusal_is_remembered_and_given_again_without_deciding(
    table: Table,
    playing: Game,
    monkeypatch: pytest.MonkeyPatch,
    command: Callable[[UUID], Command],
    error: type[Exception],
    code: str,
) -> None:
    cmd = command(playing.id)
    calls = count_calls(monkeypatch, type(cmd))
    principal = playing.seats[table.turn(playing)]
    stored = len(table.stream(playing.id))

    refusals = []
    decided = []
    for _ in range(2):
        with pytest.raises(error) as refused:
            table.run(cmd, principal, idempotency_key=KEY)
        refusals.append(refused.value)
        decided.append(len(calls))

    first, again = refusals
    # The first time it is decided (again on a fresh load if the first decision used the
    # cache), the second time not at all.
    assert decided[0] >= 1
    assert decided[1] == decided[0]
    assert type(first) is type(again) is error
    assert getattr(first, "code", None) == getattr(again, "code", None) == code
    assert str(again) == str(first)
    assert len(table.stream(playing.id)) == stored
    assert len(table.db.committed.idempotency) == 1


def test_a_remembered_rule_violation_stands_when_the_rules_would_now_allow_it(
    table: Table, playing: Game
) -> None:
    seat = table.turn(playing)
    later = (seat + 1) % 4
    led = card(table.view(playing, seat).legal[0])
    hand = [card(c) for c in table.view(playing, later).hand]
    follow = next((c for c in hand if c.suit is led.suit), hand[0])
    play = PlayCard(playing.id, follow.id)  # refused now, allowed after the lead
    with pytest.raises(RuleViolationError):
        table.run(play, playing.seats[later], idempotency_key=KEY)
    table.play_turn(playing)

    with pytest.raises(RuleViolationError) as refused:
        table.run(play, playing.seats[later], idempotency_key=KEY)
    assert refused.value.code is Violation.NOT_YOUR_TURN
    table.run(play, playing.seats[later])  # without the key: decided, and done


def test_keys_are_scoped_to_their_seat(table: Table, game: Game) -> None:
    before = table.version(game.id)
    zero = table.pass_first_three(game, 0, idempotency_key=KEY)
    one = table.pass_first_three(game, 1, idempotency_key=KEY)

    assert (zero.seat, one.seat) == (0, 1)
    assert table.types(game.id, after=before) == ["CardsPassed", "CardsPassed"]


def test_keys_of_anyone_are_scoped_to_the_clients_address(table: Table) -> None:
    create = CreateGame(4, Scoring.BASIC)
    first = table.run(create, client="10.0.0.1", idempotency_key=KEY)
    other = table.run(create, client="10.0.0.2", idempotency_key=KEY)
    again = table.run(create, client="10.0.0.1", idempotency_key=KEY)

    assert isinstance(first, Created) and isinstance(other, Created)
    assert other.game_id != first.game_id
    assert again == first
    assert len(table.db.committed.games) == 2


def test_another_client_cannot_replay_a_join_for_its_token(table: Table) -> None:
    game_id = table.create()
    table.join(game_id, 1, client="10.0.0.1", idempotency_key=KEY)
    with pytest.raises(RuleViolationError) as refused:
        table.join(game_id, 1, client="10.0.0.2", idempotency_key=KEY)
    assert refused.value.code is Violation.SEAT_TAKEN


@pytest.mark.parametrize(
    "command",
    [
        lambda g: CreateGame(4, Scoring.BASIC),
        lambda g: JoinSeat(g, 0, "mallory"),
        lambda g: PlayCard(g, "green-1"),
    ],
    ids=["create", "join", "play"],
)
def test_a_token_that_matches_nothing_is_refused_before_anything(
    table: Table, command: Callable[[UUID], Command]
) -> None:
    game_id = table.create()
    principal = table.deps.identity.identify("not a token anyone was given")
    assert principal == BadToken()
    opened = table.db.opened

    with pytest.raises(UnauthenticatedError) as refused:
        table.run(command(game_id), principal, idempotency_key=KEY)

    assert refused.value.code == "invalid_token"
    assert table.db.opened == opened  # not even a transaction
    assert table.db.committed.idempotency == {}


def legacy_record(raw_key: str, scope: str, status: int, body: dict[str, Any]) -> SealedRecord:
    """A record as stored before outcomes were: the rendered response and its status,
    AES-GCM under a key derived from the raw key, bound to an HTTP-level fingerprint."""
    kdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=scope.encode(), info=b"yokai-idem")
    nonce = os.urandom(12)
    plain = json.dumps({"body": body, "headers": {}}).encode()
    box = AESGCM(kdf.derive(raw_key.encode())).encrypt(nonce, plain, b"old-fingerprint")
    return SealedRecord("old-fingerprint", nonce + box, status)


def store(table: Table, scope: str, record: SealedRecord) -> None:
    with table.db.unit_of_work() as uow:
        uow.idempotency.add(scope, digest(KEY), record, table.clock.now())
        uow.commit()


def test_a_record_from_before_outcomes_were_stored_replays(table: Table) -> None:
    game_id = table.create()
    scope = "anonymous:10.0.0.1"
    body = {"game_id": str(game_id), "version": 2, "seat": 1, "token": "old-token"}
    store(table, scope, legacy_record(KEY, scope, 201, body))

    again = table.join(
        game_id, 1, client="10.0.0.1", idempotency_key=KEY, request_fingerprint="old-fingerprint"
    )

    assert again == Joined(game_id, 2, 1, "old-token")
    assert table.types(game_id) == ["GameCreated"]


def test_a_record_from_before_outcomes_were_stored_replays_only_its_request(
    table: Table,
) -> None:
    """An old record holds the fingerprint of the request it answered (method, path,
    body as the web layer saw them): another request under its key is refused, even one
    whose result would have the same shape."""
    game_id = table.create()
    scope = "anonymous:10.0.0.1"
    body = {"id": str(game_id), "version": 1, "status": "waiting"}  # a create's response
    store(table, scope, legacy_record(KEY, scope, 201, body))

    with pytest.raises(IdempotencyKeyReusedError):
        table.join(
            game_id, 1, client="10.0.0.1", idempotency_key=KEY, request_fingerprint="another"
        )
    with pytest.raises(IdempotencyKeyReusedError):
        table.join(game_id, 1, client="10.0.0.1", idempotency_key=KEY)  # no fingerprint


def test_who_may_send_a_command_is_checked_before_its_key(table: Table, playing: Game) -> None:
    """An anonymous client that used a key for a create, sending a play under it, is told
    it needs a seat token, not that its key was used for something else."""
    table.run(CreateGame(4, Scoring.BASIC), Anonymous(), client="10.0.0.9", idempotency_key=KEY)
    with pytest.raises(UnauthenticatedError) as refused:
        table.run(
            PlayCard(playing.id, "green-1"), Anonymous(), client="10.0.0.9", idempotency_key=KEY
        )
    assert refused.value.code == "missing_token"


def test_a_command_that_fails_after_writing_leaves_the_cache_as_committed(
    table: Table, playing: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a transaction wrote is seen by its own later loads, but reaches the shared
    cache only once committed."""
    before = table.version(playing.id)
    real: Registered[Command, Result] = registry.HANDLERS[PlayCard]
    seen: list[int] = []

    def play_then_fail(cmd: PlayCard, actor: Actor, tx: Transaction) -> Result:
        real.handle(cmd, actor, tx)
        seen.append(tx.load(cmd.game_id).version)
        raise RuntimeError("the server failed after writing")

    monkeypatch.setitem(registry.HANDLERS, PlayCard, Registered(real.authorize, play_then_fail))
    seat = table.turn(playing)
    with pytest.raises(RuntimeError):
        table.run(PlayCard(playing.id, table.view(playing, seat).legal[0]), playing.seats[seat])

    assert seen == [before + 1]  # the transaction saw its own event
    cached = table.deps.cache.get(playing.id)
    assert cached is not None and cached.version == before
    assert table.version(playing.id) == before
