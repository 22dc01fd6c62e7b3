"""Table talk on the game stream (docs/api.md "Table talk"): `event: chat` to whoever may
read the message, a player without a seat streaming as a spectator, messages written
through another process delivered through the commits' channel, and a block made while
a stream is open holding on it."""

from __future__ import annotations

from tests.e2e.test_chat import say
from tests.e2e.test_live_http import two
from tests.e2e.test_notifications import new_player
from tests.support.api import OPERATOR, Api, bearer
from tests.support.postgres import AppUnderTest
from tests.support.sse import Message, SseStream

__all__ = ["two"]  # the fixture: a process serving streams, another's API


def chats(stream: SseStream, until: str) -> list[Message]:
    """The chat messages up to the one whose text or preset is ``until``."""
    seen: list[Message] = []
    while True:
        m = stream.next()
        assert m is not None, f"the stream ended before {until!r}: {seen}"
        if m.event != "chat":
            continue
        seen.append(m)
        if until in (m.data["text"], m.data["preset"]):
            return seen


def said(messages: list[Message]) -> list[str]:
    return [m.data["text"] or m.data["preset"] for m in messages]


def test_each_stream_carries_the_chat_its_viewer_may_read(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    streaming, host, api = two
    game = api.start(4)
    watcher = new_player(api, "Kai")
    viewers = {
        "seat": game.seat_headers(1),
        "spectator": bearer(watcher),
        "operator": OPERATOR,
        "public": {},
    }
    streams = {n: SseStream(host, f"/v1/games/{game.id}/stream", h) for n, h in viewers.items()}
    try:
        for name, stream in streams.items():
            assert stream.status == 200, (name, stream.problem())
            first = stream.next()
            assert first is not None and first.event == "view", name
        # A spectator sees the public view (no hand, no seat of its own).
        assert streams["spectator"].response.status == 200
        assert listening(streaming)
        said_at_table = say(api, game.id, game.tokens[0], text="hello table")
        say(api, game.id, watcher, preset="good_luck")
        say(api, game.id, game.tokens[3], text="last at the table")
        seat = chats(streams["seat"], "last at the table")
        assert said(seat) == ["hello table", "last at the table"]
        assert seat[0].data == said_at_table and seat[0].id is None
        assert said(chats(streams["spectator"], "good_luck")) == ["good_luck"]
        operator = chats(streams["operator"], "last at the table")
        assert said(operator) == ["hello table", "good_luck", "last at the table"]
        # The public (no token) reads no chat: its next message is the next command's.
        hand = api.view(game, 0)["hand"]
        r = api.pass_cards(game, 0, [c if isinstance(c, str) else c["id"] for c in hand[:3]])
        assert r.status_code == 200, r.get_json()
        nxt = streams["public"].next()
        assert nxt is not None and nxt.event == "game_event"
    finally:
        for stream in streams.values():
            stream.close()


def listening(app: AppUnderTest) -> bool:
    return bool(app.container.listener.listening.wait(10))


def test_a_spectator_stream_sees_the_spectators_not_the_table(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    streaming, host, api = two
    game = api.start(3)
    watcher, other = new_player(api, "Kai"), new_player(api, "Rin")
    with SseStream(host, f"/v1/games/{game.id}/stream", bearer(watcher)) as stream:
        assert stream.status == 200
        first = stream.next()
        assert first is not None and first.event == "view"
        assert first.data == api.public(game.id)  # the public view
        assert listening(streaming)
        say(api, game.id, game.tokens[0], text="table only")
        say(api, game.id, other, text="from the stands")
        assert said(chats(stream, "from the stands")) == ["from the stands"]


def test_a_block_made_while_the_stream_is_open_holds_on_it(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    streaming, host, api = two
    game = api.start(3)
    watcher, rude, other = new_player(api, "Kai"), new_player(api, "Rude"), new_player(api, "Rin")
    rude_id = api.get("/v1/me", **bearer(rude)).get_json()["id"]
    with SseStream(host, f"/v1/games/{game.id}/stream", bearer(watcher)) as stream:
        assert stream.status == 200
        assert stream.until("view")
        assert listening(streaming)
        say(api, game.id, rude, text="heard before")
        assert said(chats(stream, "heard before")) == ["heard before"]
        r = api.client.put(f"/v1/me/blocks/{rude_id}", headers=bearer(watcher))
        assert r.status_code == 204
        say(api, game.id, rude, text="never heard")
        say(api, game.id, other, text="the next one")
        assert said(chats(stream, "the next one")) == ["the next one"]


def test_a_spectator_who_takes_a_seat_is_a_spectator_no_more(
    two: tuple[AppUnderTest, str, Api],
) -> None:
    """A player watching a waiting game (the spectators' channel) who sits down: their
    stream ends, and reopened it is the seat's, without the spectators' talk."""
    streaming, host, api = two
    game = api.create(3)["id"]
    api.join(game, 1)
    api.join(game, 2)
    token, fan = new_player(api, "Kai"), new_player(api, "Fan")
    with SseStream(host, f"/v1/games/{game}/stream", bearer(token)) as watching:
        assert watching.status == 200
        assert watching.until("view")
        assert listening(streaming)
        r = api.post(f"/v1/games/{game}/seats/0", {}, **bearer(token))
        assert r.status_code == 201, r.get_json()
        rest = []
        while (m := watching.next()) is not None:  # the server ends it
            rest.append(m.event)
        assert "chat" not in rest
    with SseStream(host, f"/v1/games/{game}/stream", bearer(token)) as seated:
        assert seated.until("view")[-1].data["seat"] == 0
        say(api, game, fan, text="from the stands")
        say(api, game, token, text="at the table")
        assert said(chats(seated, "at the table")) == ["at the table"]
