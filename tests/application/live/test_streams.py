"""Live delivery on the fakes: game streams show each viewer what its feed and its views
show, command by command; they resume after any event, refuse before their first message,
keep alive and end at shutdown; long-polls wake on a commit or answer at the deadline;
a player's stream follows the player's own entries only.

Nothing here asserts how fast: a commit publishes to the hub before the test reads the
stream, so reading does not block; other threads are awaited with deadlines and joined.
"""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from types import TracebackType
from typing import Any, Generic, Self, TypeVar, cast
from uuid import UUID, uuid4

import pytest

from service.adapters.dealing.dealer import ShufflingDealer
from service.application.commands import CreatePlayer, JoinSeat, Leave, PassCards, PlayCard
from service.application.deps import Deps
from service.application.errors import (
    ForbiddenError,
    GameNotFoundError,
    InvalidInputError,
    SeatLeftError,
    UnauthenticatedError,
)
from service.application.games.ports import InboxEntry
from service.application.games.queries.feeds import feed_event
from service.application.games.queries.views import operator_state, public_view_at, seat_view_at
from service.application.identity.bearer import token_digest
from service.application.identity.principals import (
    Anonymous,
    BadToken,
    Operator,
    PlayerHolder,
    Principal,
    SeatHolder,
)
from service.application.live import longpolls, player_stream, streams
from service.application.live.hub import Subscription, game_key
from service.application.live.longpolls import feed, my_games
from service.application.live.recent import KEEP, RecentCommits
from service.application.live.streams import (
    EndMessage,
    EventMessage,
    GameMessage,
    GameStreamMessage,
    InboxMessage,
    KeepAlive,
    PlayerStreamMessage,
    Stream,
    ViewMessage,
)
from service.application.ports import StoreUnavailableError, UnitOfWorkFactory
from service.application.results import (
    Acted,
    FeedEvent,
    InboxPage,
    InboxUnchanged,
    PlayerCreated,
    Versioned,
)
from service.bots.moves import PassMove
from service.bots.random_bot import random_move
from service.rules import (
    OPERATOR,
    PUBLIC,
    GameConfig,
    PublicView,
    Scoring,
    SeatViewer,
    Variant,
    Viewer,
)
from tests.application.fakes import Database, FakeUnitOfWork, FixedClock, ScriptedDealer
from tests.application.table import ANYONE, Game, Table, ordered_deal

T = TypeVar("T")

LIVE = 30.0
"""A keep-alive interval no drain reaches: a commit has already woken the stream, so a
keep-alive where a command's messages were due is a failure, not a pause."""
DEADLINE = 10.0
"""How long a test waits for another thread before it fails."""
EVERYTHING = 1_000_000
"""A feed page that holds a whole game."""

GAMES = [
    pytest.param(4, Variant.STANDARD, 1, id="4-players-seed-1"),
    pytest.param(4, Variant.STANDARD, 2, id="4-players-seed-2"),
    pytest.param(4, Variant.STANDARD, 6, id="4-players-seed-6"),
    pytest.param(3, Variant.STANDARD, 3, id="3-players-seed-3"),
    pytest.param(3, Variant.STANDARD, 7, id="3-players-seed-7"),
    pytest.param(4, Variant.SEVEN_FOLLOWERS, 5, id="seven-followers-seed-5"),
    pytest.param(4, Variant.SEVEN_FOLLOWERS_SHORT, 4, id="seven-followers-short-seed-4"),
]


# --- a table that deals shuffled rounds, and random players -----------------------------


@pytest.fixture
def shuffled(deps: Deps, db: Database, clock: FixedClock) -> Table:
    """A table whose dealer shuffles each round from the game's seed."""
    return Table(replace(deps, dealer=ShufflingDealer()), db, clock, ScriptedDealer())


def create(table: Table, players: int, variant: Variant, seed: int) -> UUID:
    return table.create(players, by=Operator(), seed=seed, variant=variant)


def join(table: Table, game_id: UUID, seat: int) -> tuple[SeatHolder, int]:
    """Take a seat as a client does; the seat's principal and the version it left."""
    joined = table.join(game_id, seat)
    holder = table.deps.identity.identify(joined.token)
    assert isinstance(holder, SeatHolder)
    return holder, joined.version


def random_step(table: Table, game: Game, rng: random.Random) -> int | None:
    """One random seat that must act makes a random legal move; the version it left
    (None when the game is over)."""
    views = [table.view(game, seat) for seat in range(len(game.seats))]
    due = [v for v in views if v.action is not None]
    if not due:
        assert views[0].status == "finished"
        return None
    view = rng.choice(due)
    move = random_move(view, rng)
    assert move is not None
    command = (
        PassCards(game.id, move.cards)
        if isinstance(move, PassMove)
        else PlayCard(game.id, move.card)
    )
    table.clock.advance()
    acted = table.run(command, game.seats[view.seat])
    assert isinstance(acted, Acted)
    return acted.version


def random_game(table: Table, players: int, variant: Variant, seed: int) -> Game:
    """A game with every seat joined, its round 1 dealt."""
    game_id = create(table, players, variant, seed)
    seats = tuple(join(table, game_id, seat)[0] for seat in range(players))
    return Game(game_id, seats, ())


def play_to_end(table: Table, game: Game, rng: random.Random) -> None:
    while random_step(table, game, rng) is not None:
        pass


# --- what each viewer may see ---------------------------------------------------------


