"""Live delivery: what a game's stream and a player's stream send, message by message.

A game's stream sends the viewer's view first (or, resuming after ``seq`` N, every event
after N and then the view), then, for each command committed since, its events and one
view at the version it produced; ``end`` after the view of a finished game. Events are
made by :func:`feeds.feed_event` and views by :func:`service.rules.observe`, the code
paths of ``/events`` and of the views, so a stream shows each viewer exactly what those
show them.

Between commits a stream waits on the process's hub (service/application/live/hub.py),
holding no database connection; a wake-up reads the store by ``seq``, so a wake-up that
carries nothing, or several commits behind one wake-up, give the same messages. That
wait, its keep-alives and its ends are :func:`follow`, the loop of the game's, the
player's (player_stream.py) and the lobby's (lobby_stream.py) streams alike.
Everything that can refuse the stream (404, 401, 403, 422) is checked before the first
message, when the stream is opened. A stream whose store cannot be reached ends (its
client reconnects, and resumes with ``Last-Event-ID``, once the store is back).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from uuid import UUID

from service.application.deps import Deps
from service.application.errors import InvalidInputError
from service.application.games.cache import Loaded
from service.application.games.loading import current_version, load_at
from service.application.games.ports import InboxEntry
from service.application.games.queries.feeds import feed_event
from service.application.games.seating import held_seat, viewer_of
from service.application.games.turnclocks import present
from service.application.identity.principals import PlayerHolder, Principal, guard
from service.application.live.chat_stream import ChatStreamMessage, Talk, chat_keys, talk_of
from service.application.live.ending import ending_keys, token_gone
from service.application.live.hub import DEAF_POLL, Subscription, game_key
from service.application.ports import StoreUnavailableError
from service.application.results import FeedEvent, Versioned
from service.application.seeks.ports import Seek
from service.rules import PUBLIC, SeatViewer, Viewer, public_status

KEEPALIVE_SECONDS = 15.0


@dataclass(frozen=True, slots=True)
class ViewMessage:
    view: Versioned[Any]


@dataclass(frozen=True, slots=True)
class EventMessage:
    event: FeedEvent


@dataclass(frozen=True, slots=True)
class EndMessage:
    version: int


@dataclass(frozen=True, slots=True)
class KeepAlive:
    pass


@dataclass(frozen=True, slots=True)
class InboxMessage:
    games: list[InboxEntry]


@dataclass(frozen=True, slots=True)
class GameMessage:
    entry: InboxEntry


@dataclass(frozen=True, slots=True)
class MatchedMessage:
    """One of the player's seeks was paired: its game and seat."""

    seek: Seek


@dataclass(frozen=True, slots=True)
class FollowMessage:
    """A player this player follows took a seat of a public game."""

    player_id: UUID
    game_id: UUID


GameStreamMessage = ViewMessage | EventMessage | EndMessage | ChatStreamMessage | KeepAlive
PlayerStreamMessage = InboxMessage | GameMessage | MatchedMessage | FollowMessage | KeepAlive
M = TypeVar("M")


class Stream(Generic[M]):
    """An open stream's messages; :meth:`close` frees what it holds (its place in the
    hub) whether or not it was ever read."""

    def __init__(
        self,
        messages: Iterator[M],
        subscription: Subscription,
        release: Callable[[], None] | None = None,
    ) -> None:
        self._messages = messages
        self._subscription = subscription
        self._release = release
        # Resumed at the final version of a finished game: nothing will ever follow.
        self.complete = False

    def __iter__(self) -> Iterator[M]:
        return self._messages

    def __next__(self) -> M:
        return next(self._messages)

    def close(self) -> None:
        try:
            close = getattr(self._messages, "close", None)
            if close is not None:
                close()
        finally:
            self._subscription.close()
            if self._release is not None:
                self._release()


Read = Callable[[], Generator[M, None, bool | None]]
"""What a stream does when the hub wakes it: read the store and yield its messages;
returns True when the stream is over (else it waits again)."""


def _never() -> bool:
    return False


def follow(
    subscription: Subscription,
    keepalive: float,
    read: Read[M],
    gone: Callable[[], bool] = _never,
) -> Iterator[M | KeepAlive]:
    """The loop of every stream once its first messages are sent: wait on the hub, a
    :class:`KeepAlive` after ``keepalive`` seconds without a wake-up; on a wake-up,
    ``read()``'s messages; while the hub is deaf (the bus is away), ``read()`` every
    DEAF_POLL seconds too. Ends when the process stops (the hub closes), when ``gone()``
    says the token is no more, when ``read()`` says the stream is over, or when the store
    cannot be reached (its client reconnects, and starts again or resumes, once the store
    is back)."""
    quiet = time.monotonic()
    while True:
        deaf = subscription.deaf
        if not subscription.wait(min(keepalive, DEAF_POLL) if deaf else keepalive):
            if subscription.closing:
                return
            if not deaf or time.monotonic() - quiet >= keepalive:
                quiet = time.monotonic()
                yield KeepAlive()
            if not deaf:
                continue
            # Nobody can announce a commit now: look at the store as a wake-up would.
        if subscription.closing or gone():
            return
        try:
            over = yield from read()
        except StoreUnavailableError:
            return
        if over:
            return


