"""Signing in, for a new token of a player: with an identity an OpenID Connect ID token
proved (docs/api.md "Accounts"), or with a link code a signed-in device made.

An identity (issuer, subject) is one player's, stored once: two first sign-ins racing
make one player (the loser's commit finds the identity taken and is decided again, so
it signs in the winner's player). Signing in with a player token links the identity to
that player, so an anonymous player keeps their games when they start signing in.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from uuid import UUID, uuid4

from service.application.commands import CreateLinkCode, SignIn, SignInWithCode
from service.application.errors import ApplicationError, ForbiddenError, UnauthenticatedError
from service.application.identity.bearer import new_token, token_digest
from service.application.identity.ports import (
    LinkCode,
    PlayerRecord,
    PlayerSuspendedError,
    PlayerToken,
)
from service.application.identity.principals import (
    PlayerHolder,
    Principal,
    SeatHolder,
    actor_of,
    require_player,
)
from service.application.ports import Actor
from service.application.results import LinkCodeCreated, SignedIn
from service.application.write.transaction import Transaction

LINK_CODE_LIFE = timedelta(minutes=10)
# Crockford's base32: no I, L, O or U, so a code read aloud or typed is read one way.
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_LINK_CODE_LENGTH = 10  # 50 bits


class IdentityInUseError(ApplicationError):
    """The identity signs in another player: it cannot be linked to this one (409)."""

    code = "identity_in_use"


class LinkCodeRefusedError(UnauthenticatedError):
    """Unknown, used or expired: the same answer for all three."""

    def __init__(self) -> None:
        super().__init__("this link code is unknown, used or expired", code="invalid_link_code")


def new_link_code() -> str:
    """A code of 50 random bits, as ``XXXXX-XXXXX``."""
    code = "".join(secrets.choice(_ALPHABET) for _ in range(_LINK_CODE_LENGTH))
    return f"{code[:5]}-{code[5:]}"


def link_code_digest(code: str) -> str:
    """What is stored of a code: the SHA-256 of its characters as typed any way (case,
    dashes and spaces aside; O read as 0, I and L as 1)."""
    plain = code.upper().replace("-", "").replace(" ", "")
    return token_digest(plain.replace("O", "0").replace("I", "1").replace("L", "1"))


def authorize_sign_in(cmd: SignIn | SignInWithCode, principal: Principal) -> Actor:
    """Anyone; with a player token, to link an identity to that player. A seat's own
    token is not a player's."""
    if isinstance(principal, SeatHolder) and principal.player_id is None:
        raise ForbiddenError("a seat token cannot sign in: send a player token, or none")
    return actor_of(principal)


def sign_in(cmd: SignIn, actor: Actor, tx: Transaction) -> SignedIn:
    linked = tx.uow.identities.find(cmd.issuer, cmd.subject)
    holder = tx.principal if isinstance(tx.principal, PlayerHolder) else None
    if holder is not None:
        if linked is not None and linked != holder.player_id:
            raise IdentityInUseError("this identity signs in another player")
        if linked is None:
            tx.uow.identities.add(cmd.issuer, cmd.subject, holder.player_id, tx.now)
        return _new_token(tx, holder.player_id, "oidc", new_player=False)
    if linked is not None:
        return _new_token(tx, linked, "oidc", new_player=False)
    player_id = uuid4()
    player = PlayerRecord(player_id, tx.seal_name(player_id, cmd.name), tx.now)
    token = new_token()
    made = PlayerToken(uuid4(), player.id, "oidc", tx.now, token_digest(token))
    tx.uow.players.add(player, made)
    tx.uow.identities.add(cmd.issuer, cmd.subject, player.id, tx.now)
    return SignedIn(player.id, cmd.name, token, made.id, True)


def sign_in_with_code(cmd: SignInWithCode, actor: Actor, tx: Transaction) -> SignedIn:
    player_id = tx.uow.link_codes.take(cmd.code_sha256, tx.now)
    if player_id is None:
        raise LinkCodeRefusedError()
    return _new_token(tx, player_id, "link", new_player=False)


def _new_token(tx: Transaction, player_id: UUID, via: str, *, new_player: bool) -> SignedIn:
    player = tx.uow.players.get(player_id)
    if player is None:  # pragma: no cover - identities and codes reference their player
        raise UnauthenticatedError("the player is gone")
    if player.suspended_at is not None:
        raise PlayerSuspendedError()
    token = new_token()
    made = PlayerToken(uuid4(), player_id, via, tx.now, token_digest(token))
    tx.uow.player_tokens.add(made)
    return SignedIn(player_id, player.name, token, made.id, new_player)


def authorize_link_code(cmd: CreateLinkCode, principal: Principal) -> Actor:
    """A player, with one of their tokens."""
    require_player(principal)
    return actor_of(principal)


def create_link_code(cmd: CreateLinkCode, actor: Actor, tx: Transaction) -> LinkCodeCreated:
    player = require_player(tx.principal)
    code = new_link_code()
    expires = tx.now + LINK_CODE_LIFE
    tx.uow.link_codes.add(LinkCode(link_code_digest(code), player.player_id, tx.now, expires))
    return LinkCodeCreated(code, expires)