def strings(data: Any) -> set[str]:
    """Every string anywhere in some data."""
    if isinstance(data, str):
        return {data}
    if isinstance(data, dict):
        return set().union(*(strings(v) for v in data.values()))
    if isinstance(data, list | tuple):
        return set().union(*(strings(v) for v in data))
    if hasattr(data, "__dataclass_fields__"):
        return set().union(*(strings(getattr(data, f)) for f in data.__dataclass_fields__))
    return set()


def leaks(event: FeedEvent, viewer: Viewer) -> list[str]:
    """What of the event's data the viewer must not see: other seats' hands, passes it
    neither gave nor received, the seed and preset deals. Empty for an operator."""
    if viewer == OPERATOR:
        return []
    seat = viewer.seat if isinstance(viewer, SeatViewer) else None
    data = event.data
    found = []
    if event.type == "RoundDealt":
        for i, hand in enumerate(data["hands"]):
            if (hand is None) == (i == seat):
                found.append(f"hand {i} of round {data['number']}: {hand}")
    elif event.type == "CardsPassed":
        if (data["cards"] is None) == (data["seat"] == seat):
            found.append(f"the pass of seat {data['seat']}: {data['cards']}")
    elif event.type == "PassesExchanged":
        for p in data["passes"]:
            if (p["card"] is None) == (seat in (p["from"], p["to"])):
                found.append(f"the card from {p['from']} to {p['to']}: {p['card']}")
    elif event.type == "GameCreated" and (data["seed"] is not None or data["deals"] is not None):
        found.append(f"the seed {data['seed']} or deals {data['deals']}")
    return found


def this_round(view: PublicView) -> set[str]:
    """The strings of a view but those of past rounds' results (whose cards are dealt
    again)."""
    return strings(replace(view, rounds=()))


def hidden_cards(deps: Deps, game_id: UUID, version: int, viewer: Viewer) -> set[str]:
    """The cards in hands the viewer may not see at ``version``: every hand for the
    public, other seats' hands but the cards it gave them for a seat."""
    state = operator_state(deps, game_id, Operator(), at=version).view
    if viewer == OPERATOR:
        return set()
    seat = viewer.seat if isinstance(viewer, SeatViewer) else None
    hidden = set().union(*(set(h) for s, h in enumerate(state.hands) if s != seat))
    if seat is not None:
        given = state.passes[seat] if state.passes else None
        hidden -= set(given.given) if given is not None else set()
    return hidden


# --- watching a game's stream ---------------------------------------------------------


@dataclass
class Watcher:
    """One viewer's open stream of a game, and what it has shown."""

    name: str
    principal: Principal
    viewer: Viewer
    stream: Stream[GameStreamMessage]
    opened: int  # the version the stream was opened at
    seen: int  # the version of its last view
    events: list[FeedEvent] = field(default_factory=list)

    def drain(self, version: int) -> list[GameStreamMessage]:
        """The messages up to the first view: a commit woke the stream, so they are there."""
        chunk: list[GameStreamMessage] = []
        while not chunk or not isinstance(chunk[-1], ViewMessage):
            message = next(self.stream)
            assert not isinstance(message, KeepAlive | EndMessage), (
                f"{self.name}: {message} where the messages up to version {version} were due"
            )
            chunk.append(message)
        return chunk


def open_watcher(
    deps: Deps, game_id: UUID, name: str, principal: Principal, viewer: Viewer, version: int
) -> Watcher:
    """A viewer's stream opened at ``version``: its first message is the view then."""
    stream = streams.game_stream(deps, game_id, principal, None, LIVE)
    watcher = Watcher(name, principal, viewer, stream, version, version)
    (first,) = watcher.drain(version)
    assert first == ViewMessage(expected_view(deps, game_id, principal, viewer, version))
    return watcher


def expected_view(
    deps: Deps, game_id: UUID, principal: Principal, viewer: Viewer, version: int
) -> Versioned[Any]:
    """The viewer's view at ``version`` as the view queries give it."""
    if viewer == PUBLIC:
        return public_view_at(deps, game_id, version)
    if viewer == OPERATOR:
        return operator_state(deps, game_id, principal, at=version)
    return seat_view_at(deps, game_id, principal, version)


def check_command(deps: Deps, game_id: UUID, watcher: Watcher, version: int) -> None:
    """After a command that left ``version``: its events in seq order, then exactly one
    view, at that version, equal to the view queries'; nothing hidden from the viewer."""
    chunk = watcher.drain(version)
    *events, view = chunk
    assert all(isinstance(m, EventMessage) for m in events), f"{watcher.name}: {chunk}"
    seqs = [m.event.seq for m in events if isinstance(m, EventMessage)]
    assert seqs == list(range(watcher.seen + 1, version + 1)), watcher.name
    expected = expected_view(deps, game_id, watcher.principal, watcher.viewer, version)
    assert view == ViewMessage(expected), watcher.name
    hidden = hidden_cards(deps, game_id, version, watcher.viewer)
    assert not this_round(expected.view) & hidden, watcher.name
    for m in events:
        assert isinstance(m, EventMessage)
        assert not leaks(m.event, watcher.viewer), (watcher.name, m.event)
        watcher.events.append(m.event)
    watcher.seen = version


def expected_events(deps: Deps, db: Database, game_id: UUID, watcher: Watcher) -> list[FeedEvent]:
    """The events after the stream's opening as the viewer's feed gives them (the
    public has no feed: the stored events redacted for the public)."""
    if watcher.viewer == PUBLIC:
        return [feed_event(row, PUBLIC) for row in db.stream(game_id) if row.seq > watcher.opened]
    return feed(deps, game_id, watcher.principal, after=watcher.opened, limit=EVERYTHING).events


