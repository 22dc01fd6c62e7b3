"""Long-polls: a feed or an inbox read again each time what it shows may have changed
(the hub hears of every commit, in any process), until it has news or the time is up."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar
from uuid import UUID

from service.application.deps import Deps
from service.application.games.queries import feeds, inbox
from service.application.identity.principals import Principal, require_player
from service.application.live.hub import DEAF_POLL, LOBBY_KEY, game_key, player_key
from service.application.lobby import queries
from service.application.lobby.ports import LobbyFilter
from service.application.lobby.queries import LobbyPage, LobbyUnchanged
from service.application.results import Feed, InboxPage, InboxUnchanged

T = TypeVar("T")


def until(deps: Deps, key: str, wait: float, read: Callable[[], T], news: Callable[[T], bool]) -> T:
    """``read()`` until what it gives is news, ``wait`` seconds pass or the process is
    shutting down; the last read."""
    deadline = time.monotonic() + wait
    # Subscribed before the first read: a commit between the read and the wait wakes it.
    with deps.changes.subscribe(key) as subscription:
        while True:
            found = read()
            left = deadline - time.monotonic()
            if news(found) or left <= 0 or subscription.closing:
                return found
            # While the hub is deaf (the bus is away), look again every DEAF_POLL seconds.
            subscription.wait(min(left, DEAF_POLL) if subscription.deaf else left)


def feed(
    deps: Deps, game_id: UUID, principal: Principal, after: int, limit: int, wait: float = 0
) -> Feed:
    """The feed after ``after``; with ``wait`` seconds and nothing after ``after`` yet,
    the answer waits until an event commits or the time is up (no events)."""

    def read() -> Feed:
        return feeds.feed(deps, game_id, principal, after, limit)

    if wait <= 0:
        return read()
    return until(deps, game_key(game_id), wait, read, lambda found: bool(found.events))


def my_games(
    deps: Deps,
    principal: Principal,
    status: str,
    cursor: str | None,
    limit: int,
    unless: frozenset[str] = frozenset(),
    wait: float = 0,
    game: UUID | None = None,
) -> InboxPage | InboxUnchanged:
    """The inbox (``game``: that game's entry alone); with ``wait`` seconds, an unchanged
    inbox is looked at again each time one of the player's entries changes, until it has
    changed or the time is up."""

    def read() -> InboxPage | InboxUnchanged:
        return inbox.inbox(deps, principal, status, cursor, limit, unless, game)

    if wait <= 0 or not unless:
        return read()
    player = require_player(principal)
    return until(
        deps, player_key(player.player_id), wait, read, lambda page: isinstance(page, InboxPage)
    )


def lobby(
    deps: Deps,
    where: LobbyFilter,
    cursor: str | None,
    limit: int,
    unless: frozenset[str] = frozenset(),
    wait: float = 0,
) -> LobbyPage | LobbyUnchanged:
    """The lobby; with ``wait`` seconds, an unchanged lobby is looked at again each time
    it changes, until it has changed or the time is up."""

    def read() -> LobbyPage | LobbyUnchanged:
        return queries.page(deps, where, cursor, limit, unless)

    if wait <= 0 or not unless:
        return read()
    return until(deps, LOBBY_KEY, wait, read, lambda page: isinstance(page, LobbyPage))
