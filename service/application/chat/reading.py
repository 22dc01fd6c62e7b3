"""Reading a game's chat (GET /v1/games/{id}/chat, the game stream's ``event: chat``):
who reads which channel, and a page of messages as its reader may see them.

Seated players read the ``table`` channel, and the ``spectators`` channel once the game
is over; a player without a seat reads the ``spectators`` channel; an operator, both.
The messages of players the reader blocked never reach them (``blocked``)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from service.application.chat.ports import CHANNELS, SPECTATORS, TABLE, ChatMessage
from service.application.deps import Deps
from service.application.errors import ForbiddenError, UnauthenticatedError
from service.application.games.loading import load
from service.application.games.seating import held_seat
from service.application.identity.principals import (
    Anonymous,
    Operator,
    Principal,
    SeatHolder,
    guard,
    require_player,
    require_valid,
)
from service.application.ports import UnitOfWork
from service.rules import GameState, public_status

LONGEST_PAGE = 200


@dataclass(frozen=True, slots=True)
class Reader:
    """Who reads a game's chat: the channels they read, the player they are (if one)."""

    channels: tuple[str, ...]
    player_id: UUID | None


def reader_of(principal: Principal, game_id: UUID, state: GameState) -> Reader:
    """The channels ``principal`` reads in the game ``game_id`` at ``state`` (401/403 as
    the views refuse: another game's seat token is refused)."""
    require_valid(principal)
    if isinstance(principal, Anonymous):
        raise UnauthenticatedError("the chat needs a seat's or a player's token", "missing_token")
    if isinstance(principal, Operator):
        return Reader(CHANNELS, None)
    if isinstance(principal, SeatHolder):
        if principal.game_id != game_id:
            raise ForbiddenError("this token belongs to another game")
        held_seat(state, principal.seat)
        over = public_status(state) == "finished"
        player = principal.player_id or principal.seat_player
        return Reader(CHANNELS if over else (TABLE,), player)
    return Reader((SPECTATORS,), require_player(principal).player_id)


def shown(
    messages: Iterable[ChatMessage], channels: Collection[str], blocked: Collection[UUID]
) -> list[ChatMessage]:
    """The messages of ``channels`` whose authors the reader did not block."""
    return [m for m in messages if m.channel in channels and (m.player_id not in blocked)]


@dataclass(frozen=True, slots=True)
class ChatPage:
    messages: list[ChatMessage]
    next_after: int | None


def page(
    deps: Deps, game_id: UUID, principal: Principal, after: int | None, limit: int
) -> ChatPage:
    """The messages after ``after`` the principal may read, oldest first; ``next_after``
    the last one's id of the reader's channels (``after`` when there is none: kept for
    polling; None when the reader's channels have none yet)."""
    with deps.uow() as uow:
        guard(uow, principal)
        reader = reader_of(principal, game_id, load(uow, deps.cache, game_id).state)
        blocked = blocked_by(uow, reader.player_id)
        found = uow.chat.page(game_id, reader.channels, after, limit)
    messages = shown(found, reader.channels, blocked)
    last = found[-1].id if found else after
    return ChatPage(messages, last)


def blocked_by(uow: UnitOfWork, player_id: UUID | None) -> frozenset[UUID]:
    """The players ``player_id`` blocked (none for a seat no player holds)."""
    return frozenset() if player_id is None else uow.blocks.blocked_by(player_id)


def as_json(m: ChatMessage) -> dict[str, Any]:
    """A message as the API shows it (its sealed name and text opened where the answer
    leaves the service)."""
    return {
        "id": m.id,
        "at": m.at,
        "channel": m.channel,
        "from": {"seat": m.seat, "name": m.name, "player_id": m.player_id},
        "text": m.text,
        "preset": m.preset,
    }