@pytest.mark.parametrize(("players", "variant", "seed"), GAMES)
def test_every_viewer_sees_each_command_as_its_feed_and_views_show_it(
    shuffled: Table, players: int, variant: Variant, seed: int
) -> None:
    """A whole random game: each stream shows, after each command, the command's events
    as the viewer's feed shows them and one view at the new version; then ``end``."""
    deps, db = shuffled.deps, shuffled.db
    rng = random.Random(seed)
    game_id = create(shuffled, players, variant, seed)
    watchers = [
        open_watcher(deps, game_id, "public", ANYONE, PUBLIC, 1),
        open_watcher(deps, game_id, "operator", Operator(), OPERATOR, 1),
    ]
    seats = []
    for seat in range(players):
        holder, version = join(shuffled, game_id, seat)
        seats.append(holder)
        for watcher in watchers:
            check_command(deps, game_id, watcher, version)
        viewer = SeatViewer(seat)
        watchers.append(open_watcher(deps, game_id, f"seat {seat}", holder, viewer, version))
    game = Game(game_id, tuple(seats), ())
    assert shuffled.public(game_id).status == "passing"

    while (step := random_step(shuffled, game, rng)) is not None:
        for watcher in watchers:
            check_command(deps, game_id, watcher, step)

    final = shuffled.version(game_id)
    for watcher in watchers:
        assert watcher.seen == final
        assert next(watcher.stream) == EndMessage(final), watcher.name
        with pytest.raises(StopIteration):
            next(watcher.stream)
        assert watcher.events == expected_events(deps, db, game_id, watcher), watcher.name
    assert deps.changes.waiters() == 0


@pytest.mark.parametrize(("players", "variant", "seed"), GAMES[:1] + GAMES[3:4] + GAMES[-1:])
def test_streams_from_the_first_event_show_no_hidden_card_but_to_the_operator(
    shuffled: Table, players: int, variant: Variant, seed: int
) -> None:
    """Streams resumed after event 0 (so from ``GameCreated``, with its seed): the public's
    and each seat's events and views carry no card a seat holds unseen by that viewer, no
    pass it neither gave nor received, no seed; the operator's carry them all."""
    deps = shuffled.deps
    game = random_game(shuffled, players, variant, seed)
    rng = random.Random(seed)
    viewers: list[tuple[Principal, Viewer]] = [(ANYONE, PUBLIC), (Operator(), OPERATOR)]
    viewers += [(holder, SeatViewer(seat)) for seat, holder in enumerate(game.seats)]
    opened = [(streams.game_stream(deps, game.id, p, 0, LIVE), v) for p, v in viewers]
    operator_saw: set[str] = set()
    version = shuffled.version(game.id)
    while True:
        for stream, viewer in opened:
            hidden = hidden_cards(deps, game.id, version, viewer)
            while not isinstance(message := next(stream), ViewMessage):
                assert isinstance(message, EventMessage)
                assert not leaks(message.event, viewer), (viewer, message.event)
                if viewer == OPERATOR:
                    operator_saw |= strings(message.event.data)
            assert message.view.version == version
            assert not this_round(message.view.view) & hidden, (viewer, version)
            if isinstance(viewer, SeatViewer):
                assert message.view.view.seat == viewer.seat
        step = random_step(shuffled, game, rng)
        if step is None:
            break
        version = step
    for stream, _ in opened:
        assert next(stream) == EndMessage(version)
        stream.close()
    assert deps.changes.waiters() == 0
    deck = GameConfig(players, Scoring.BASIC, variant).deck
    assert {c.id for c in deck} <= operator_saw  # every card dealt, as the operator sees it


# --- resuming -------------------------------------------------------------------------


def viewers_of(game: Game) -> list[tuple[Principal, Viewer]]:
    return [(ANYONE, PUBLIC), (game.seats[1], SeatViewer(1)), (Operator(), OPERATOR)]


def all_events(deps: Deps, db: Database, game_id: UUID, principal: Principal) -> list[FeedEvent]:
    if isinstance(principal, Anonymous):
        return [feed_event(row, PUBLIC) for row in db.stream(game_id)]
    return feed(deps, game_id, principal, after=0, limit=EVERYTHING).events


@pytest.mark.parametrize("finished", [True, False], ids=["finished", "unfinished"])
def test_a_stream_resumed_after_any_event_gives_the_rest_then_the_view(
    shuffled: Table, finished: bool
) -> None:
    """After event N: the events N+1.. as the feed gives them, one view at the version,
    ``end`` if the game is over; nothing is left subscribed."""
    deps, db = shuffled.deps, shuffled.db
    rng = random.Random(11)
    game = random_game(shuffled, 3, Variant.STANDARD, 11)
    if finished:
        play_to_end(shuffled, game, rng)
    else:
        for _ in range(40):
            random_step(shuffled, game, rng)
    version = shuffled.version(game.id)
    assert (shuffled.public(game.id).status == "finished") is finished

    for principal, viewer in viewers_of(game):
        events = all_events(deps, db, game.id, principal)
        assert [e.seq for e in events] == list(range(1, version + 1))
        view = ViewMessage(expected_view(deps, game.id, principal, viewer, version))
        tail: list[GameStreamMessage] = [EndMessage(version)] if finished else []
        for after in range(version + 1):
            stream = streams.game_stream(deps, game.id, principal, after, LIVE)
            due = [EventMessage(e) for e in events[after:]] + [view, *tail]
            got = list(itertools.islice(stream, len(due)))
            assert got == due, (viewer, after)
            if finished:
                with pytest.raises(StopIteration):
                    next(stream)
            stream.close()
            assert deps.changes.waiters() == 0


