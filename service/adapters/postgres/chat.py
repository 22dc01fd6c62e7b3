"""Chat messages (migration 0022).

Posting reads once and writes once: :meth:`SqlChat.draw` takes the game's chat lock
(``pg_advisory_xact_lock``, held until commit), draws the id from the table's sequence
and counts the sender's recent messages in one round trip; :meth:`SqlChat.add` writes the
row and announces ``c <game id> <message id>`` with the commit (on the commits' channel,
or the Redis bus with YOKAI_REDIS_URL), which wakes the game's streams. Ids drawn under
the game's lock commit in their order, so reading a game's messages after an id never
skips one that commits later."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.events import CHANNEL
from service.adapters.postgres.session import Session, Statement
from service.application.chat.ports import ChatMessage, Drawn
from service.application.live.hub import chat_key

_COLUMNS = "id, game_id, at, channel, seat, player_id, name, text, preset"
_DRAW = (
    "SELECT nextval(pg_get_serial_sequence('chat_messages', 'id')), "
    "(SELECT count(*) FROM chat_messages WHERE sender = %s AND at > %s), "
    "(SELECT name FROM players WHERE id = %s)"
)
_ADD = (
    f"INSERT INTO chat_messages ({_COLUMNS}, sender) OVERRIDING SYSTEM VALUE "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def chat_lock_id(game_id: UUID) -> int:
    """The transaction-scoped advisory lock of a game's chat: 64 bits of a hash (apart
    from the other advisory locks by its prefix)."""
    digest = hashlib.sha256(f"chat|{game_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def message(row: tuple[Any, ...]) -> ChatMessage:
    return ChatMessage(*row)


class SqlChat:
    def __init__(self, session: Session) -> None:
        self._session = session

    def draw(self, game_id: UUID, sender: str, since: datetime, named: UUID | None = None) -> Drawn:
        self._session.hold(Statement("SELECT pg_advisory_xact_lock(%s)", (chat_lock_id(game_id),)))
        ((drawn, recent, name),) = self._session.fetch(_DRAW, (sender, since, named), one_row=True)
        return Drawn(int(drawn), int(recent), name)

    def add(self, m: ChatMessage, sender: str) -> None:
        self._session.write(
            Statement(
                _ADD,
                (
                    m.id,
                    m.game_id,
                    m.at,
                    m.channel,
                    m.seat,
                    m.player_id,
                    m.name,
                    m.text,
                    m.preset,
                    sender,
                ),
            )
        )
        self._session.notify(CHANNEL, f"{chat_key(m.game_id)} {m.id}")

    def page(
        self, game_id: UUID, channels: tuple[str, ...], after: int | None, limit: int
    ) -> list[ChatMessage]:
        rows = self._session.fetch(
            f"SELECT {_COLUMNS} FROM chat_messages WHERE game_id = %s AND channel = ANY(%s) "
            "AND id > %s ORDER BY id LIMIT %s",
            (game_id, list(channels), after or 0, limit),
            order="id",
        )
        return [message(r) for r in rows]

    def newest(self, game_id: UUID) -> int:
        rows = self._session.fetch(
            "SELECT coalesce(max(id), 0) FROM chat_messages WHERE game_id = %s",
            (game_id,),
            one_row=True,
        )
        return int(rows[0][0])
