"""A game stream's side of the chat (docs/api.md "Table talk"): from the game's newest
message when the stream opens, each message announced since that the viewer may read
(``event: chat``), the channels following the game (a seat reads the spectators once it
is over) and never a player the viewer blocked."""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from uuid import UUID

from service.application.chat.ports import ChatMessage
from service.application.chat.reading import blocked_by, reader_of, shown
from service.application.deps import Deps
from service.application.errors import ForbiddenError
from service.application.games.cache import Loaded
from service.application.identity.principals import (
    Anonymous,
    PlayerHolder,
    Principal,
    SeatHolder,
)
from service.application.live.hub import Subscription, block_key, chat_key
from service.application.live.recent import Commit
from service.application.ports import UnitOfWork


@dataclass(frozen=True, slots=True)
class ChatStreamMessage:
    """A chat message the stream's viewer may read."""

    message: ChatMessage


class Talk:
    """What a game stream's viewer reads of the chat: the last message id it went past,
    the players it blocked, and the hub's epoch it last read the store in."""

    def __init__(
        self, principal: Principal, last: int, blocked: frozenset[UUID], epoch: int
    ) -> None:
        self.principal = principal
        self.last = last
        self.blocked = blocked
        self.epoch = epoch

    def keys(self, game_id: UUID) -> tuple[str, ...]:
        return chat_keys(game_id, self.principal)

    def only_talk(self, game_id: UUID, subscription: Subscription, woken: set[str | None]) -> bool:
        """Whether only the chat's keys woke the stream (and the hub is not deaf): no
        commit to read."""
        return bool(woken) and woken <= set(self.keys(game_id)) and not subscription.deaf

    def after(
        self,
        deps: Deps,
        game_id: UUID,
        subscription: Subscription,
        loaded: Loaded,
        woken: set[str | None],
        commits: Sequence[Commit],
    ) -> Generator[ChatStreamMessage, None, bool]:
        """After a wake-up's commits (the channels are the game's as it stands now): the
        messages heard; True, with none, when the viewer, a spectator, took a seat (the
        stream then ends, and reopens as the seat's: the spectators' channel is not a
        seated player's while the game runs)."""
        if self.took_a_seat(deps, game_id, commits):
            return True
        yield from self.heard(deps, game_id, subscription, loaded, woken)
        return False

    def took_a_seat(self, deps: Deps, game_id: UUID, commits: Sequence[Commit]) -> bool:
        """Whether a player who watched without a seat holds one after ``commits`` (read
        from the store, only after a commit that seated someone)."""
        principal = self.principal
        if not isinstance(principal, PlayerHolder):
            return False
        if not any(r.type == "SeatJoined" for c in commits for r in c.rows):
            return False
        with deps.uow() as uow:
            return uow.players.seat_in(game_id, principal.player_id) is not None

    def heard(
        self,
        deps: Deps,
        game_id: UUID,
        subscription: Subscription,
        loaded: Loaded,
        woken: set[str | None],
    ) -> Iterator[ChatStreamMessage]:
        """The messages announced since the last look (read from the process's recent
        chat, which reads the store once for the game's streams); nothing is read when
        nothing newer was announced, unless announcements may have been missed. The
        viewer's blocks are read again when they announced a change."""
        player = reader_player(self.principal)
        if player is not None and (None in woken or block_key(player) in woken):
            with deps.uow() as uow:
                self.blocked = blocked_by(uow, player)
        hub = deps.changes
        announced = hub.announced(chat_key(game_id))
        unsure = subscription.deaf or hub.epoch != self.epoch
        if not unsure and (announced is None or announced <= self.last):
            return
        self.epoch = hub.epoch
        found = deps.recent_chat.after(deps.uow, game_id, self.last, None if unsure else announced)
        if not found:
            return
        self.last = found[-1].id
        try:
            channels = reader_of(self.principal, game_id, loaded.state).channels
        except ForbiddenError:  # its seat's player left: the stream ends with the view
            return
        for m in shown(found, channels, self.blocked):
            yield ChatStreamMessage(m)


def talk_of(
    uow: UnitOfWork, game_id: UUID, principal: Principal, loaded: Loaded, epoch: int
) -> Talk:
    """The chat's side of a stream opened now: from the game's newest message on."""
    reader = reader_of(principal, game_id, loaded.state)  # refuses as GET .../chat does
    blocked = blocked_by(uow, reader.player_id)
    return Talk(principal, uow.chat.newest(game_id), blocked, epoch)


def reader_player(principal: Principal) -> UUID | None:
    """The player a stream's viewer is, if one (whose blocks hide messages)."""
    if isinstance(principal, SeatHolder):
        return principal.player_id or principal.seat_player
    if isinstance(principal, PlayerHolder):
        return principal.player_id
    return None


def chat_keys(game_id: UUID, principal: Principal) -> tuple[str, ...]:
    """What wakes a game stream for the chat: the game's messages, the viewer's blocks;
    nothing for the public without a token (it reads no chat)."""
    if isinstance(principal, Anonymous):
        return ()
    player = reader_player(principal)
    return (chat_key(game_id),) + (() if player is None else (block_key(player),))