def test_resuming_after_an_event_not_yet_written_is_refused(shuffled: Table) -> None:
    """``after`` past the game's version: 422 ``after_out_of_range``, nothing subscribed."""
    game = random_game(shuffled, 4, Variant.STANDARD, 1)
    version = shuffled.version(game.id)
    for principal, _ in viewers_of(game):
        for after in (version + 1, version + 100):
            with pytest.raises(InvalidInputError) as refused:
                streams.game_stream(shuffled.deps, game.id, principal, after, LIVE)
            assert refused.value.code == "after_out_of_range"
            assert shuffled.deps.changes.waiters() == 0


# --- wake-ups -------------------------------------------------------------------------


def test_commits_behind_one_wake_up_come_command_by_command(table: Table, game: Game) -> None:
    """Three commands before the stream is read again: each one's events, then its view."""
    deps = table.deps
    stream = streams.game_stream(deps, game.id, game.seats[3], None, LIVE)
    start = table.version(game.id)
    assert next(stream) == ViewMessage(seat_view_at(deps, game.id, game.seats[3], start))
    versions = [table.pass_first_three(game, seat).version for seat in (0, 1, 2)]

    due: list[GameStreamMessage] = []
    events = feed(deps, game.id, game.seats[3], after=start, limit=EVERYTHING).events
    for before, version in itertools.pairwise([start, *versions]):
        due += [EventMessage(e) for e in events if before < e.seq <= version]
        due.append(ViewMessage(seat_view_at(deps, game.id, game.seats[3], version)))
    assert list(itertools.islice(stream, len(due))) == due
    stream.close()


def test_a_wake_up_without_a_commit_sends_nothing(table: Table, game: Game) -> None:
    """The hub woke the stream (a notification of nothing new, the listener reconnected):
    it looks at the store, finds nothing, and only keeps alive."""
    deps = table.deps
    stream = streams.game_stream(deps, game.id, ANYONE, None, keepalive=0.01)
    assert isinstance(next(stream), ViewMessage)
    deps.changes.publish(game_key(game.id))
    assert next(stream) == KeepAlive()
    deps.changes.publish_all()
    assert next(stream) == KeepAlive()

    before = table.version(game.id)
    version = table.pass_first_three(game, 1).version
    *events, view = list(itertools.islice(stream, version - before + 1))
    assert [m.event.seq for m in events if isinstance(m, EventMessage)] == list(
        range(before + 1, version + 1)
    )
    assert view == ViewMessage(public_view_at(deps, game.id, version))
    stream.close()


def test_a_seats_stream_ends_when_its_player_leaves_and_is_refused_then(
    table: Table, game: Game
) -> None:
    """The leave's events and view reach the seat; then the stream ends (the bot's hands
    are not the player's to see), and opening it again is refused (403 seat_left)."""
    deps = table.deps
    stream = streams.game_stream(deps, game.id, game.seats[1], None, LIVE)
    assert isinstance(next(stream), ViewMessage)
    version = table.run(Leave(game.id), game.seats[1]).version  # type: ignore[union-attr]
    left = list(stream)
    assert [type(m) for m in left] == [EventMessage, ViewMessage]
    assert isinstance(left[0], EventMessage) and left[0].event.type == "SeatLeft"
    assert isinstance(left[1], ViewMessage) and left[1].view.version == version
    with pytest.raises(SeatLeftError):
        streams.game_stream(deps, game.id, game.seats[1], None, LIVE)
    assert deps.changes.waiters() == 0


# --- refusals and closing -------------------------------------------------------------


def test_a_stream_is_refused_before_its_first_message(table: Table, game: Game) -> None:
    """Unknown game 404, another game's seat 403, a bad token 401: raised when opening,
    with nothing left subscribed."""
    table.dealer.script.append(ordered_deal())
    other = table.start()
    deps = table.deps
    refusals: list[tuple[UUID, Principal, type[Exception]]] = [
        (uuid4(), ANYONE, GameNotFoundError),
        (uuid4(), Operator(), GameNotFoundError),
        (game.id, other.seats[0], ForbiddenError),
        (game.id, BadToken(), UnauthenticatedError),
    ]
    for game_id, principal, error in refusals:
        with pytest.raises(error):
            streams.game_stream(deps, game_id, principal, None, LIVE)
        assert deps.changes.waiters() == 0


def test_a_players_stream_is_refused_without_a_player_token(table: Table, game: Game) -> None:
    """Anyone or a bad token 401, an operator or a plain seat 403; nothing subscribed."""
    refusals: list[tuple[Principal, type[Exception]]] = [
        (ANYONE, UnauthenticatedError),
        (BadToken(), UnauthenticatedError),
        (Operator(), ForbiddenError),
        (game.seats[0], ForbiddenError),
    ]
    for principal, error in refusals:
        with pytest.raises(error):
            player_stream.player_stream(table.deps, principal, LIVE)
        assert table.deps.changes.waiters() == 0


def test_closing_a_stream_never_read_frees_its_subscription(table: Table, game: Game) -> None:
    mio = new_player(table)
    opened: list[Stream[Any]] = [
        streams.game_stream(table.deps, game.id, ANYONE, None, LIVE),
        streams.game_stream(table.deps, game.id, game.seats[0], 2, LIVE),
        player_stream.player_stream(table.deps, mio, LIVE),
    ]
    assert table.deps.changes.waiters() == len(opened)
    for stream in opened:
        stream.close()
    assert table.deps.changes.waiters() == 0


