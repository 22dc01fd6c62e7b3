"""What ends a stream besides its game: the revocation of the player token it was opened
with (announced to every process), or the player's suspension."""

from __future__ import annotations

from service.application.deps import Deps
from service.application.identity.principals import (
    PlayerHolder,
    Principal,
    SeatHolder,
)
from service.application.live.hub import Subscription, token_key
from service.application.ports import StoreUnavailableError


def token_of(principal: Principal) -> str | None:
    """The digest of the player's token a stream was opened with, if it was."""
    if isinstance(principal, PlayerHolder):
        return principal.token_sha256
    if isinstance(principal, SeatHolder) and principal.player_id is not None:
        return principal.token_sha256
    return None


def ending_keys(principal: Principal) -> tuple[str, ...]:
    """What ends a stream when announced: its player token's revocation."""
    digest = token_of(principal)
    return () if digest is None else (token_key(digest),)


def token_gone(deps: Deps, subscription: Subscription, principal: Principal) -> bool:
    """Whether the stream's player token was revoked: announced, or (after the listener
    reconnected, when an announcement may have been missed) as the store says."""
    if subscription.ended:
        return True
    digest = token_of(principal)
    if not subscription.recheck or digest is None:
        return False
    subscription.recheck = False
    try:
        with deps.uow() as uow:
            return uow.players.find(digest) is None
    except StoreUnavailableError:
        return True  # the client reconnects, and is let in again only if the token holds
