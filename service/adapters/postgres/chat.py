"""Chat messages (migration 0022).

Posting is one statement (:meth:`SqlChat.post`), which commits with itself. It runs the
unit of work's checks (the token still valid), reads whether an operator's mute of the
sender runs, counts the sender's recent messages on their row of ``chat_senders`` (and
adds this one, under the limit), takes the game's chat lock (``pg_advisory_xact_lock``,
held until it commits), and draws the id from the table's sequence, writes the row and
announces ``c <game id> <message id>`` (``pg_notify``, sent as it commits; or on the
Redis bus with YOKAI_REDIS_URL, once it has), which wakes the game's streams. Ids drawn
under the game's lock commit in their order, so reading a game's messages after an id
never skips one that commits later. With an Idempotency-Key it runs in the unit of
work's transaction instead, which stores the outcome under the key before it commits
(the lock is held until then)."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any
from uuid import UUID

from service.adapters.postgres.events import CHANNEL
from service.adapters.postgres.session import Session, Statement
from service.application.chat.ports import ChatMessage, Posted
from service.application.live.hub import chat_key

_COLUMNS = "id, game_id, at, channel, seat, player_id, name, text, preset"
_POST = (
    "muted AS (SELECT max(until) AS until FROM reports WHERE player_id = %s::uuid "
    "AND action = 'mute' AND until > %s::timestamptz), "
    # The sender's recent messages, counted on their row: an update waits for another in
    # flight and sees it, so concurrent messages of one sender count each other.
    "counted AS (INSERT INTO chat_senders AS s (sender, recent) "
    "SELECT %s::text, ARRAY[%s::timestamptz] FROM muted WHERE muted.until IS NULL "
    "ON CONFLICT (sender) DO UPDATE SET recent = array_append(ARRAY(SELECT t FROM "
    "unnest(s.recent) AS t WHERE t > %s::timestamptz), EXCLUDED.recent[1]) "
    "WHERE (SELECT count(*) FROM unnest(s.recent) AS t WHERE t > %s::timestamptz) < %s "
    "RETURNING 1), "
    "locked AS (SELECT pg_advisory_xact_lock(%s) FROM counted), "
    f"written AS (INSERT INTO chat_messages ({_COLUMNS}, sender) OVERRIDING SYSTEM VALUE "
    "SELECT nextval(pg_get_serial_sequence('chat_messages', 'id')), %s::uuid, "
    "%s::timestamptz, %s::text, %s::smallint, %s::uuid, "
    "coalesce((SELECT name FROM players WHERE id = %s::uuid), %s::text), %s::text, "
    "%s::text, %s::text FROM locked RETURNING id, name)"
)
_TOLD = ", told AS (SELECT pg_notify(%s, %s::text || ' ' || id) FROM written)"


def lock_id(kind: str, key: object) -> int:
    """A transaction-scoped advisory lock of the chat (``game``: a game's messages): 64
    bits of a hash, apart from the other advisory locks by its prefix."""
    digest = hashlib.sha256(f"chat {kind}|{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def message(row: tuple[Any, ...]) -> ChatMessage:
    return ChatMessage(*row)


class SqlChat:
    def __init__(self, session: Session) -> None:
        self._session = session

    def post(
        self,
        m: ChatMessage,
        sender: str,
        since: datetime,
        limit: int,
        *,
        named: UUID | None,
        atomic: bool,
    ) -> Posted:
        session = self._session
        if atomic:
            session.begin()
        key = chat_key(m.game_id)
        bused = session.on_the_bus(CHANNEL)
        checks = session.take_checks()
        parts = [f"c{i} AS ({c.sql})" for i, c in enumerate(checks)]
        params: list[Any] = [p for c in checks for p in c.params]
        parts.append(_POST)
        params += [m.player_id, m.at, sender, m.at, since, since, limit]
        params += [lock_id("game", m.game_id), m.game_id, m.at, m.channel, m.seat]
        params += [m.player_id, named, m.name, m.text, m.preset, sender]
        sql = "WITH " + ", ".join(parts)
        if not bused:
            sql += _TOLD
            params += [CHANNEL, key]
        passed = [f"(SELECT count(*) FROM c{i})" for i in range(len(checks))]
        told = [] if bused else ["(SELECT count(*) FROM told)"]
        columns = ["(SELECT id FROM written)", "(SELECT name FROM written)"]
        columns += ["(SELECT until FROM muted)", *passed, *told]
        query = Statement(f"{sql} SELECT {', '.join(columns)}", params)
        ((drawn, name, muted, *_),) = session.write_now(query)
        if drawn is not None and bused:
            session.post_committed(CHANNEL, f"{key} {drawn}")
        return Posted(drawn, name, muted)

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