def test_closing_a_stream_part_read_frees_its_subscription(table: Table, game: Game) -> None:
    stream = streams.game_stream(table.deps, game.id, game.seats[2], None, LIVE)
    assert isinstance(next(stream), ViewMessage)
    stream.close()
    assert table.deps.changes.waiters() == 0
    with pytest.raises(StopIteration):
        next(stream)


# --- keep-alive and shutdown ------------------------------------------------------------


def test_a_quiet_stream_keeps_alive_and_ends_at_shutdown(table: Table, game: Game) -> None:
    deps = table.deps
    stream = streams.game_stream(deps, game.id, ANYONE, None, keepalive=0.01)
    assert isinstance(next(stream), ViewMessage)
    assert next(stream) == KeepAlive()
    assert next(stream) == KeepAlive()

    deps.changes.close()
    with pytest.raises(StopIteration):
        next(stream)
    assert deps.changes.waiters() == 0


def test_a_quiet_players_stream_keeps_alive_and_ends_at_shutdown(table: Table) -> None:
    deps = table.deps
    stream = player_stream.player_stream(deps, new_player(table), keepalive=0.01)
    assert next(stream) == InboxMessage([])
    assert next(stream) == KeepAlive()

    deps.changes.close()
    with pytest.raises(StopIteration):
        next(stream)
    assert deps.changes.waiters() == 0


@dataclass
class Waits:
    """Every subscription's waits: how many began, and an event set when one begins."""

    began: threading.Event = field(default_factory=threading.Event)
    count: int = 0


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> Waits:
    seen = Waits()
    wait = Subscription.wait

    def counted(self: Subscription, timeout: float) -> bool:
        seen.count += 1
        seen.began.set()
        return wait(self, timeout)

    monkeypatch.setattr(Subscription, "wait", counted)
    return seen


class Background(Generic[T]):
    """``run`` in a thread of its own; :meth:`result` joins it (with a deadline)."""

    def __init__(self, run: Callable[[], T]) -> None:
        self._run = run
        self._value: list[T] = []
        self._error: list[BaseException] = []
        self.thread = threading.Thread(target=self._target, daemon=True)
        self.thread.start()

    def _target(self) -> None:
        try:
            self._value.append(self._run())
        except BaseException as e:
            self._error.append(e)

    def result(self) -> T:
        self.thread.join(DEADLINE)
        assert not self.thread.is_alive(), "the thread did not finish"
        if self._error:
            raise self._error[0]
        return self._value[0]


@pytest.mark.parametrize("kind", ["game", "player"])
def test_shutdown_ends_a_stream_waiting_in_another_thread(
    table: Table, game: Game, waits: Waits, kind: str
) -> None:
    deps = table.deps
    stream: Stream[Any] = (
        streams.game_stream(deps, game.id, game.seats[0], None, LIVE)
        if kind == "game"
        else player_stream.player_stream(deps, new_player(table), LIVE)
    )
    next(stream)  # the view, or the inbox
    reader = Background(lambda: next(stream, None))
    assert waits.began.wait(DEADLINE), "the stream did not wait"

    deps.changes.close()

    assert reader.result() is None
    assert deps.changes.waiters() == 0


def test_a_stream_opened_during_shutdown_ends_after_its_view(table: Table, game: Game) -> None:
    table.deps.changes.close()
    stream = streams.game_stream(table.deps, game.id, ANYONE, None, LIVE)
    got = list(itertools.islice(stream, 3))
    assert got == [ViewMessage(public_view_at(table.deps, game.id, table.version(game.id)))]
    assert table.deps.changes.waiters() == 0


class LateWake(threading.Event):
    """A subscription's event whose next wait times out just as a commit sets it: the
    commit lands between the wait's timeout and the subscription's ``clear``, a schedule
    two OS threads (a threaded server and the listener) allow."""

    def __init__(self, commit: Callable[[], None]) -> None:
        super().__init__()
        self._commit: Callable[[], None] | None = commit

    def wait(self, timeout: float | None = None) -> bool:
        commit, self._commit = self._commit, None
        if commit is None:
            return super().wait(timeout)
        assert not super().wait(0)  # the wait timed out...
        commit()  # ...and then the commit published
        return False


@pytest.mark.parametrize("kind", ["game", "player"])
def test_a_commit_published_as_a_wait_times_out_is_still_delivered(
    table: Table, game: Game, kind: str
) -> None:
    deps = table.deps
    mio = new_player(table)
    table.run(JoinSeat(table.create(), 0, None), mio)
    stream: Stream[Any] = (
        streams.game_stream(deps, game.id, ANYONE, None, keepalive=0.01)
        if kind == "game"
        else player_stream.player_stream(deps, mio, keepalive=0.01)
    )
    next(stream)  # the view, or the inbox
    assert stream._subscription._woken.is_set() is False

    def commit() -> None:
        table.clock.advance()
        if kind == "game":
            table.pass_first_three(game, 0)
        else:
            table.join(entry.game_id, 1)

    entry = active_inbox(deps, mio).games[0]
    stream._subscription._woken = LateWake(commit)
    got = list(itertools.islice(stream, 20))  # keep-alives, then what the commit brought
    stream.close()

    if kind == "game":
        due: Any = ViewMessage(public_view_at(deps, game.id, table.version(game.id)))
    else:
        due = GameMessage(entry_of(deps, mio, entry.game_id))
    assert due in got, got


# --- long-polls -----------------------------------------------------------------------


