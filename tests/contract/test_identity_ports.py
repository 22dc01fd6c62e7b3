"""The identity capability's ports (service/application/identity/ports.py), on the fakes
and on PostgreSQL: seat credentials and players, each a seat held by one token, which a
unit of work may require to still hold for everything it reads and writes; and the
operator tokens the owner keeps."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from uuid import UUID, uuid4

import pytest

from service.application.errors import AlreadySeatedError
from service.application.identity.ports import (
    CredentialGoneError,
    LinkCode,
    PlayerAuditEntry,
    PlayerRecord,
    PlayerSuspendedError,
)
from service.application.ports import AppendConflictError, UnitOfWork
from service.application.write.ports import DuplicateKeyError, SealedRecord
from tests.contract.builders import made_token, new_game, new_player, player_token, seat_player, sha
from tests.contract.stores import Store

# --- Credentials -----------------------------------------------------------------------


def seat(store: Store, game_id: UUID, number: int, token: str) -> None:
    with store.uow() as uow:
        uow.credentials.add(game_id, number, token, store.clock.now())
        uow.commit()


def test_a_seats_token_finds_its_seat(store: Store) -> None:
    game_id = new_game(store)
    seat(store, game_id, 2, sha("seat 2"))
    with store.uow() as uow:
        assert uow.credentials.find(sha("seat 2")) == (game_id, 2)
        assert uow.credentials.find(sha("nobody")) is None


def test_a_taken_seat_is_a_conflict_at_commit(store: Store) -> None:
    """A racing join of the same seat: the caller decides again and finds it taken."""
    game_id = new_game(store)
    seat(store, game_id, 1, sha("first"))
    with store.uow() as uow:
        uow.credentials.add(game_id, 1, sha("second"), store.clock.now())
        with pytest.raises(AppendConflictError) as conflict:
            uow.commit()
    assert conflict.value.game_id == game_id
    with store.uow() as uow:
        assert uow.credentials.find(sha("first")) == (game_id, 1)
        assert uow.credentials.find(sha("second")) is None


def test_a_token_opens_one_seat(store: Store) -> None:
    game_id = new_game(store)
    seat(store, game_id, 0, sha("token"))
    with store.uow() as uow:
        uow.credentials.add(game_id, 1, sha("token"), store.clock.now())
        with pytest.raises(store.integrity_error):
            uow.commit()


def test_a_credential_needs_its_game(store: Store) -> None:
    with store.uow() as uow:
        uow.credentials.add(uuid4(), 0, sha("token"), store.clock.now())
        with pytest.raises(store.integrity_error):
            uow.commit()
    with store.uow() as uow:
        assert uow.credentials.find(sha("token")) is None


# --- what a unit of work requires ------------------------------------------------------

Require = Callable[[UnitOfWork, str, UUID, int], None]


def credentials_require(uow: UnitOfWork, token: str, game_id: UUID, number: int) -> None:
    uow.credentials.require(token, game_id, number)


def players_require(uow: UnitOfWork, token: str, game_id: UUID, number: int) -> None:
    uow.players.require(token, game_id, number)


REQUIRES = pytest.mark.parametrize(
    "require", [credentials_require, players_require], ids=["credentials", "players"]
)


def held_seat(store: Store, require: Require) -> tuple[UUID, int, str]:
    """A seat of a new game held by a token (a seat's own, or the player's who holds it),
    and that token."""
    game_id = new_game(store)
    if require is credentials_require:
        seat(store, game_id, 1, sha("seat 1"))
        return game_id, 1, sha("seat 1")
    player = new_player(store)
    seat_player(store, game_id, 1, player.id)
    return game_id, 1, player_token(player.id)


def let_go(store: Store, require: Require, game_id: UUID, number: int) -> None:
    """The token no longer opens the seat (the seat was left)."""
    if require is credentials_require:
        store.revoke_credential(game_id, number)
    else:
        store.unseat(game_id, number)


@REQUIRES
def test_while_the_seat_is_held_the_work_goes_through(store: Store, require: Require) -> None:
    game_id, number, token = held_seat(store, require)
    with store.uow() as uow:
        require(uow, token, game_id, number)
        assert uow.games.get(game_id) is not None
        uow.idempotency.add("scope", sha("key"), SealedRecord("f", b"x"), store.clock.now())
        uow.commit()
    with store.uow(snapshot=True) as snapshot:
        require(snapshot, token, game_id, number)
        assert snapshot.idempotency.get("scope", sha("key")) is not None


@REQUIRES
def test_a_seat_let_go_before_the_commit_fails_it(store: Store, require: Require) -> None:
    """Checked with the work, not before it: the seat was held when it was required and
    when the unit of work read, not when it committed."""
    game_id, number, token = held_seat(store, require)
    with store.uow() as uow:
        require(uow, token, game_id, number)
        assert uow.games.get(game_id) is not None
        uow.idempotency.add("scope", sha("key"), SealedRecord("f", b"x"), store.clock.now())
        let_go(store, require, game_id, number)
        with pytest.raises(CredentialGoneError):
            uow.commit()
    with store.uow() as uow:
        assert uow.idempotency.get("scope", sha("key")) is None


@REQUIRES
def test_a_seat_let_go_fails_the_next_read(store: Store, require: Require) -> None:
    game_id, number, token = held_seat(store, require)
    for snapshot in (False, True):
        with store.uow(snapshot=snapshot) as uow:
            require(uow, token, game_id, number)
            if not snapshot:
                let_go(store, require, game_id, number)
            with pytest.raises(CredentialGoneError):
                uow.events.load(game_id)


@REQUIRES
def test_a_token_that_does_not_open_the_seat_fails_the_work_not_the_requirement(
    store: Store, require: Require
) -> None:
    game_id, number, token = held_seat(store, require)
    for other, at_seat in [(sha("another"), number), (token, number + 1)]:
        with store.uow() as uow:
            require(uow, other, game_id, at_seat)  # checked with the work: not yet
            with pytest.raises(CredentialGoneError):
                uow.games.get(game_id)
    with store.uow() as uow:  # nothing read, nothing written: nothing to refuse
        require(uow, sha("another"), game_id, number)


# --- Players ---------------------------------------------------------------------------


def test_a_player_is_found_by_id_and_by_token(store: Store) -> None:
    mio = new_player(store)
    with store.uow() as uow:
        assert uow.players.get(mio.id) == mio
        assert uow.players.find(player_token(mio.id)) == mio
        assert uow.players.get(uuid4()) is None
        assert uow.players.find(sha("nobody")) is None


def test_a_players_token_and_id_are_theirs_alone(store: Store) -> None:
    mio = new_player(store)
    at = store.clock.now()
    for player, token in [
        (PlayerRecord(uuid4(), "Bo", at), player_token(mio.id)),
        (PlayerRecord(mio.id, "Bo", at), sha("bo")),
    ]:
        with store.uow() as uow:
            uow.players.add(player, made_token(player.id, token, at))
            with pytest.raises(store.integrity_error):
                uow.commit()
    with store.uow() as uow:
        assert uow.players.get(mio.id) == mio
        assert uow.players.find(sha("bo")) is None


def test_a_bound_player_holds_the_seat(store: Store) -> None:
    mio, bo = new_player(store), new_player(store, "Bo")
    game_id, other = new_game(store), new_game(store)
    seat_player(store, game_id, 2, mio.id)
    seat_player(store, other, 0, mio.id)
    with store.uow() as uow:
        assert uow.players.seat_in(game_id, mio.id) == 2
        assert uow.players.seat_in(other, mio.id) == 0
        assert uow.players.seat_in(game_id, bo.id) is None


def test_a_games_players_are_found_by_seat(store: Store) -> None:
    mio, bo = new_player(store), new_player(store, "Bo")
    game_id, other, empty = new_game(store), new_game(store), new_game(store)
    seat_player(store, game_id, 2, mio.id)
    seat_player(store, game_id, 0, bo.id)
    seat_player(store, other, 1, mio.id)
    with store.uow() as uow:
        assert uow.players.of_game(game_id) == {0: bo.id, 2: mio.id}
        assert uow.players.of_game(other) == {1: mio.id}
        assert uow.players.of_game(empty) == {}


def test_a_held_seat_is_a_conflict_at_commit(store: Store) -> None:
    mio, bo = new_player(store), new_player(store, "Bo")
    game_id = new_game(store)
    seat_player(store, game_id, 1, mio.id)
    with store.uow() as uow:
        uow.players.bind(game_id, 1, bo.id)
        with pytest.raises(AppendConflictError) as conflict:
            uow.commit()
    assert conflict.value.game_id == game_id
    with store.uow() as uow:
        assert uow.players.seat_in(game_id, bo.id) is None


def test_a_player_holds_one_seat_of_a_game(store: Store) -> None:
    mio = new_player(store)
    game_id = new_game(store)
    seat_player(store, game_id, 1, mio.id)
    with store.uow() as uow:
        uow.players.bind(game_id, 2, mio.id)
        with pytest.raises(AlreadySeatedError):
            uow.commit()
    with store.uow() as uow:
        assert uow.players.seat_in(game_id, mio.id) == 1


def test_a_seat_is_bound_to_a_player_of_a_game(store: Store) -> None:
    mio, game_id = new_player(store), new_game(store)
    for game, player in [(uuid4(), mio.id), (game_id, uuid4())]:
        with store.uow() as uow:
            uow.players.bind(game, 0, player)
            with pytest.raises(store.integrity_error):
                uow.commit()
    with store.uow() as uow:
        assert uow.players.seat_in(game_id, mio.id) is None


# --- Operators -------------------------------------------------------------------------


def test_an_operators_token_finds_its_name_until_revoked(store: Store) -> None:
    store.keep_operator("ops-1", sha("ops one"))
    store.keep_operator("ops-2", sha("ops two"))
    with store.uow() as uow:
        assert uow.operators.find(sha("ops one")) == "ops-1"
        assert uow.operators.find(sha("nobody")) is None
    store.revoke_operator("ops-1")
    with store.uow() as uow:
        assert uow.operators.find(sha("ops one")) is None
        assert uow.operators.find(sha("ops two")) == "ops-2"


# --- Player tokens (issue 28) ------------------------------------------------------------


def add_token(store: Store, player_id: UUID, digest: str, minutes_later: int = 0) -> UUID:
    token = made_token(player_id, digest, store.clock.now() + timedelta(minutes=minutes_later))
    with store.uow() as uow:
        uow.player_tokens.add(token)
        uow.commit()
    return token.id


def test_a_player_has_many_tokens_listed_newest_first_and_paged(store: Store) -> None:
    mio, bo = new_player(store), new_player(store, "Bo")
    ids = [add_token(store, mio.id, sha(f"mio {n}"), minutes_later=n + 1) for n in range(3)]
    with store.uow() as uow:
        listed = uow.player_tokens.of(mio.id, None, 10)
        assert [t.id for t in listed[:3]] == ids[::-1]
        assert [t.via for t in listed] == ["created"] * 4  # with the one it was made with
        page = uow.player_tokens.of(mio.id, None, 2)
        rest = uow.player_tokens.of(mio.id, (page[-1].created_at, page[-1].id), 10)
        assert [t.id for t in page + rest] == [t.id for t in listed]
        assert [t.token_sha256 for t in uow.player_tokens.of(bo.id, None, 10)] == [
            player_token(bo.id)
        ]
        assert uow.players.find(sha("mio 1")) == mio


def test_a_revoked_token_finds_nobody_and_is_not_listed(store: Store) -> None:
    mio = new_player(store)
    token_id = add_token(store, mio.id, sha("phone"))
    with store.uow() as uow:
        token = uow.player_tokens.get(token_id)
        assert token is not None and token.token_sha256 == sha("phone")
        uow.player_tokens.revoke(token, store.clock.now())
        assert uow.players.find(sha("phone")) == mio  # queued: not done before commit
        uow.commit()
    with store.uow() as uow:
        assert uow.player_tokens.get(token_id) is None
        assert uow.players.find(sha("phone")) is None
        assert [t.id for t in uow.player_tokens.of(mio.id, None, 10)] != [token_id]
        assert uow.players.find(player_token(mio.id)) == mio  # the others still open


def test_a_revoked_tokens_work_is_refused_at_commit(store: Store) -> None:
    """What a unit of work does for a player's token holds only while the token does:
    revoked meanwhile (by another process), nothing of it is committed."""
    mio = new_player(store)
    token_id = add_token(store, mio.id, sha("laptop"))
    with store.uow() as uow:
        uow.player_tokens.require(sha("laptop"))
        uow.players.rename(mio.id, "Mio the Great")
        with store.uow() as other:
            token = other.player_tokens.get(token_id)
            assert token is not None
            other.player_tokens.revoke(token, store.clock.now())
            other.commit()
        with pytest.raises(CredentialGoneError):
            uow.commit()
    with store.uow() as uow:
        assert uow.players.get(mio.id) == mio
        uow.player_tokens.require(sha("laptop"))
        with pytest.raises(CredentialGoneError):
            uow.players.get(mio.id)


def test_a_player_is_renamed_at_commit(store: Store) -> None:
    mio = new_player(store)
    with store.uow() as uow:
        uow.player_tokens.require(player_token(mio.id))
        uow.players.rename(mio.id, "Mio the Great")
        assert uow.players.get(mio.id) == mio
        uow.commit()
    with store.uow() as uow:
        found = uow.players.get(mio.id)
        assert found is not None and found.name == "Mio the Great"


def test_when_a_token_was_last_used_moves_forward_only(store: Store) -> None:
    mio = new_player(store)
    at = store.clock.now()
    with store.uow() as uow:
        uow.player_tokens.touch(player_token(mio.id), at + timedelta(minutes=5))
        uow.player_tokens.touch(player_token(mio.id), at + timedelta(minutes=1))  # older
    with store.uow() as uow:
        (token,) = uow.player_tokens.of(mio.id, None, 10)
        assert token.last_used_at == at + timedelta(minutes=5)


def test_a_token_is_one_players_and_needs_its_player(store: Store) -> None:
    mio = new_player(store)
    at = store.clock.now()
    for token in [made_token(mio.id, player_token(mio.id), at), made_token(uuid4(), sha("x"), at)]:
        with store.uow() as uow:
            uow.player_tokens.add(token)
            with pytest.raises(store.integrity_error):
                uow.commit()


# --- Identities and link codes (issue 28) -------------------------------------------------


def test_an_identity_is_linked_once(store: Store) -> None:
    mio, bo = new_player(store), new_player(store, "Bo")
    at = store.clock.now()
    with store.uow() as uow:
        uow.identities.add("https://id.example", "alice", mio.id, at)
        assert uow.identities.find("https://id.example", "alice") is None  # queued
        uow.commit()
    with store.uow() as uow:
        assert uow.identities.find("https://id.example", "alice") == mio.id
        assert uow.identities.find("https://other.example", "alice") is None
        uow.identities.add("https://id.example", "alice", bo.id, at)
        with pytest.raises(DuplicateKeyError):
            uow.commit()
    with store.uow() as uow:
        assert uow.identities.find("https://id.example", "alice") == mio.id
        uow.identities.add("https://id.example", "nobody", uuid4(), at)
        with pytest.raises(store.integrity_error):
            uow.commit()


def make_code(store: Store, player_id: UUID, digest: str, minutes: int = 10) -> None:
    at = store.clock.now()
    with store.uow() as uow:
        uow.link_codes.add(LinkCode(digest, player_id, at, at + timedelta(minutes=minutes)))
        uow.commit()


def test_a_link_code_is_taken_once_and_not_after_it_expires(store: Store) -> None:
    mio = new_player(store)
    make_code(store, mio.id, sha("code"))
    now = store.clock.now()
    with store.uow() as uow:
        assert uow.link_codes.take(sha("code"), now + timedelta(minutes=10)) is None  # expired
        assert uow.link_codes.take(sha("unknown"), now) is None
    with store.uow() as uow:
        assert uow.link_codes.take(sha("code"), now) == mio.id
        uow.commit()
    with store.uow() as uow:
        assert uow.link_codes.take(sha("code"), now) is None  # used


def test_a_link_code_taken_but_not_committed_stays(store: Store) -> None:
    mio = new_player(store)
    make_code(store, mio.id, sha("code"))
    now = store.clock.now()
    with store.uow() as uow:
        assert uow.link_codes.take(sha("code"), now) == mio.id  # left without commit
    with store.uow() as uow:
        assert uow.link_codes.take(sha("code"), now) == mio.id


def test_a_link_code_needs_its_player(store: Store) -> None:
    at = store.clock.now()
    with store.uow() as uow:
        uow.link_codes.add(LinkCode(sha("code"), uuid4(), at, at + timedelta(minutes=10)))
        with pytest.raises(store.integrity_error):
            uow.commit()


def test_a_suspended_players_tokens_open_nothing_until_it_is_lifted(store: Store) -> None:
    mio = new_player(store)
    game_id = new_game(store)
    seat_player(store, game_id, 1, mio.id)
    at = store.clock.now()
    with store.uow() as uow:
        uow.players.suspend(mio.id, at, "abuse")
        uow.commit()
    checks: list[Callable[[UnitOfWork], None]] = [
        lambda uow: uow.player_tokens.require(player_token(mio.id)),
        lambda uow: uow.players.require(player_token(mio.id), game_id, 1),
    ]
    for check in checks:
        with store.uow() as uow:
            check(uow)
            with pytest.raises(PlayerSuspendedError):
                uow.players.get(mio.id)
    with store.uow() as uow:
        found = uow.players.get(mio.id)
        assert found is not None and (found.suspended_at, found.suspended_reason) == (at, "abuse")
        uow.players.suspend(mio.id, None, None)
        uow.commit()
    for check in checks:
        with store.uow() as uow:
            check(uow)
            assert uow.players.get(mio.id) == mio


def test_a_players_audit_is_kept_in_order_and_paged(store: Store) -> None:
    mio, bo = new_player(store), new_player(store, "Bo")
    at = store.clock.now()
    for n, action in enumerate(["suspended", "unsuspended", "renamed"]):  # a commit each
        with store.uow() as uow:
            uow.player_audit.add(
                PlayerAuditEntry(mio.id, at + timedelta(minutes=n), action, "operator", "op")
            )
            uow.commit()
    with store.uow() as uow:
        uow.player_audit.add(PlayerAuditEntry(bo.id, at, "renamed", "player", str(bo.id)))
        uow.commit()
    with store.uow() as uow:
        entries = uow.player_audit.page(mio.id, 0, 10)
        assert [e.action for e in entries] == ["suspended", "unsuspended", "renamed"]
        rest = uow.player_audit.page(mio.id, entries[0].id, 10)
        assert [e.action for e in rest] == ["unsuspended", "renamed"]
        assert [e.actor_id for e in uow.player_audit.page(bo.id, 0, 10)] == [str(bo.id)]