def _once(action: Callable[[], None]) -> Callable[[], None]:
    done = threading.Lock()

    def run() -> None:
        if done.acquire(blocking=False):
            action()

    return run


def game_stream(
    deps: Deps,
    game_id: UUID,
    principal: Principal,
    after: int | None,
    keepalive: float = KEEPALIVE_SECONDS,
) -> Stream[GameStreamMessage]:
    """Open the game's stream for the principal; resume after event ``after`` if given.

    Refusals are raised here, before any message; the messages come from the returned
    iterator, which waits for commits and ends with the game, when the process shuts
    down, or when its consumer closes it.
    """
    # A player without a seat watches: the public view, and the spectators' chat.
    viewer = PUBLIC if isinstance(principal, PlayerHolder) else viewer_of(game_id, principal)
    also = chat_keys(game_id, principal)  # none for the public: it reads no chat
    subscription = deps.changes.subscribe(game_key(game_id), ending_keys(principal), also)
    # The hub's epoch before the read: a listener reconnect after this point makes
    # recent.after() read the store, so a commit nobody heard while the stream opened
    # is not left waiting for the next one.
    epoch = deps.changes.epoch
    try:
        with deps.uow() as uow:
            guard(uow, principal)
            version = current_version(uow, game_id)
            if after is not None and after > version:
                raise InvalidInputError(
                    f"the game is at version {version}: there is no event {after} yet",
                    code="after_out_of_range",
                )
            missed = [] if after is None else uow.events.load(game_id, after=after, upto=version)
            loaded = load_at(uow, deps.cache, game_id, version)
            if isinstance(viewer, SeatViewer):
                held_seat(loaded.state, viewer.seat)
            talk = talk_of(uow, game_id, principal, loaded, epoch) if also else None
    except BaseException:
        subscription.close()
        raise
    first: list[GameStreamMessage] = [EventMessage(feed_event(r, viewer)) for r in missed]
    deps.recent.watch(game_id, epoch, loaded)
    if talk is not None:
        deps.recent_chat.watch(game_id, talk.last)
    unwatch = _once(lambda: _unwatch(deps, game_id, talk))
    messages = _game_messages(
        deps, game_id, viewer, subscription, first, loaded, keepalive, unwatch, principal, talk
    )
    stream = Stream(messages, subscription, unwatch)
    stream.complete = after == loaded.version and _finished(loaded)
    return stream


def _game_messages(
    deps: Deps,
    game_id: UUID,
    viewer: Viewer,
    subscription: Subscription,
    first: list[GameStreamMessage],
    loaded: Loaded,
    keepalive: float,
    unwatch: Callable[[], None],
    principal: Principal,
    talk: Talk | None,
) -> Iterator[GameStreamMessage]:

    def read() -> Generator[GameStreamMessage, None, bool]:
        nonlocal loaded
        woken = subscription.taken()
        if talk is not None and talk.only_talk(game_id, subscription, woken):
            yield from talk.heard(deps, game_id, subscription, loaded, woken)
            return False  # a message or a block, not a commit: no event is read
        commits = deps.recent.after(deps.uow, deps.changes, game_id, loaded)
        for commit in commits:
            loaded = commit.loaded
            for row in commit.rows:
                yield EventMessage(feed_event(row, viewer))
            yield ViewMessage(Versioned(game_id, loaded.version, present(loaded, viewer)))
            if isinstance(viewer, SeatViewer) and loaded.state.bots[viewer.seat]:
                return True  # the seat's player left: the stream ends (reopening: 403)
        if commits:
            deps.cache.put(game_id, loaded)
        seated = talk is not None and (
            yield from talk.after(deps, game_id, subscription, loaded, woken, commits)
        )
        if seated:
            return True  # a spectator who sat down: reopened, it is the seat's stream
        if _finished(loaded):
            yield EndMessage(loaded.version)
            return True
        return False

    try:
        yield from first
        yield ViewMessage(Versioned(game_id, loaded.version, present(loaded, viewer)))
        if _finished(loaded):
            yield EndMessage(loaded.version)
            return
        yield from follow(
            subscription, keepalive, read, lambda: token_gone(deps, subscription, principal)
        )
    finally:
        unwatch()
        subscription.close()


def _finished(loaded: Loaded) -> bool:
    return public_status(loaded.state) == "finished"


def _unwatch(deps: Deps, game_id: UUID, talk: Talk | None) -> None:
    deps.recent.unwatch(game_id)
    if talk is not None:
        deps.recent_chat.unwatch(game_id)