class SerialUnitOfWork(FakeUnitOfWork):
    """A unit of work that holds its database's lock while open: the fakes are for one
    thread, so a poll and a command in two threads take turns at the database."""

    def __init__(self, db: Database, lock: threading.RLock, *, snapshot: bool) -> None:
        super().__init__(db, snapshot=snapshot)
        self._serial = lock

    def __enter__(self) -> Self:
        self._serial.acquire()
        try:
            return super().__enter__()
        except BaseException:
            self._serial.release()
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            super().__exit__(exc_type, exc, tb)
        finally:
            self._serial.release()


def serial_units(db: Database) -> UnitOfWorkFactory:
    lock = threading.RLock()

    def unit_of_work(*, snapshot: bool = False) -> SerialUnitOfWork:
        return SerialUnitOfWork(db, lock, snapshot=snapshot)

    return unit_of_work


@pytest.fixture
def serial(table: Table) -> Table:
    """The table, its units of work taking turns at the database (for two threads)."""
    return replace(table, deps=replace(table.deps, uow=serial_units(table.db)))


def pass_of(table: Table, game: Game, seat: int) -> int:
    acted = table.pass_first_three(game, seat)
    return acted.version


def test_a_long_poll_with_events_after_n_answers_without_waiting(
    serial: Table, game: Game, waits: Waits
) -> None:
    version = serial.version(game.id)
    found = feed(serial.deps, game.id, game.seats[0], after=version - 2, limit=10, wait=LIVE)
    assert [e.seq for e in found.events] == [version - 1, version]
    assert waits.count == 0
    assert serial.deps.changes.waiters() == 0


def test_a_long_poll_is_answered_by_a_commit_made_while_it_waits(
    serial: Table, game: Game, waits: Waits
) -> None:
    deps = serial.deps
    version = serial.version(game.id)
    poll = Background(
        lambda: feed(deps, game.id, game.seats[1], after=version, limit=10, wait=LIVE)
    )
    assert waits.began.wait(DEADLINE), "the long-poll did not wait"

    acted = pass_of(serial, game, 3)

    found = poll.result()
    assert found.events == feed(deps, game.id, game.seats[1], after=version, limit=10).events
    assert [e.seq for e in found.events] == list(range(version + 1, acted + 1))
    assert found.version == acted
    assert deps.changes.waiters() == 0


def test_a_long_poll_without_events_answers_none_when_its_time_is_up(
    serial: Table, game: Game, waits: Waits
) -> None:
    version = serial.version(game.id)
    found = feed(serial.deps, game.id, game.seats[0], after=version, limit=10, wait=0.05)
    assert (found.events, found.version, found.next_after) == ([], version, None)
    assert waits.count >= 1
    assert serial.deps.changes.waiters() == 0


def new_player(table: Table, name: str = "Mio") -> PlayerHolder:
    created = table.run(CreatePlayer(name))
    assert isinstance(created, PlayerCreated)
    return PlayerHolder(created.player_id, token_digest(created.token))


def active_inbox(
    deps: Deps, player: PlayerHolder, limit: int = player_stream.INBOX_LIMIT
) -> InboxPage:
    page = my_games(deps, player, "active", None, limit)
    assert isinstance(page, InboxPage)
    return page


def test_an_inbox_long_poll_answers_at_once_when_it_changed(serial: Table, waits: Waits) -> None:
    mio = new_player(serial)
    serial.run(JoinSeat(serial.create(), 0, None), mio)
    page = active_inbox(serial.deps, mio, 10)
    found = my_games(serial.deps, mio, "active", None, 10, unless=frozenset({"old"}), wait=LIVE)
    assert found == page
    assert waits.count == 0


def test_an_inbox_long_poll_is_answered_by_a_change_made_while_it_waits(
    serial: Table, waits: Waits
) -> None:
    deps = serial.deps
    mio = new_player(serial)
    game_id = serial.create(3)
    serial.dealer.script.append(ordered_deal(3))
    serial.run(JoinSeat(game_id, 0, None), mio)
    serial.join(game_id, 1)
    before = active_inbox(deps, mio, 10)
    unless = frozenset({before.etag})
    poll = Background(lambda: my_games(deps, mio, "active", None, 10, unless=unless, wait=LIVE))
    assert waits.began.wait(DEADLINE), "the long-poll did not wait"

    serial.clock.advance()
    serial.join(game_id, 2)  # the last seat: round 1 is dealt, mio must pass

    found = poll.result()
    assert isinstance(found, InboxPage)
    assert found == my_games(deps, mio, "active", None, 10)
    assert found.etag != before.etag
    (entry,) = found.games
    assert (entry.game_id, entry.status, entry.my_turn) == (game_id, "passing", True)
    assert deps.changes.waiters() == 0


def test_an_unchanged_inbox_long_poll_answers_unchanged_when_its_time_is_up(
    serial: Table, waits: Waits
) -> None:
    mio = new_player(serial)
    serial.run(JoinSeat(serial.create(), 2, None), mio)
    tag = active_inbox(serial.deps, mio, 10).etag
    found = my_games(serial.deps, mio, "active", None, 10, unless=frozenset({tag}), wait=0.05)
    assert found == InboxUnchanged(tag)
    assert waits.count >= 1
    assert serial.deps.changes.waiters() == 0


# --- a player's stream ----------------------------------------------------------------


def entry_of(deps: Deps, player: PlayerHolder, game_id: UUID) -> InboxEntry:
    page = my_games(deps, player, "all", None, player_stream.INBOX_LIMIT)
    assert isinstance(page, InboxPage)
    (found,) = [e for e in page.games if e.game_id == game_id]
    return found


