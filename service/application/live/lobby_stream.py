"""The lobby's stream: the first page of open tables, then each table that changes (one
that filled, started or expired with ``open_seats`` 0), for as long as the client
listens. Every change of the lobby wakes it (one key for the whole lobby); it reads the
rows changed since the last it sent."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from datetime import timedelta

from service.application.deps import Deps
from service.application.live.hub import LOBBY_KEY, Subscription
from service.application.live.streams import KEEPALIVE_SECONDS, KeepAlive, Stream, follow
from service.application.lobby.ports import LobbyEntry, LobbyFilter

FIRST_PAGE = 100
"""The most tables of the first message."""

SLACK = timedelta(seconds=5)
"""Rows changed this long before the last one seen are read again (a command stamps its
rows before it commits, so one may commit after a later stamp was read)."""


@dataclass(frozen=True, slots=True)
class LobbyMessage:
    games: list[LobbyEntry]


@dataclass(frozen=True, slots=True)
class TableMessage:
    entry: LobbyEntry


LobbyStreamMessage = LobbyMessage | TableMessage | KeepAlive


def lobby_stream(
    deps: Deps, where: LobbyFilter, keepalive: float = KEEPALIVE_SECONDS
) -> Stream[LobbyStreamMessage]:
    """Open the lobby's stream (anyone may)."""
    subscription = deps.changes.subscribe(LOBBY_KEY)
    try:
        with deps.uow(snapshot=True) as uow:
            first = uow.lobby.page(where, None, FIRST_PAGE)
    except BaseException:
        subscription.close()
        raise
    return Stream(_messages(deps, where, subscription, first, keepalive), subscription)


def _messages(
    deps: Deps,
    where: LobbyFilter,
    subscription: Subscription,
    first: list[LobbyEntry],
    keepalive: float,
) -> Iterator[LobbyStreamMessage]:
    sent = {e.game_id: e for e in first}
    seen = deps.clock.now()

    def read() -> Generator[LobbyStreamMessage, None, None]:
        nonlocal seen
        with deps.uow() as uow:
            rows = uow.lobby.changed(where, seen - SLACK)
        for entry in rows:
            before = sent.get(entry.game_id)
            if before == entry or (before is None and entry.open_seats == 0):
                continue
            seen = max(seen, entry.updated_at)
            if entry.open_seats:
                sent[entry.game_id] = entry
            else:
                sent.pop(entry.game_id, None)  # gone: a later read skips it
            yield TableMessage(entry)

    try:
        yield LobbyMessage(first)
        # The store unreachable: the client reconnects and starts again from the first page.
        yield from follow(subscription, keepalive, read)
    finally:
        subscription.close()
