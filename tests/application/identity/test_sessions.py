"""Link codes and sign-in through the handlers, on the fakes with a clock the test
moves (issue 28): a code lives 10 minutes and is taken once; an identity is one
player's."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service.application.commands import CreateLinkCode, CreatePlayer, SignIn, SignInWithCode
from service.application.identity.bearer import token_digest
from service.application.identity.principals import PlayerHolder
from service.application.identity.sessions import (
    LINK_CODE_LIFE,
    IdentityInUseError,
    LinkCodeRefusedError,
    link_code_digest,
    new_link_code,
)
from service.application.results import LinkCodeCreated, PlayerCreated, SignedIn
from tests.application.table import Table


def player(table: Table, name: str = "Mio") -> PlayerHolder:
    created = table.run(CreatePlayer(name))
    assert isinstance(created, PlayerCreated)
    return PlayerHolder(created.player_id, token_digest(created.token))


def code_of(table: Table, holder: PlayerHolder) -> str:
    made = table.run(CreateLinkCode(), holder)
    assert isinstance(made, LinkCodeCreated)
    assert made.expires_at == table.clock.now() + LINK_CODE_LIFE
    return made.code


def test_a_link_code_expires_after_ten_minutes(table: Table) -> None:
    mio = player(table)
    code = code_of(table, mio)
    table.clock.advance(LINK_CODE_LIFE)
    with pytest.raises(LinkCodeRefusedError):
        table.run(SignInWithCode(link_code_digest(code)))
    fresh = code_of(table, mio)
    table.clock.advance(LINK_CODE_LIFE - timedelta(seconds=1))
    signed = table.run(SignInWithCode(link_code_digest(fresh)))
    assert isinstance(signed, SignedIn) and signed.player_id == mio.player_id


def test_a_code_has_fifty_random_bits_and_is_read_however_it_is_typed() -> None:
    codes = {new_link_code() for _ in range(2000)}
    assert len(codes) == 2000
    for code in codes:
        plain = code.replace("-", "")
        assert len(plain) == 10 and set(plain) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    assert link_code_digest("abcd0-ef1gh") == link_code_digest("ABCDO EFLGH")


def test_an_identity_is_one_players(table: Table) -> None:
    first = table.run(SignIn("https://id.example", "alice", "Alice"))
    assert isinstance(first, SignedIn) and first.new_player
    again = table.run(SignIn("https://id.example", "alice", "Someone Else"))
    assert isinstance(again, SignedIn)
    assert (again.player_id, again.name, again.new_player) == (first.player_id, "Alice", False)
    other = table.run(SignIn("https://other.example", "alice", "Alice"))  # another issuer
    assert isinstance(other, SignedIn) and other.player_id != first.player_id
    bo = player(table, "Bo")
    with pytest.raises(IdentityInUseError):
        table.run(SignIn("https://id.example", "alice", "Bo"), bo)