def quiet(stream: Stream[PlayerStreamMessage]) -> list[PlayerStreamMessage]:
    """The messages before the next keep-alive (the stream's keep-alive is short)."""
    return list(itertools.takewhile(lambda m: m != KeepAlive(), stream))


def test_a_players_stream_gives_the_inbox_then_each_change_of_the_players_games(
    shuffled: Table,
) -> None:
    """First the active inbox in inbox order (no finished game); then, for each command in
    a game of the player's (or a game joined), exactly the player's changed entry; nothing
    of games or entries not theirs."""
    deps = shuffled.deps
    mio, kai = new_player(shuffled, "Mio"), new_player(shuffled, "Kai")
    waiting = create(shuffled, 4, Variant.STANDARD, 21)
    shuffled.run(JoinSeat(waiting, 2, None), mio)
    shuffled.run(JoinSeat(waiting, 0, None), kai)
    playing = create(shuffled, 3, Variant.STANDARD, 22)
    shuffled.run(JoinSeat(playing, 0, None), kai)
    shuffled.run(JoinSeat(playing, 1, None), mio)
    third, _ = join(shuffled, playing, 2)  # round 1 is dealt: every seat must pass
    theirs = create(shuffled, 3, Variant.STANDARD, 23)
    shuffled.run(JoinSeat(theirs, 1, None), kai)
    done = create(shuffled, 3, Variant.STANDARD, 24)
    shuffled.run(JoinSeat(done, 0, None), mio)
    others = [join(shuffled, done, seat)[0] for seat in (1, 2)]
    mine = deps.identity.in_game(mio, done)
    assert isinstance(mine, SeatHolder)
    play_to_end(shuffled, Game(done, (mine, *others), ()), random.Random(24))
    assert entry_of(deps, mio, done).status == "finished"

    stream = player_stream.player_stream(deps, mio, keepalive=0.01)
    first = next(stream)
    assert first == InboxMessage(active_inbox(deps, mio).games)
    assert isinstance(first, InboxMessage)
    assert [e.game_id for e in first.games] == [playing, waiting]  # mio's turn first
    assert quiet(stream) == []

    shuffled.clock.advance()
    shuffled.join(theirs, 0)  # a game of Kai's alone
    assert quiet(stream) == []

    shuffled.clock.advance()
    shuffled.join(waiting, 1)  # Kai's entry changes too
    assert quiet(stream) == [GameMessage(entry_of(deps, mio, waiting))]

    shuffled.clock.advance()
    shuffled.run(JoinSeat(theirs, 2, None), mio)  # a new entry; Kai's changes too
    assert quiet(stream) == [GameMessage(entry_of(deps, mio, theirs))]

    seats = [deps.identity.in_game(kai, playing), deps.identity.in_game(mio, playing), third]
    assert all(isinstance(s, SeatHolder) for s in seats)
    game = Game(playing, tuple(s for s in seats if isinstance(s, SeatHolder)), ())
    rng = random.Random(5)
    seen = []
    while True:
        before = entry_of(deps, mio, playing)
        if random_step(shuffled, game, rng) is None:
            break
        now = entry_of(deps, mio, playing)
        assert now != before
        assert next(stream) == GameMessage(now)
        seen.append(now)
    assert quiet(stream) == []
    assert seen[-1].status == "finished"
    assert {e.player_id for e in seen} == {mio.player_id}
    stream.close()
    assert deps.changes.waiters() == 0


def test_a_stream_whose_store_goes_away_ends_and_resumes_without_a_gap(
    table: Table, game: Game
) -> None:
    """The store cannot be reached when a commit wakes the stream (a database restart):
    the stream ends, and its client's reconnect with the last id it got misses nothing."""
    deps = table.deps
    down = False

    def units(*, snapshot: bool = False) -> FakeUnitOfWork:
        if down:
            raise StoreUnavailableError("the server restarts")
        return table.db.unit_of_work(snapshot=snapshot)

    flaky = replace(deps, uow=units)
    stream = streams.game_stream(flaky, game.id, game.seats[0], None, keepalive=0.01)
    first = next(stream)
    assert isinstance(first, ViewMessage)
    # Another process's command (this one holds no copy of it): it must be read.
    table.deps = replace(deps, recent=RecentCommits())
    version = table.pass_first_three(game, 2).version
    down = True
    assert list(stream) == []  # woken, cannot read: ends
    assert deps.changes.waiters() == 0
    down = False
    resumed = streams.game_stream(flaky, game.id, game.seats[0], first.view.version)
    *events, view = list(itertools.islice(resumed, version - first.view.version + 1))
    assert [m.event.seq for m in events if isinstance(m, EventMessage)] == list(
        range(first.view.version + 1, version + 1)
    )
    assert view == ViewMessage(seat_view_at(deps, game.id, game.seats[0], version))
    resumed.close()


def _until_view(stream: Stream[GameStreamMessage], version: int) -> list[GameStreamMessage]:
    got: list[GameStreamMessage] = []
    for message in stream:
        got.append(message)
        if isinstance(message, ViewMessage) and message.view.version == version:
            return got
    raise AssertionError(f"the stream ended before version {version}")


