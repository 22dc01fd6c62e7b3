"""A player's stream: their active inbox, then each of their games as it changes, each
of their seeks as it is matched (a match adds the game to the inbox in the same commit:
the seeks are read when a game the stream did not know appears), and each public game a
player they follow takes a seat of (``follow``).

Follows: the stream waits on the ``follow_key`` of each player followed when it opened
(announced by a commit that seats one at a public game: service/application/social/
projections.py) and reads their public games only when one is announced (or anything
may have been), so a play in the player's own games costs it no more than before. The
public games they sat at before it opened are not told (GET /v1/me/follows lists them);
a player followed after it opened is heard of from its next opening."""

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
from service.application.live.hub import Subscription, follow_key, player_key
from service.application.live.streams import (
    KEEPALIVE_SECONDS,
    FollowMessage,
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
    with deps.uow() as uow:
        guard(uow, principal)
        followed = tuple(uow.follows.followed(player.player_id))
    subscription = deps.changes.subscribe(
        player_key(player.player_id),
        ending_keys(principal),
        tuple(follow_key(p) for p in followed),
    )
    since = deps.clock.now() - WATCH_SLACK
    try:
        # One snapshot for every read: a commit between them would otherwise show its
        # change in neither the inbox page nor (being already "known") a later message.
        with deps.uow(snapshot=True) as uow:
            guard(uow, principal)
            active = uow.inbox.page(player.player_id, STATUSES["active"], None, INBOX_LIMIT)
            watched = uow.inbox.watched(player.player_id, since)
            seated = set(uow.follows.playing(followed)) if followed else set()
    except BaseException:
        subscription.close()
        raise
    messages = _player_messages(
        deps, player, subscription, active, (watched, since), (followed, seated), keepalive
    )
    return Stream(messages, subscription)


def _player_messages(
    deps: Deps,
    principal: PlayerHolder,
    subscription: Subscription,
    active: list[InboxEntry],
    inbox: tuple[list[InboxEntry], Any],
    follows: tuple[tuple[UUID, ...], set[tuple[UUID, UUID]]],
    keepalive: float,
) -> Iterator[PlayerStreamMessage]:
    watched, since = inbox
    followed, seated = follows  # seated: (player, game) told, or there when it opened
    known = {e.game_id: e for e in watched}
    told: set[UUID] = set()  # matched seeks sent (those matched before it opened: never)

    def read() -> Generator[PlayerStreamMessage, None, None]:
        look = bool(followed) and (subscription.heard or subscription.deaf)
        subscription.heard = False  # before the read: an announcement during it wakes again
        with deps.uow() as uow:
            entries = uow.inbox.watched(principal.player_id, since)
            new = any(e.game_id not in known for e in entries)
            matched = uow.seeks.matched(principal.player_id, since) if new else []
            playing = uow.follows.playing(followed) if look else []
        for pair in playing:
            if pair not in seated:
                seated.add(pair)
                yield FollowMessage(*pair)
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
