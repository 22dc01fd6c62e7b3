"""Posting a chat message (POST /v1/games/{id}/chat), a command of the write path like
every other (write/registry.py: idempotency keys, one transaction).

A seat's token (or the token of the player holding the seat) writes on the ``table``
channel; a player's token without a seat in the game, on the ``spectators`` channel. The
sender's messages are counted over a sliding window (5 in 10 s: 429 ``chat_too_fast``);
a player an operator muted is refused (403 ``player_muted``) until the mute ends;
the game's chat is locked from the id's draw to the commit, so ids grow in the order the
game's messages commit and a reader after an id misses none."""

from __future__ import annotations

from datetime import timedelta

from service.application.chat import texts
from service.application.chat.ports import SPECTATORS, TABLE, ChatMessage
from service.application.commands import PostChat
from service.application.errors import ForbiddenError, InvalidInputError, TooManyError
from service.application.games.seating import held_seat
from service.application.identity.principals import (
    Operator,
    PlayerHolder,
    Principal,
    SeatHolder,
    actor_of,
    require_player,
    require_valid,
)
from service.application.moderation.reports import PlayerMutedError
from service.application.ports import Actor
from service.application.results import ChatPosted
from service.application.write.transaction import Transaction

WINDOW = timedelta(seconds=10)
PER_WINDOW = 5


def authorize(cmd: PostChat, principal: Principal) -> Actor:
    """A seat of the game, or a player (a spectator); not an operator."""
    require_valid(principal)
    if isinstance(principal, Operator):
        raise ForbiddenError("the chat is the players': a seat's or a player's token")
    if not isinstance(principal, SeatHolder):
        require_player(principal)
    elif principal.game_id != cmd.game_id:
        raise ForbiddenError("this token belongs to another game")
    return actor_of(principal, game_id=cmd.game_id)


def post(cmd: PostChat, actor: Actor, tx: Transaction) -> ChatPosted:
    if (cmd.text is None) == (cmd.preset is None):
        raise InvalidInputError("a message is a text or a preset, exactly one", "text_or_preset")
    state = tx.load(cmd.game_id).state
    principal = tx.principal
    if isinstance(principal, SeatHolder):
        held_seat(state, principal.seat)
        # The seat's player, whether their own token or the seat's acts: their text is
        # sealed under their key either way (erasure must reach it).
        player = principal.player_id or principal.seat_player
        channel, seat = TABLE, principal.seat
        name: str | None = state.names[seat] or f"Seat {seat + 1}"
    else:
        assert isinstance(principal, PlayerHolder)
        channel, seat, player, name = SPECTATORS, None, principal.player_id, None
    config = state.config
    text = None if cmd.text is None else texts.checked_text(cmd.text)
    preset = None if cmd.preset is None else texts.checked_preset(cmd.preset)
    rated_four = config is not None and config.rated and config.players == 4
    if text is not None and channel == TABLE and rated_four:
        raise InvalidInputError(
            "a rated four-player table takes presets only: partners must not signal",
            "presets_only",
        )
    sender = f"p{player.hex}" if player is not None else f"s{cmd.game_id.hex}:{seat}"
    if player is not None:
        text = None if text is None else tx.seal_text(player, text)
        if name is not None:
            name = tx.seal_name(player, name)
    spectator = player if name is None else None
    message = ChatMessage(0, cmd.game_id, tx.now, channel, seat, player, name or "", text, preset)
    posted = tx.uow.chat.post(
        message, sender, tx.now - WINDOW, PER_WINDOW, named=spectator, atomic=tx.keyed
    )
    if posted.muted_until is not None:
        raise PlayerMutedError(posted.muted_until)
    if posted.id is None or posted.name is None:
        raise TooManyError(
            f"at most {PER_WINDOW} messages in {WINDOW.seconds} s", "chat_too_fast", 2
        )
    return ChatPosted(
        posted.id, cmd.game_id, tx.now, channel, seat, player, posted.name, text, preset
    )
