"""Live delivery over real sockets: game and player streams (SSE), long-polls, and the
fan-out of commits between processes through PostgreSQL's LISTEN/NOTIFY.

Each "process" is an app on a container of its own (its own pool, state cache, hub and
listening connection), as a gunicorn worker or another instance has; streams are read
over a socket from a server thread. Nothing here asserts how fast: each read waits for a
message with a deadline (the socket's timeout) and asserts what arrives.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from uuid import UUID

import pytest

from service.adapters.postgres.events import SqlEventStore
from service.application.live.hub import Hub
from service.application.ports import StoredEvent
from tests.support.api import OPERATOR, Api, Game, bearer
from tests.support.postgres import AppUnderTest, MakeApp
from tests.support.sse import Message, SseStream, served


@pytest.fixture
def two(make_app: MakeApp) -> Iterator[tuple[AppUnderTest, str, Api]]:
    """A process serving streams on a socket, and another process's API for commands."""
    streaming = make_app(keepalive_seconds=1)
    commands = make_app()
    with served(streaming.flask) as host:
        yield streaming, host, commands.api()


def _await(check: Callable[[], bool], what: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def _listening(app: AppUnderTest) -> None:
    listener = app.container.listener
    assert listener.listening.wait(10), "the listener did not connect"


def _drain_command(stream: SseStream, version: int) -> list[Message]:
    return stream.until("view", version)


def test_streams_show_each_viewer_its_feed_and_views_across_processes(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    """A whole random game played through one process; streams on the other show every
    viewer the events of its /events feed and, after each command, its view."""
    streaming, host, api = two
    game = api.start(4, scoring="basic")
    version = api.public(game.id)["version"]
    viewers: dict[str, dict[str, str]] = {
        "public": {},
        "operator": OPERATOR,
        **{f"seat {s}": game.seat_headers(s) for s in range(4)},
    }
    streams = {
        name: SseStream(host, f"/v1/games/{game.id}/stream", headers)
        for name, headers in viewers.items()
    }
    try:
        for name, stream in streams.items():
            assert stream.status == 200, name
            assert stream.response.getheader("Content-Type", "").startswith("text/event-stream")
            first = stream.next()
            assert first is not None
            assert (first.event, first.id) == ("view", version)
        _listening(streaming)
        received: dict[str, list[Message]] = {name: [] for name in streams}
        rng = random.Random(11)
        commands = 0
        for _ in api.play_out(game, rng):
            commands += 1
            now = api.public(game.id)
            for name, stream in streams.items():
                got = _drain_command(stream, now["version"])
                received[name].extend(got)
                view = got[-1].data
                if name == "public":
                    assert view == now
                elif name == "operator":
                    assert view == api.state(game.id, now["version"])
                else:
                    assert view == api.view(game, int(name.split()[1]))
                # One command: its events in seq order, then one view.
                seqs = [m.id for m in got[:-1]]
                assert all(m.event == "game_event" for m in got[:-1])
                assert seqs == list(range(version + 1, now["version"] + 1))
            version = now["version"]
        # The whole game went by: basic scoring ends at two points, so two
        # rounds at least, each with four passes and a trick (a round's length varies).
        assert api.public(game.id)["status"] == "finished" and commands >= 16
        for name, stream in streams.items():
            end = stream.next()
            assert end is not None and (end.event, end.data) == ("end", {"version": version})
            assert stream.next() is None  # the server closes it
            events = [m.data for m in received[name] if m.event == "game_event"]
            if name == "operator":
                assert events == api.feed(game, None, 0)[-len(events) :]
            elif name.startswith("seat"):
                assert events == api.feed(game, int(name.split()[1]), 0)[-len(events) :]
            else:
                _assert_public(events, game, api)
    finally:
        for stream in streams.values():
            stream.close()


def _assert_public(events: list[dict[str, Any]], game: Game, api: Api) -> None:
    """The public sees the operator's events with every hand and pass card hidden."""
    full = api.feed(game, None, 0)[-len(events) :]
    assert [e["seq"] for e in events] == [e["seq"] for e in full]
    for public, everything in zip(events, full, strict=True):
        data = public["data"]
        if public["type"] == "RoundDealt":
            assert all(hand is None for hand in data["hands"])
        elif public["type"] == "CardsPassed":
            assert data["cards"] is None
        elif public["type"] == "PassesExchanged":
            assert all(p["card"] is None for p in data["passes"])
        else:
            assert public == everything


def test_resuming_with_last_event_id_gives_exactly_what_was_missed(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    _, host, api = two
    game = api.start(4, scoring="basic")
    rng = random.Random(5)
    for _ in range(12):
        api.act_randomly(game, rng)
    version = api.public(game.id)["version"]
    feed = api.feed(game, 2, 0)
    for after in (0, 3, version - 1, version):
        for headers in (
            {"Last-Event-ID": str(after)},
            {},  # the same with ?after=
        ):
            path = f"/v1/games/{game.id}/stream" + ("" if headers else f"?after={after}")
            with SseStream(host, path, {**game.seat_headers(2), **headers}) as stream:
                got = stream.until("view")
                assert [m.data for m in got[:-1]] == feed[after:]
                assert [m.id for m in got] == [*range(after + 1, version + 1), version]
                assert got[-1].data == api.view(game, 2)


def test_an_event_source_reconnecting_after_the_end_is_told_to_stop(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    """After `end` an EventSource reconnects with the last id it saw (the final view's
    version): 204, which stops it. `?after=` at that version still gives view and end."""
    _, host, api = two
    game = api.start(3, seed=7)
    for _ in api.play_out(game, random.Random(5)):
        pass
    version = api.public(game.id)["version"]
    path = f"/v1/games/{game.id}/stream"
    with SseStream(host, path, {"Last-Event-ID": str(version)}) as stream:
        assert stream.status == 204
    with SseStream(host, path, {"Last-Event-ID": str(version - 1)}) as stream:
        got = stream.until("end")
        assert [m.event for m in got] == ["game_event", "view", "end"]
    with SseStream(host, f"{path}?after={version}", {}) as stream:
        assert [m.event for m in stream.until("end")] == ["view", "end"]


@pytest.mark.parametrize(
    ("path", "headers", "status", "code"),
    [
        ("/v1/games/00000000-0000-0000-0000-000000000000/stream", {}, 404, "game_not_found"),
        # A game id is a UUID: anything else names no route (format: uuid in the contract).
        ("/v1/games/not-a-game/stream", {}, 404, "game_not_found"),
        ("/v1/games/00000000-0000-4000-8000-000000000000/stream", {}, 404, "game_not_found"),
        ("/v1/games/{game}/stream", bearer("not-a-token"), 401, "invalid_token"),
        ("/v1/games/{game}/stream", {"Last-Event-ID": "abc"}, 422, "invalid_last_event_id"),
        ("/v1/games/{game}/stream", {"Last-Event-ID": "999"}, 422, "after_out_of_range"),
        ("/v1/games/{game}/stream?after=-1", {}, 422, "invalid_request"),
        ("/v1/me/stream", {}, 401, "missing_token"),
    ],
)
def test_a_refused_stream_is_a_problem_before_any_stream_bytes(
    two: tuple[AppUnderTest, str, Api],
    path: str,
    headers: dict[str, str],
    status: int,
    code: str,
) -> None:
    _, host, api = two
    game = api.start(3)
    with SseStream(host, path.format(game=game.id), headers) as stream:
        assert stream.status == status
        assert stream.response.getheader("Content-Type") == "application/problem+json"
        assert stream.problem()["code"] == code


def test_another_games_seat_token_is_forbidden(two: tuple[AppUnderTest, str, Api]) -> None:
    _, host, api = two
    mine, other = api.start(3), api.start(3)
    with SseStream(host, f"/v1/games/{other.id}/stream", mine.seat_headers(0)) as stream:
        assert stream.status == 403


def test_open_streams_beyond_a_tokens_limit_are_refused_and_freed_on_disconnect(
    make_app: MakeApp,
) -> None:
    app = make_app(streams_per_token=2, keepalive_seconds=1)
    api = app.api()
    game = api.start(3)
    path = f"/v1/games/{game.id}/stream"
    with served(app.flask) as host:
        first = SseStream(host, path, game.seat_headers(0))
        second = SseStream(host, path, game.seat_headers(0))
        with SseStream(host, path, game.seat_headers(0)) as third:
            assert (first.status, second.status, third.status) == (200, 200, 429)
            assert third.problem()["code"] == "too_many_streams"
            assert third.response.getheader("Retry-After")
        # Another token has places of its own.
        with SseStream(host, path, game.seat_headers(1)) as other:
            assert other.status == 200
        # A client that goes away frees its place (found at the next keep-alive write).
        first.close()
        streams = app.flask.extensions["yokai_streams"]
        _await(lambda: streams.held() == 1, "the closed stream's place to be freed")
        with SseStream(host, path, game.seat_headers(0)) as again:
            assert again.status == 200
        second.close()


def test_keep_alive_comments_while_nothing_happens(two: tuple[AppUnderTest, str, Api]) -> None:
    _, host, api = two
    game = api.start(3)
    # keepalive_seconds=1 here: comments come, and nothing else.
    with SseStream(host, f"/v1/games/{game.id}/stream") as stream:
        assert stream.until("view")
        assert stream.next_comment() == []
        assert stream.next_comment() == []
        assert stream.comments == 2


def test_a_listener_that_loses_its_connection_catches_up(
    two: tuple[AppUnderTest, str, Api], sql: Any
) -> None:
    """The listening connection is killed (as a database restart would): it reconnects,
    and what committed meanwhile reaches the stream, in order, without a gap."""
    streaming, host, api = two
    game = api.start(3)
    listener = streaming.container.listener
    with SseStream(host, f"/v1/games/{game.id}/stream", game.seat_headers(0)) as stream:
        stream.until("view")
        _listening(streaming)
        before = listener.connections
        sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE application_name = 'yokai-listener'")  # fmt: skip
        rng = random.Random(3)
        for _ in range(3):
            api.act_randomly(game, rng)
        version = api.public(game.id)["version"]
        got = stream.until("view", version)
        assert [m.id for m in got if m.event == "game_event"] == list(
            range(got[0].id or 0, version + 1)
        )
        assert listener.connections > before


def test_long_poll_on_events_wakes_on_a_commit_in_another_process(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    streaming, host, api = two
    game = api.start(3)
    version = api.public(game.id)["version"]
    path = f"/v1/games/{game.id}/events?after={version}&wait=30"
    answer: dict[str, Any] = {}

    def poll() -> None:
        conn = SseStream(host, path, game.seat_headers(1), timeout=40)
        answer["status"], answer["body"] = conn.status, conn.problem()
        conn.close()

    poller = threading.Thread(target=poll)
    poller.start()
    try:
        hub: Hub = streaming.container.deps.changes
        _await(lambda: hub.waiters() == 1, "the long-poll to wait")
        _listening(streaming)
        api.act_randomly(game, random.Random(1))
    finally:
        poller.join(timeout=40)
    assert answer["status"] == 200
    events = answer["body"]["events"]
    assert events and events == api.feed(game, 1, version)


def test_long_poll_with_nothing_new_answers_empty_when_the_wait_is_over(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    _, host, api = two
    game = api.start(3)
    version = api.public(game.id)["version"]
    with SseStream(
        host, f"/v1/games/{game.id}/events?after={version}&wait=1", game.seat_headers(0)
    ) as poll:
        assert poll.status == 200
        assert poll.problem()["events"] == []
    for wait in ("61", "-1", "x"):
        r = api.get(f"/v1/games/{game.id}/events?wait={wait}", **game.seat_headers(0))
        assert r.status_code == 422


def test_inbox_long_poll_and_player_stream(two: tuple[AppUnderTest, str, Api]) -> None:
    streaming, host, api = two
    player = api.post("/v1/players", {"name": "ann"}).get_json()
    me = bearer(player["token"])
    game = api.create(3)
    api.client.post(f"/v1/games/{game['id']}/seats/0", json={}, headers=me)
    r = api.get("/v1/me/games", **me)
    etag = r.headers["ETag"]
    # Nothing changes: 304 once the wait is over.
    with SseStream(host, "/v1/me/games?wait=1", {**me, "If-None-Match": etag}) as poll:
        assert poll.status == 304
    with SseStream(host, "/v1/me/stream", me) as stream:
        first = stream.next()
        assert first is not None and first.event == "inbox"
        assert [g["game_id"] for g in first.data["games"]] == [game["id"]]
        _listening(streaming)
        api.join(game["id"], 1)
        api.join(game["id"], 2)  # the game starts: my entry changes
        changed = stream.until("game")[-1].data
        assert changed["game_id"] == game["id"]
        latest = api.get("/v1/me/games", **me).get_json()["games"][0]
        while changed["version"] < latest["version"]:
            changed = stream.until("game")[-1].data
        assert changed == latest
        assert (changed["my_turn"], changed["action"]) == (True, "pass")


def test_a_commit_notification_carries_its_events_to_the_other_process(
    two: tuple[AppUnderTest, str, Api], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The streaming process takes a command's events from the commit's notification
    (migration 0005) and reads nothing back from the store; what it sends is what the
    feed gives."""
    streaming, host, api = two
    reads: list[int] = []
    original = SqlEventStore.commits

    def counted(self: SqlEventStore, game_id: UUID, after: int) -> list[list[StoredEvent]]:
        reads.append(after)
        return original(self, game_id, after)

    monkeypatch.setattr(SqlEventStore, "commits", counted)
    warm_up = api.start(3)  # its stream starts the listener (whose connecting wakes all)
    with SseStream(host, f"/v1/games/{warm_up.id}/stream") as first:
        first.until("view")
        _listening(streaming)
    game = api.start(4, scoring="basic")
    reads.clear()  # the warm-up stream's, woken as the listener connected
    with SseStream(host, f"/v1/games/{game.id}/stream", game.seat_headers(3)) as stream:
        start = stream.until("view")[-1].id or 0
        rng = random.Random(8)
        for _ in range(6):
            api.act_randomly(game, rng)
        version = api.public(game.id)["version"]
        got = stream.until("view", version)
    assert [m.data for m in got if m.event == "game_event"] == api.feed(game, 3, start)
    assert reads == []


def test_a_players_token_streams_the_seat_the_player_holds(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    _, host, api = two
    player = api.post("/v1/players", {"name": "kai"}).get_json()
    me = bearer(player["token"])
    game = api.create(3)
    api.client.post(f"/v1/games/{game['id']}/seats/1", json={}, headers=me)
    api.join(game["id"], 0)
    api.join(game["id"], 2)
    with SseStream(host, f"/v1/games/{game['id']}/stream", me) as stream:
        view = stream.until("view")[-1].data
    assert view["seat"] == 1
    assert view["seats"][1]["name"] == "kai"  # sealed at rest, opened as it is sent
    assert view == api.get(f"/v1/games/{game['id']}/view", **me).get_json()
    # A player holding no seat of a game watches it as a spectator (Part 4, "Table
    # talk"): the public view (its /view refuses them).
    other = api.create(3)
    with SseStream(host, f"/v1/games/{other['id']}/stream", me) as watching:
        assert watching.status == 200
        assert watching.until("view")[-1].data == api.public(other["id"])
    assert api.get(f"/v1/games/{other['id']}/view", **me).status_code == 403
