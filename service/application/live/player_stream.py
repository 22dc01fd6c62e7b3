"""A player's stream: their active inbox, then each of their games as it changes, and
each of their seeks as it is matched (a match adds the game to the inbox in the same
commit: the seeks are read when a game the stream did not know appears)."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from datetime import timedelta
from typing import Any
from uuid import UUID

from service.application.deps import Deps
from service.application.games.ports import InboxEntry
from service.application.games.queries.inbox import STATUSES
from service.application.identity.principals import (
    PlayerHolder,
    Principal,
    guard,
    require_player,
)
from service.application.live.ending import ending_keys, token_gone
from service.application.live.hub import Subscription, player_key
from service.application.live.streams import (
    KEEPALIVE_SECONDS,
    GameMessage,
    InboxMessage,
    MatchedMessage,
    PlayerStreamMessage,
    Stream,
    follow,
)

INBOX_LIMIT = 500
"""The most entries the first ``inbox`` message of a player's stream holds."""


WATCH_SLACK = timedelta(minutes=10)
"""How far back a player's stream looks for entries that changed while it opened (the
times are the processes' clocks, which may differ a little)."""


def player_stream(
    deps: Deps, principal: Principal, keepalive: float = KEEPALIVE_SECONDS
) -> Stream[PlayerStreamMessage]:
    """Open the player's stream: the active inbox, then each entry that changes.

    Refusals (401, 403) are raised here, before any message.
    """
    player = require_player(principal)
    subscription = deps.changes.subscribe(player_key(player.player_id), ending_keys(principal))
    since = deps.clock.now() - WATCH_SLACK
    try:
        # One snapshot for both reads: a commit between them would otherwise show its
        # change in neither the inbox page nor (being already "known") a later message.
        with deps.uow(snapshot=True) as uow:
            guard(uow, principal)
            active = uow.inbox.page(player.player_id, STATUSES["active"], None, INBOX_LIMIT)
            watched = uow.inbox.watched(player.player_id, since)
    except BaseException:
        subscription.close()
        raise
    messages = _player_messages(deps, player, subscription, active, watched, since, keepalive)
    return Stream(messages, subscription)


def _player_messages(
    deps: Deps,
    principal: PlayerHolder,
    subscription: Subscription,
    active: list[InboxEntry],
    watched: list[InboxEntry],
    since: Any,
    keepalive: float,
) -> Iterator[PlayerStreamMessage]:
    known = {e.game_id: e for e in watched}
    told: set[UUID] = set()  # matched seeks sent (those matched before it opened: never)

    def read() -> Generator[PlayerStreamMessage, None, None]:
        with deps.uow() as uow:
            entries = uow.inbox.watched(principal.player_id, since)
            new = any(e.game_id not in known for e in entries)
            matched = uow.seeks.matched(principal.player_id, since) if new else []
        for seek in matched:
            if seek.game_id not in known and seek.id not in told:
                told.add(seek.id)
                yield MatchedMessage(seek)
        for entry in entries:
            if known.get(entry.game_id) != entry:
                known[entry.game_id] = entry
                yield GameMessage(entry)

    try:
        yield InboxMessage(active)
        # The store unreachable: the client reconnects and starts again from the inbox.
        yield from follow(
            subscription, keepalive, read, lambda: token_gone(deps, subscription, principal)
        )
    finally:
        subscription.close()