def test_more_commits_than_are_kept_missed_by_the_listener_all_arrive(
    table: Table, game: Game
) -> None:
    """The listener is down while another process commits more than KEEP commands; when
    it listens again (publish_all) the stream gets every event, none skipped."""
    deps = table.deps
    stream = streams.game_stream(deps, game.id, ANYONE, None)
    first = next(stream)
    assert isinstance(first, ViewMessage)
    start = first.view.version
    table.deps = replace(deps, recent=RecentCommits())  # commands of another process
    hub, table.db.hub = table.db.hub, None  # nobody hears them
    version = start
    for seat in range(4):
        version = table.pass_first_three(game, seat).version
    for _ in range(KEEP):
        version = table.play_turn(game).version
    table.db.hub = hub
    deps.changes.publish_all()  # the listener listens again
    got = _until_view(stream, version)
    stream.close()
    seqs = [m.event.seq for m in got if isinstance(m, EventMessage)]
    assert seqs == list(range(start + 1, version + 1))


def test_a_change_made_while_a_players_stream_opens_is_not_lost(shuffled: Table) -> None:
    """The stream's inbox page and the entries it watches come from one snapshot: a
    commit between the two reads shows in the first message or in a later one."""
    base = shuffled.deps
    mio = new_player(shuffled, "Mio")
    waiting = create(shuffled, 4, Variant.STANDARD, 21)
    shuffled.run(JoinSeat(waiting, 2, None), mio)
    done = False

    def units(*, snapshot: bool = False) -> Any:
        unit = shuffled.db.unit_of_work(snapshot=snapshot)
        page = unit.inbox.page

        def racing(*args: Any, **kwargs: Any) -> Any:
            nonlocal done
            rows = page(*args, **kwargs)
            if not done:  # another seat joins between the two reads
                done = True
                shuffled.clock.advance()
                shuffled.join(waiting, 1)
            return rows

        unit.inbox.page = racing  # type: ignore[method-assign]
        return unit

    stream = player_stream.player_stream(replace(base, uow=units), mio, keepalive=0.01)
    seen: dict[UUID, InboxEntry] = {}
    for message in stream:
        if isinstance(message, InboxMessage):
            seen.update({e.game_id: e for e in message.games})
        elif isinstance(message, GameMessage):
            seen[message.entry.game_id] = message.entry
        elif isinstance(message, KeepAlive):
            break
    stream.close()
    assert seen[waiting] == entry_of(base, mio, waiting)


def test_a_commit_nobody_heard_while_a_stream_opened_comes_at_the_next_wake_up(
    table: Table, game: Game
) -> None:
    """The listener reconnects (publish_all) just after the stream's read: the commit
    made while nobody listened is read at that wake-up, not left until the next commit
    (another waiter of the game keeps an announced version)."""
    deps = table.deps
    version = table.pass_first_three(game, 0).version
    other = deps.changes.subscribe(game_key(game.id))  # a long-poll that heard it
    deps.changes.publish(game_key(game.id), version)
    table.deps = replace(deps, recent=RecentCommits())  # commands of another process
    lost: list[int] = []

    @contextmanager
    def units(*, snapshot: bool = False) -> Iterator[Any]:
        with table.db.unit_of_work(snapshot=snapshot) as unit:
            yield unit
        if not lost:  # after the stream's first read, before it watches the game
            hub, table.db.hub = table.db.hub, None
            lost.append(table.pass_first_three(game, 1).version)
            table.db.hub = hub
            deps.changes.publish_all()

    stream = streams.game_stream(
        replace(deps, uow=cast("UnitOfWorkFactory", units)), game.id, ANYONE, None, keepalive=0.05
    )
    first = next(stream)
    assert isinstance(first, ViewMessage) and first.view.version == version
    second = next(stream)
    stream.close()
    other.close()
    assert isinstance(second, EventMessage) and second.event.seq == lost[0], second


# --- a deaf hub (the bus is away: service/adapters/bus.py) ---------------------------------


def test_a_stream_whose_hub_is_deaf_reads_the_store_on_a_timer(
    table: Table, game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While nothing can announce a commit, a stream still gets it: it looks at the store
    every DEAF_POLL seconds instead of waiting to be woken."""
    deps = table.deps
    monkeypatch.setattr(streams, "DEAF_POLL", 0.01)
    monkeypatch.setattr(deps.changes, "publish", lambda key, version=None: None)  # unheard
    deps.changes.deaf = True
    stream = streams.game_stream(deps, game.id, ANYONE, None, keepalive=LIVE)
    first = next(stream)
    assert isinstance(first, ViewMessage)

    acted = pass_of(table, game, 0)

    got = Background(lambda: list(itertools.islice(stream, acted - first.view.version + 1)))
    messages = got.result()
    assert [m.event.seq for m in messages if isinstance(m, EventMessage)] == list(
        range(first.view.version + 1, acted + 1)
    )
    assert isinstance(messages[-1], ViewMessage) and messages[-1].view.version == acted
    stream.close()


def test_a_long_poll_whose_hub_is_deaf_reads_the_store_on_a_timer(
    serial: Table, game: Game, waits: Waits, monkeypatch: pytest.MonkeyPatch
) -> None:
    deps = serial.deps
    monkeypatch.setattr(longpolls, "DEAF_POLL", 0.01)
    monkeypatch.setattr(deps.changes, "publish", lambda key, version=None: None)  # unheard
    deps.changes.deaf = True
    version = serial.version(game.id)
    poll = Background(
        lambda: feed(deps, game.id, game.seats[1], after=version, limit=10, wait=LIVE)
    )
    assert waits.began.wait(DEADLINE), "the long-poll did not wait"

    acted = pass_of(serial, game, 3)

    found = poll.result()
    assert [e.seq for e in found.events] == list(range(version + 1, acted + 1))
